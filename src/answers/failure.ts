// What a failure is, whichever transport answers it: anything thrown while serving a request (a DomainError, an
// error the framework raises with a 4xx status, a bug) becomes one Failure, the HTTP status, the ErrorCode, the
// message a person can act on and every problem found. Internal failures are logged here with their detail and
// answered generically, and runtime text never reaches a client: both happen only here. The answer shapes are built
// from a Failure by envelope.ts (REST bodies, mutation payloads), graphql-error.ts and http-fallback.ts.
import type { FastifyBaseLogger } from "fastify";
import { DomainError, ErrorCode, FieldErrorReason, INTERNAL_MESSAGE, type FieldError } from "../shared/errors";

export interface Failure {
  status: number;
  code: ErrorCode;
  /** The first problem's message. */
  message: string;
  /** Every problem found; a failure that is not about fields has one entry with field null. */
  errors: FieldError[];
  /** The answer's Retry-After (seconds), for a failure that passes (load shed). */
  retryAfterSeconds?: number;
}

/** The one mapping between the domain's ErrorCode and HTTP. */
export const HTTP_STATUS: Record<ErrorCode, number> = {
  [ErrorCode.BAD_REQUEST]: 400,
  [ErrorCode.UNAUTHORIZED]: 401,
  [ErrorCode.FORBIDDEN]: 403,
  [ErrorCode.NOT_FOUND]: 404,
  [ErrorCode.CONFLICT]: 409,
  [ErrorCode.INTERNAL_SERVER_ERROR]: 500,
  [ErrorCode.TOO_MANY_REQUESTS]: 429,
  [ErrorCode.SERVICE_UNAVAILABLE]: 503,
};

/** The ErrorCode of a status the framework or the server answers itself (it has no code of ours). */
function codeForStatus(status: number): ErrorCode {
  const known = (Object.keys(HTTP_STATUS) as ErrorCode[]).find((code) => HTTP_STATUS[code] === status);
  return known ?? (status >= 500 ? ErrorCode.INTERNAL_SERVER_ERROR : ErrorCode.BAD_REQUEST);
}

/**
 * A failure with one problem that belongs to no field (a status the server answers itself: 431, 503 …); whoever
 * finds the problem names its reason.
 */
export function failure(
  status: number,
  reason: FieldErrorReason,
  message: string,
  code: ErrorCode = codeForStatus(status),
): Failure {
  return { status, code, message, errors: [{ field: null, message, code, reason }] };
}

/** Every problem of a domain error; one raised without a list is one problem tied to no field. */
function fieldErrorsOf(error: DomainError): FieldError[] {
  return error.errors.length > 0
    ? error.errors
    : [{ field: null, message: error.message, code: error.code, reason: error.reason }];
}

/** Text of the runtime (a stack overflow, a V8 range error): it says nothing a client can act on and leaks internals. */
const RUNTIME_TEXT = /call stack|RangeError|Invalid (array|string) length|out of memory/i;

/** What a client is told instead of runtime text about its request, and about a GraphQL document. */
export const TOO_COMPLEX = {
  request: "the request is nested too deeply or is too large to process; simplify it",
  document: "the GraphQL document nests lists or objects too deeply, or is too large, to process; simplify it",
} as const;

/**
 * `message`, or `instead` when it is the runtime's text. An error of the framework may be a RangeError too (a body
 * too large): its message is the framework's, not V8's, and is kept.
 */
export function withoutRuntimeText(message: string, instead: string, err?: unknown): string {
  const runtimeRangeError = err instanceof RangeError && !(err as { code?: string }).code?.startsWith("FST_");
  return runtimeRangeError || RUNTIME_TEXT.test(message) ? instead : message;
}

/** Fastify's messages for a few client errors say what went wrong but not what to do; each has its reason. */
const FRAMEWORK_ERRORS: Record<string, { reason: FieldErrorReason; message: (err: Error) => string }> = {
  FST_ERR_CTP_INVALID_MEDIA_TYPE: {
    reason: FieldErrorReason.UNSUPPORTED_MEDIA_TYPE,
    message: (err) => `${err.message}; send the body as application/json`,
  },
  FST_ERR_CTP_BODY_TOO_LARGE: { reason: FieldErrorReason.TOO_LARGE, message: () => "request body is too large" },
  FST_ERR_CTP_EMPTY_JSON_BODY: {
    reason: FieldErrorReason.MALFORMED_REQUEST,
    message: () => "request body is empty although content-type is application/json",
  },
  FST_ERR_CTP_INVALID_JSON_BODY: {
    reason: FieldErrorReason.MALFORMED_REQUEST,
    message: () => "malformed JSON body: the request body is not valid JSON",
  },
};

/** The reason of another client error of the framework, by the status it raised it with. */
const REASON_OF_STATUS: Record<number, FieldErrorReason> = {
  404: FieldErrorReason.NOT_FOUND,
  405: FieldErrorReason.NOT_SUPPORTED,
  408: FieldErrorReason.TIMEOUT,
  413: FieldErrorReason.TOO_LARGE,
  414: FieldErrorReason.TOO_LARGE,
  415: FieldErrorReason.UNSUPPORTED_MEDIA_TYPE,
  431: FieldErrorReason.TOO_LARGE,
};

function isClientError(err: unknown): err is Error & { statusCode: number; code?: string } {
  const status = (err as { statusCode?: unknown } | null)?.statusCode;
  return err instanceof Error && typeof status === "number" && status >= 400 && status < 500;
}

function clientError(err: Error & { statusCode: number; code?: string }): {
  reason: FieldErrorReason;
  message: string;
} {
  const known = err.code ? FRAMEWORK_ERRORS[err.code] : undefined;
  if (known) return { reason: known.reason, message: known.message(err) };
  // A JSON syntax error thrown by a body parser carries status 400 but no Fastify code.
  if (err instanceof SyntaxError) {
    return { reason: FieldErrorReason.MALFORMED_REQUEST, message: `malformed JSON body: ${err.message}` };
  }
  return { reason: REASON_OF_STATUS[err.statusCode] ?? FieldErrorReason.MALFORMED_REQUEST, message: err.message };
}

/**
 * Normalises anything thrown. Domain errors keep their code, message and problems; client errors of the framework
 * keep their status; anything else is internal: logged (with `context`, e.g. the GraphQL operation) and answered
 * with INTERNAL_MESSAGE.
 */
export function failureOf(err: unknown, log: FastifyBaseLogger, context: Record<string, unknown> = {}): Failure {
  if (err instanceof DomainError && !err.isInternal) {
    const answer: Failure = {
      status: HTTP_STATUS[err.code],
      code: err.code,
      message: err.message,
      errors: fieldErrorsOf(err),
    };
    if (err.retryAfterSeconds !== undefined) answer.retryAfterSeconds = err.retryAfterSeconds;
    return answer;
  }
  if (isClientError(err)) {
    const said = clientError(err);
    const message = withoutRuntimeText(said.message, TOO_COMPLEX.request, err);
    if (message !== said.message) {
      log.warn({ err }, "client error with runtime text");
      return failure(err.statusCode, FieldErrorReason.TOO_COMPLEX, message);
    }
    return failure(err.statusCode, said.reason, message);
  }
  log.error({ err: err instanceof DomainError ? (err.cause ?? err) : err, ...context }, "internal error");
  return failure(
    HTTP_STATUS[ErrorCode.INTERNAL_SERVER_ERROR],
    FieldErrorReason.INTERNAL,
    INTERNAL_MESSAGE,
    ErrorCode.INTERNAL_SERVER_ERROR,
  );
}
