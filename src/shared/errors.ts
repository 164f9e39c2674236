// Typed domain errors. Everything the domain throws on purpose is a DomainError carrying an ErrorCode;
// anything else is normalised to INTERNAL_SERVER_ERROR by toDomainError, in the one place per transport.
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

export const badRequest = (message: string) => new DomainError(ErrorCode.BAD_REQUEST, message);
export const unauthorized = (message: string) => new DomainError(ErrorCode.UNAUTHORIZED, message);
export const forbidden = (message: string) => new DomainError(ErrorCode.FORBIDDEN, message);
export const notFound = (message: string) => new DomainError(ErrorCode.NOT_FOUND, message);
export const conflict = (message: string) => new DomainError(ErrorCode.CONFLICT, message);

/** Normalises anything thrown into a DomainError; unknown errors become INTERNAL with no detail. */
export function toDomainError(err: unknown): DomainError {
  if (err instanceof DomainError) return err;
  return new DomainError(ErrorCode.INTERNAL_SERVER_ERROR, INTERNAL_MESSAGE, { cause: err });
}
