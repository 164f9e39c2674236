// Typed domain errors. Everything the domain throws on purpose is a DomainError carrying an ErrorCode; anything
// else is an internal failure (answers/failure.ts normalises what is thrown, once for every transport).
export enum ErrorCode {
  BAD_REQUEST = "BAD_REQUEST",
  UNAUTHORIZED = "UNAUTHORIZED",
  FORBIDDEN = "FORBIDDEN",
  NOT_FOUND = "NOT_FOUND",
  CONFLICT = "CONFLICT",
  INTERNAL_SERVER_ERROR = "INTERNAL_SERVER_ERROR",
  TOO_MANY_REQUESTS = "TOO_MANY_REQUESTS",
}

/** One problem of a request, tied to the input field or argument it concerns (null: no single field). */
export interface FieldError {
  field: string | null;
  message: string;
  code: ErrorCode;
}

export const INTERNAL_MESSAGE = "Internal server error; the failure was logged";

export class DomainError extends Error {
  /** Every problem found (validation reports all invalid fields at once); message and code are the first's. */
  readonly errors: FieldError[];

  constructor(
    readonly code: ErrorCode,
    message: string,
    options?: { cause?: unknown; errors?: FieldError[] },
  ) {
    super(message, options);
    this.name = "DomainError";
    this.errors = options?.errors ?? [];
  }

  /** True for failures that are not the caller's fault and must be logged with detail. */
  get isInternal(): boolean {
    return this.code === ErrorCode.INTERNAL_SERVER_ERROR;
  }
}

/** A DomainError with one problem; `field` names the input field or argument it concerns, if any. */
function failure(code: ErrorCode, message: string, field: string | null): DomainError {
  return new DomainError(code, message, { errors: [{ field, message, code }] });
}

export const badRequest = (message: string, field: string | null = null) =>
  failure(ErrorCode.BAD_REQUEST, message, field);
export const unauthorized = (message: string) => failure(ErrorCode.UNAUTHORIZED, message, null);
export const forbidden = (message: string) => failure(ErrorCode.FORBIDDEN, message, null);
export const notFound = (message: string, field: string | null = null) => failure(ErrorCode.NOT_FOUND, message, field);
export const conflict = (message: string, field: string | null = null) => failure(ErrorCode.CONFLICT, message, field);
