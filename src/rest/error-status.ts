// The one mapping between the domain's ErrorCode and HTTP, and the one normalisation of anything thrown on a REST
// route (domain errors, framework errors such as malformed JSON or an oversized body, bugs) into a status and the
// error envelope {success: false, message, code, errors}.
import type { FastifyBaseLogger } from "fastify";
import { fieldErrorsOf } from "../shared/envelope";
import { DomainError, ErrorCode, INTERNAL_MESSAGE, type FieldError } from "../shared/errors";

export const HTTP_STATUS: Record<ErrorCode, number> = {
  [ErrorCode.BAD_REQUEST]: 400,
  [ErrorCode.UNAUTHORIZED]: 401,
  [ErrorCode.FORBIDDEN]: 403,
  [ErrorCode.NOT_FOUND]: 404,
  [ErrorCode.CONFLICT]: 409,
  [ErrorCode.INTERNAL_SERVER_ERROR]: 500,
  [ErrorCode.TOO_MANY_REQUESTS]: 429,
};

export interface ErrorBody {
  success: false;
  message: string;
  code: ErrorCode;
  /** Every problem found; a failure that is not about fields has one entry with field null. */
  errors: FieldError[];
}

/** The body of a failure with one problem that belongs to no field. */
function errorBody(code: ErrorCode, message: string): ErrorBody {
  return { success: false, message, code, errors: [{ field: null, message, code }] };
}

export interface ErrorReply {
  status: number;
  body: ErrorBody;
}

/** The ErrorCode of an error raised by the framework (it has a status but no code of ours). */
function codeForClientStatus(status: number): ErrorCode {
  const known = (Object.keys(HTTP_STATUS) as ErrorCode[]).find((code) => HTTP_STATUS[code] === status);
  return known ?? (status >= 500 ? ErrorCode.INTERNAL_SERVER_ERROR : ErrorCode.BAD_REQUEST);
}

/**
 * The error envelope for a status the framework or the server answers itself (431, 408, 503 while draining …):
 * every error body is built here or in toErrorReply, so a change of the envelope lands in one place.
 */
export function envelopeReply(
  status: number,
  message: string,
  code: ErrorCode = codeForClientStatus(status),
): ErrorReply {
  return { status, body: errorBody(code, message) };
}

/** Fastify's messages for a few client errors say what went wrong but not what to do. */
const FRAMEWORK_MESSAGES: Record<string, (err: Error) => string> = {
  FST_ERR_CTP_INVALID_MEDIA_TYPE: (err) => `${err.message}; send the body as application/json`,
  FST_ERR_CTP_BODY_TOO_LARGE: () => "request body is too large",
  FST_ERR_CTP_EMPTY_JSON_BODY: () => "request body is empty although content-type is application/json",
  FST_ERR_CTP_INVALID_JSON_BODY: () => "malformed JSON body: the request body is not valid JSON",
};

/** Text of the runtime that must not reach a client (a stack overflow, a V8 range error). */
const RUNTIME_TEXT = /call stack|RangeError|Invalid (array|string) length|out of memory/i;

function isClientError(err: unknown): err is Error & { statusCode: number; code?: string } {
  const status = (err as { statusCode?: unknown } | null)?.statusCode;
  return err instanceof Error && typeof status === "number" && status >= 400 && status < 500;
}

/** Normalises anything thrown; internal failures are logged here with their detail and answered generically. */
export function toErrorReply(err: unknown, log: FastifyBaseLogger): ErrorReply {
  if (err instanceof DomainError && !err.isInternal) {
    return {
      status: HTTP_STATUS[err.code],
      body: { success: false, message: err.message, code: err.code, errors: fieldErrorsOf(err) },
    };
  }
  if (isClientError(err)) {
    const describe = err.code ? FRAMEWORK_MESSAGES[err.code] : undefined;
    // A JSON syntax error thrown by the body parser carries status 400 but no Fastify code.
    let message = describe
      ? describe(err)
      : err instanceof SyntaxError
        ? `malformed JSON body: ${err.message}`
        : err.message;
    // Fastify's own errors may be RangeErrors too (body too large); those messages are the framework's, not V8's.
    if ((err instanceof RangeError && !err.code?.startsWith("FST_")) || RUNTIME_TEXT.test(message)) {
      log.warn({ err }, "client error with runtime text");
      message = "the request is nested too deeply or is too large to process; simplify it";
    }
    return envelopeReply(err.statusCode, message);
  }
  log.error({ err: err instanceof DomainError ? (err.cause ?? err) : err }, "internal error");
  return envelopeReply(HTTP_STATUS[ErrorCode.INTERNAL_SERVER_ERROR], INTERNAL_MESSAGE, ErrorCode.INTERNAL_SERVER_ERROR);
}

export function notFoundReply(method: string, url: string): ErrorReply {
  const path = url.split("?")[0].slice(0, 200);
  return {
    status: HTTP_STATUS[ErrorCode.NOT_FOUND],
    body: errorBody(ErrorCode.NOT_FOUND, `no route ${method} ${path}`),
  };
}
