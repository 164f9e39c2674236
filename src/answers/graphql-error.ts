// The GraphQL error: the body answered on /graphql when a request fails before Apollo runs it
// ({errors: [{message, extensions: {code}}]}), and Apollo's formatError for errors of queries and of documents.
import { unwrapResolverError } from "@apollo/server/errors";
import type { FastifyBaseLogger } from "fastify";
import { GraphQLError, type GraphQLFormattedError } from "graphql";
import { DomainError, type ErrorCode } from "../shared/errors";
import { failureOf, TOO_COMPLEX, withoutRuntimeText, type Failure } from "./failure";

export interface GraphqlErrorBody {
  errors: { message: string; extensions: { code: ErrorCode } }[];
}

export function graphqlErrorBody(failure: Failure): GraphqlErrorBody {
  return { errors: [{ message: failure.message, extensions: { code: failure.code } }] };
}

/**
 * Apollo's formatError. Errors of resolvers (of queries: mutations answer with their payload) carry the failure's
 * code and message, internal ones logged and masked; errors of the document itself (syntax, validation) pass as
 * Apollo formats them, without runtime text (a document nested deeply enough to overflow the parser's stack).
 */
export function formatGraphqlError(
  formatted: GraphQLFormattedError,
  error: unknown,
  logger: FastifyBaseLogger,
): GraphQLFormattedError {
  const original = unwrapResolverError(error);
  const fromResolver = error instanceof GraphQLError && error.path !== undefined;
  if (!(original instanceof DomainError) && !fromResolver) {
    const message = withoutRuntimeText(formatted.message, TOO_COMPLEX.document);
    return message === formatted.message ? formatted : { ...formatted, message };
  }
  const failure = failureOf(original, logger, { operation: String(formatted.path?.[0] ?? "query") });
  return {
    message: failure.message,
    locations: formatted.locations,
    path: formatted.path,
    extensions: { code: failure.code },
  };
}
