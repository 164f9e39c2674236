// Normalises anything a resolver throws into a DomainError, logging internal failures with their detail.
import { AuthenticationError, AuthorizationError } from "type-graphql";
import type { RequestLogger } from "../logger";
import { DomainError, ErrorCode, toDomainError } from "../shared/errors";

export function reportError(err: unknown, logger: RequestLogger, operation: string): DomainError {
  let error: DomainError;
  if (err instanceof AuthenticationError) error = new DomainError(ErrorCode.UNAUTHORIZED, "Authentication is required");
  else if (err instanceof AuthorizationError) error = new DomainError(ErrorCode.FORBIDDEN, "Access denied");
  else error = toDomainError(err);
  if (error.isInternal) logger.error({ err: error.cause ?? err, operation }, "internal error");
  return error;
}
