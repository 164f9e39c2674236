// Typed domain errors. Everything the domain throws on purpose is a DomainError carrying an ErrorCode and, for each
// problem, a FieldErrorReason decided where the problem is found (the field rule, the domain rule, the framework
// error); anything else is an internal failure (answers/failure.ts normalises what is thrown, once for every
// transport).
export enum ErrorCode {
  BAD_REQUEST = "BAD_REQUEST",
  UNAUTHORIZED = "UNAUTHORIZED",
  FORBIDDEN = "FORBIDDEN",
  NOT_FOUND = "NOT_FOUND",
  CONFLICT = "CONFLICT",
  INTERNAL_SERVER_ERROR = "INTERNAL_SERVER_ERROR",
  TOO_MANY_REQUESTS = "TOO_MANY_REQUESTS",
  SERVICE_UNAVAILABLE = "SERVICE_UNAVAILABLE",
}

/**
 * Why a field (or a request) was refused, for code: a frontend translates by it instead of parsing `message`. The
 * same on GraphQL (FieldError.reason, extensions.reason) and REST (errors[].reason).
 */
export enum FieldErrorReason {
  // value validation
  REQUIRED = "REQUIRED",
  BLANK = "BLANK",
  TOO_LONG = "TOO_LONG",
  INVALID_FORMAT = "INVALID_FORMAT",
  INVALID_DATE = "INVALID_DATE",
  OUT_OF_RANGE = "OUT_OF_RANGE",
  FORBIDDEN_CHARACTERS = "FORBIDDEN_CHARACTERS",
  WRONG_TYPE = "WRONG_TYPE",
  UNKNOWN_FIELD = "UNKNOWN_FIELD",
  UNKNOWN_STATUS = "UNKNOWN_STATUS",
  INVALID_CURSOR = "INVALID_CURSOR",
  // domain rules
  TAKEN = "TAKEN",
  NOT_FOUND = "NOT_FOUND",
  TRANSITION_NOT_ALLOWED = "TRANSITION_NOT_ALLOWED",
  STALE_REVISION = "STALE_REVISION",
  ALREADY_ASSIGNED = "ALREADY_ASSIGNED",
  CONCURRENT_CHANGE = "CONCURRENT_CHANGE",
  IN_USE = "IN_USE",
  ARCHIVED = "ARCHIVED",
  NOT_ARCHIVED = "NOT_ARCHIVED",
  // the caller
  NOT_ALLOWED = "NOT_ALLOWED",
  RATE_LIMITED = "RATE_LIMITED",
  LIMIT_EXCEEDED = "LIMIT_EXCEEDED",
  // the request and its document
  MALFORMED_REQUEST = "MALFORMED_REQUEST",
  TOO_LARGE = "TOO_LARGE",
  UNSUPPORTED_MEDIA_TYPE = "UNSUPPORTED_MEDIA_TYPE",
  NOT_SUPPORTED = "NOT_SUPPORTED",
  TIMEOUT = "TIMEOUT",
  TOO_COMPLEX = "TOO_COMPLEX",
  NOT_TRUSTED = "NOT_TRUSTED",
  // the service
  UNAVAILABLE = "UNAVAILABLE",
  OVERLOADED = "OVERLOADED",
  INTERNAL = "INTERNAL",
}

/** What each reason means: the GraphQL enum's value descriptions, the OpenAPI schema and the documentation's table. */
export const FIELD_ERROR_REASONS: Record<FieldErrorReason, string> = {
  REQUIRED: "A required field or argument is missing or null",
  BLANK: "A text is empty once trimmed, or contains only invisible characters",
  TOO_LONG: "A text has more characters than its field allows",
  INVALID_FORMAT:
    "A value is not written the way its field needs (an e-mail address, an http(s) URL, a whole number in a path)",
  INVALID_DATE: "A date is not a real calendar date written YYYY-MM-DD",
  OUT_OF_RANGE:
    "A number is outside its range (ids, company_id, expected_revision, offset, limit, after_revision), end_date is before start_date, or a where's in/notIn (1-100 values) or and/or (1-10 entries) holds too few or too many",
  FORBIDDEN_CHARACTERS:
    "A text contains control characters, unpaired surrogates, bidirectional overrides, or (in identifiers such as class_code and email) invisible characters",
  WRONG_TYPE: "A value has the wrong JSON type (a string where a number belongs, an array instead of an object)",
  UNKNOWN_FIELD: "A field is not accepted by this operation (unknown, or not updatable such as email)",
  UNKNOWN_STATUS: "project_status is not one of the statuses PROJECT_STATUS_WORKFLOW lists",
  INVALID_CURSOR: "A cursor is not one this service gave out, or has expired",
  TAKEN: "The value is already used where it must be unique (project_name per company_id, a student's email)",
  NOT_FOUND: "The resource the field or argument names does not exist",
  TRANSITION_NOT_ALLOWED:
    "PROJECT_STATUS_WORKFLOW does not allow this status change (or does not allow a new project to start with it)",
  STALE_REVISION: "expected_revision is not the project's current revision: reload it and decide again",
  ALREADY_ASSIGNED: "The teacher is already the project's teacher",
  CONCURRENT_CHANGE: "The resource kept changing concurrently; send the request again",
  ARCHIVED: "The project is archived: it cannot be changed (nor archived again) until it is unarchived",
  NOT_ARCHIVED: "The project is not archived, so it cannot be unarchived",
  IN_USE:
    "The resource cannot be deleted while others refer to it (a teacher assigned to projects, archived ones included)",
  NOT_ALLOWED:
    "The caller is not authenticated, or its role (X-User-Role, the token's roles) may not run the operation",
  RATE_LIMITED: "The caller sent more requests than RATE_LIMIT_PER_MINUTE allows; retry after Retry-After seconds",
  LIMIT_EXCEEDED: "A limit of one connection was reached (SUBSCRIPTIONS_PER_CONNECTION)",
  MALFORMED_REQUEST:
    "The request itself is malformed: JSON that does not parse, an empty JSON body, broken HTTP framing, a bad URL, a malformed documentId, a persisted query whose sha256Hash does not match its query",
  TOO_LARGE: "The request body, its headers or a path parameter is larger than the service accepts",
  UNSUPPORTED_MEDIA_TYPE: "The request body is not application/json",
  NOT_SUPPORTED:
    "The operation is not served this way (a subscription over HTTP, a query over WebSocket, a method the route does not take)",
  TIMEOUT: "The request was not received in time",
  TOO_COMPLEX:
    "The GraphQL document costs more, or is larger, than the service runs, or a where nests and/or/not deeper than 4",
  NOT_TRUSTED:
    "The document is not a trusted one (TRUSTED_DOCUMENTS): an unknown documentId or hash, or, with TRUSTED_DOCUMENTS_ONLY, a document sent as text",
  UNAVAILABLE: "The service cannot answer now (shutting down, database not answering, connections full); retry",
  OVERLOADED:
    "More changes arrived than the database takes within DB_TIMEOUT_MS: this one did not get its turn; retry after Retry-After seconds",
  INTERNAL: "An unexpected failure of the service, logged with its detail; the request may be retried",
};

/** One problem of a request, tied to the input field or argument it concerns (null: no single field). */
export interface FieldError {
  field: string | null;
  message: string;
  code: ErrorCode;
  reason: FieldErrorReason;
}

export const INTERNAL_MESSAGE = "Internal server error; the failure was logged";

/** How a DomainError says why: its problems (the first gives message, code and reason), or one reason for all. */
type Why = { errors: [FieldError, ...FieldError[]] } | { reason: FieldErrorReason };

export class DomainError extends Error {
  /** Every problem found (validation reports all invalid fields at once); message and code are the first's. */
  readonly errors: FieldError[];
  /** Why, for code: the first problem's reason. */
  readonly reason: FieldErrorReason;
  /** Seconds after which the request may be sent again (the answer's Retry-After), for failures that pass. */
  readonly retryAfterSeconds?: number;

  constructor(
    readonly code: ErrorCode,
    message: string,
    options: { cause?: unknown; retryAfterSeconds?: number } & Why,
  ) {
    super(message, { cause: options.cause });
    this.name = "DomainError";
    this.errors = "errors" in options ? options.errors : [];
    this.reason = "errors" in options ? options.errors[0].reason : options.reason;
    if (options.retryAfterSeconds !== undefined) this.retryAfterSeconds = options.retryAfterSeconds;
  }

  /** True for failures that are not the caller's fault and must be logged with detail. */
  get isInternal(): boolean {
    return this.code === ErrorCode.INTERNAL_SERVER_ERROR;
  }
}

/** A DomainError with one problem; `field` names the input field or argument it concerns, if any. */
function failure(code: ErrorCode, message: string, field: string | null, reason: FieldErrorReason): DomainError {
  return new DomainError(code, message, { errors: [{ field, message, code, reason }] });
}

export const badRequest = (message: string, field: string | null, reason: FieldErrorReason) =>
  failure(ErrorCode.BAD_REQUEST, message, field, reason);
/** Not authenticated, or (where the role table says so) a role that may not act: always NOT_ALLOWED. */
export const unauthorized = (message: string) =>
  failure(ErrorCode.UNAUTHORIZED, message, null, FieldErrorReason.NOT_ALLOWED);
/** A role or row rule that may not act; `field` names the input field or argument the refusal concerns, if any. */
export const forbidden = (message: string, field: string | null = null) =>
  failure(ErrorCode.FORBIDDEN, message, field, FieldErrorReason.NOT_ALLOWED);
export const notFound = (message: string, field: string | null = null) =>
  failure(ErrorCode.NOT_FOUND, message, field, FieldErrorReason.NOT_FOUND);
export const conflict = (message: string, field: string | null, reason: FieldErrorReason) =>
  failure(ErrorCode.CONFLICT, message, field, reason);
/** An internal failure: logged with `cause`, answered with INTERNAL_MESSAGE. */
export const internalError = (cause: unknown) =>
  new DomainError(ErrorCode.INTERNAL_SERVER_ERROR, INTERNAL_MESSAGE, { cause, reason: FieldErrorReason.INTERNAL });
/**
 * Load shed: a change that could not get its turn at the database within its time budget (HTTP 503 with
 * Retry-After). Not a fault of the service, so not logged as one: GET /metrics counts it.
 */
export const overloaded = (message: string, retryAfterSeconds: number, cause?: unknown) =>
  new DomainError(ErrorCode.SERVICE_UNAVAILABLE, message, {
    cause,
    retryAfterSeconds,
    errors: [{ field: null, message, code: ErrorCode.SERVICE_UNAVAILABLE, reason: FieldErrorReason.OVERLOADED }],
  });
