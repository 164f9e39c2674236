// What each GraphQL operation was and how it ended, for the request log line and the graphql_operations_total
// metric: an Apollo plugin reads the operation name and the outcome (success, the ErrorCode of a failed mutation
// payload, or of the first GraphQL error) and leaves them on the Fastify request that carried the operation. No
// client mistake is an internal error here: Apollo's own codes are BAD_REQUEST unless the status says the server
// failed, and the persisted-query round trip (PERSISTED_QUERY_NOT_FOUND, after which the client sends the query) is
// an outcome of its own.
import type { ApolloServerPlugin } from "@apollo/server";
import type { FastifyRequest } from "fastify";
import type { Context } from "../graphql/context";
import { ErrorCode } from "../shared/errors";
import type { Metrics } from "./metrics";

export interface GraphQLOperationSummary {
  /** The operation's name; "anonymous" when it has none, "invalid" when the name is not a GraphQL name. */
  operation: string;
  /** "success", an ErrorCode name, or PERSISTED_QUERY_NOT_FOUND. */
  outcome: string;
}

declare module "fastify" {
  interface FastifyRequest {
    graphql?: GraphQLOperationSummary;
  }
}

// A symbol-keyed property, not a WeakMap: Apollo runs each operation on a shallow copy of the context, which copies
// own symbol properties too.
const HTTP_REQUEST = Symbol("http request");

/** Ties a GraphQL context to the HTTP request it serves (called in the Apollo context function). */
export function withRequest<T extends object>(request: FastifyRequest, context: T): T {
  return Object.assign(context, { [HTTP_REQUEST]: request });
}

/** Outcomes kept as they are: our codes, and Apollo's persisted-query miss (a step of the protocol, not a failure). */
const PERSISTED_QUERY_NOT_FOUND = "PERSISTED_QUERY_NOT_FOUND";
const KEPT_CODES = new Set<string>([...Object.values(ErrorCode), PERSISTED_QUERY_NOT_FOUND]);
const GRAPHQL_NAME = /^[_A-Za-z][_0-9A-Za-z]{0,63}$/;

/**
 * Distinct operation names the metric keeps. Names are chosen by clients and every label value is a time series
 * kept for the process's life: past this many, new names count as "other", so no client can grow memory without
 * bound. A frontend has a few dozen operations.
 */
export const MAX_OPERATION_LABELS = 500;

function operationLabel(name: string | null | undefined): string {
  if (!name) return "anonymous";
  return GRAPHQL_NAME.test(name) ? name : "invalid";
}

/** The operation's label in the metric: its own until MAX_OPERATION_LABELS names were seen, then "other". */
function metricLabel(operation: string, seen: Set<string>): string {
  if (seen.has(operation)) return operation;
  if (seen.size >= MAX_OPERATION_LABELS) return "other";
  seen.add(operation);
  return operation;
}

/** Apollo's own codes (parse and validation failures …) become BAD_REQUEST or INTERNAL_SERVER_ERROR by status. */
function codeLabel(code: unknown, status: number | undefined): string {
  if (typeof code === "string" && KEPT_CODES.has(code)) return code;
  return (status ?? 200) >= 500 ? ErrorCode.INTERNAL_SERVER_ERROR : ErrorCode.BAD_REQUEST;
}

export function operationOutcomePlugin(metrics: Metrics): ApolloServerPlugin<Context> {
  const seenNames = new Set<string>();
  return {
    async requestDidStart() {
      return {
        async willSendResponse(requestContext) {
          const { response } = requestContext;
          let outcome = "success";
          if (response.body.kind === "single") {
            const { errors, data } = response.body.singleResult;
            if (errors?.length) {
              outcome = codeLabel(errors[0].extensions?.code, response.http.status);
            } else if (requestContext.operation?.operation === "mutation" && data) {
              // Mutations answer failures in their payload: {success: false, code}.
              const failed = Object.values(data).find(
                (payload) => (payload as { success?: unknown } | null)?.success === false,
              );
              if (failed) outcome = codeLabel((failed as { code?: unknown }).code, 200);
            }
          }
          const summary = {
            operation: operationLabel(requestContext.operationName ?? requestContext.request.operationName),
            outcome,
          };
          metrics.graphqlOperations.inc({ ...summary, operation: metricLabel(summary.operation, seenNames) });
          const request = (requestContext.contextValue as { [HTTP_REQUEST]?: FastifyRequest })[HTTP_REQUEST];
          if (request) request.graphql = summary;
        },
      };
    },
  };
}
