// The GraphQL error: the body answered on /graphql when a request fails before Apollo runs it
// ({errors: [{message, extensions: {code, reason, field}}]}), and Apollo's formatError for errors of queries and of
// documents. `reason` and `field` are the first problem's, as a payload's FieldError gives them.
import type { ApolloServerPlugin, GraphQLRequestContextWillSendResponse } from "@apollo/server";
import { unwrapResolverError } from "@apollo/server/errors";
import type { FastifyBaseLogger } from "fastify";
import { GraphQLError, type GraphQLFormattedError } from "graphql";
import { DomainError, ErrorCode, FieldErrorReason } from "../shared/errors";
import { failureOf, TOO_COMPLEX, withoutRuntimeText, type Failure } from "./failure";

/** What a GraphQL error of ours carries besides its message: the code, and the first problem's reason and field. */
// A type, not an interface: it must fit GraphQLFormattedError's extensions (an index signature).
export type GraphqlErrorExtensions = {
  code: ErrorCode;
  reason: FieldErrorReason;
  /** The argument or input field the problem concerns; left out when it concerns none. */
  field?: string;
};

export interface GraphqlErrorBody {
  errors: { message: string; extensions: GraphqlErrorExtensions }[];
}

function extensionsOf(failure: Failure): GraphqlErrorExtensions {
  const [first] = failure.errors;
  return { code: failure.code, reason: first.reason, ...(first.field !== null ? { field: first.field } : {}) };
}

export function graphqlErrorBody(failure: Failure): GraphqlErrorBody {
  return { errors: [{ message: failure.message, extensions: extensionsOf(failure) }] };
}

/**
 * An error Apollo raises itself about the request with a client status (4xx) but no code of its own — a persisted
 * query whose sha256Hash does not match its query, an unsupported persisted-query version — is the client's mistake:
 * Apollo would call it INTERNAL_SERVER_ERROR (and /metrics would count a false alarm).
 */
function isUncodedClientError(error: unknown): boolean {
  if (!(error instanceof GraphQLError) || error.extensions.code !== undefined) return false;
  const status = (error.extensions.http as { status?: unknown } | undefined)?.status;
  return typeof status === "number" && status >= 400 && status < 500;
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
    const extensions = isUncodedClientError(error)
      ? { ...formatted.extensions, code: ErrorCode.BAD_REQUEST, reason: FieldErrorReason.MALFORMED_REQUEST }
      : formatted.extensions;
    return message === formatted.message && extensions === formatted.extensions
      ? formatted
      : { ...formatted, message, extensions };
  }
  const failure = failureOf(original, logger, { operation: String(formatted.path?.[0] ?? "query") });
  return {
    message: failure.message,
    locations: formatted.locations,
    path: formatted.path,
    extensions: extensionsOf(failure),
  };
}

/**
 * Answers a GraphQL request whose operation was shed (a DomainError SERVICE_UNAVAILABLE: its change got no turn at
 * the database in time) with HTTP 503 and its Retry-After, as REST answers it; other errors keep Apollo's status.
 */
export function shedRequestStatusPlugin<C extends object>(): ApolloServerPlugin<C> {
  // One listener for every request, no state of its own: a request's errors are on its context when it answers.
  const listener = {
    async willSendResponse({ errors, response }: GraphQLRequestContextWillSendResponse<C>) {
      let retryAfterSeconds: number | undefined;
      for (const error of errors ?? []) {
        const original = unwrapResolverError(error);
        if (original instanceof DomainError && original.code === ErrorCode.SERVICE_UNAVAILABLE) {
          retryAfterSeconds = Math.max(retryAfterSeconds ?? 0, original.retryAfterSeconds ?? 1);
        }
      }
      if (retryAfterSeconds === undefined) return;
      response.http.status = 503;
      response.http.headers.set("retry-after", String(retryAfterSeconds));
    },
  };
  return { requestDidStart: async () => listener };
}
