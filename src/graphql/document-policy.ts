// Which GraphQL documents may run: the one place that decides it for every transport, so none can bypass it.
// Apollo (HTTP, graphql/apollo.ts) takes the parse options, the validation rules and the plugins below; the WebSocket
// path (src/live/graphql-ws.ts) runs prepareOperation(), which applies the same parse limit, the same rules and the
// same admitOperation(). The checks:
//
// - the token limit: graphql-js's own parser limit (a document over MAX_TOKENS is a parse error). Armor's token
//   limit is off: on Apollo it turned every syntax error into a 500 (graphql-armor#751);
// - graphql-armor's depth (8), alias (15) and directive limits, as validation rules beside GraphQL's own;
// - the cost limit (query-cost.ts: every list counts as its limit times its items' cost), in admitOperation();
// - in production, field suggestions ("Did you mean …") are hidden from error messages.
//
// admitOperation() is the one function that decides whether a parsed, valid operation may run; a later "trusted
// documents only" mode belongs there (it gets the document's source text too).
import type { ApolloServerPlugin } from "@apollo/server";
import { ApolloArmor } from "@escape.tech/graphql-armor";
import {
  getOperationAST,
  GraphQLError,
  parse,
  specifiedRules,
  validate,
  type DocumentNode,
  type GraphQLSchema,
  type OperationDefinitionNode,
  type ParseOptions,
  type ValidationRule,
} from "graphql";
import { ErrorCode, FieldErrorReason } from "../shared/errors";
import { MAX_QUERY_COST, queryCost } from "./query-cost";

/** Tokens one GraphQL document may hold; the largest query in the README has about 100. */
export const MAX_TOKENS = 2000;

/** Nodes the cost walk may visit (fragments spread many times count every time). */
const MAX_QUERY_NODES = 10_000;

const SUGGESTION = /Did you mean ".+"\?/g;
const SUGGESTION_MASK = "[Suggestion hidden]";

/** An operation that parsed and passed validation, as admitOperation() judges it. */
export interface OperationToAdmit {
  schema: GraphQLSchema;
  document: DocumentNode;
  /** The document's text as the client sent it. */
  source?: string;
  variables?: Record<string, unknown>;
  operationName?: string | null;
}

/** A document refused by the policy: HTTP 400 on Apollo, BAD_REQUEST, with the reason. */
function refused(message: string, reason: FieldErrorReason): GraphQLError {
  return new GraphQLError(message, { extensions: { code: ErrorCode.BAD_REQUEST, reason, http: { status: 400 } } });
}

/** Throws a BAD_REQUEST GraphQLError unless the operation may run. */
export function admitOperation({ schema, document, variables, operationName }: OperationToAdmit): void {
  let cost: number;
  try {
    cost = queryCost(schema, document, variables, operationName, MAX_QUERY_NODES);
  } catch (err) {
    if (err instanceof GraphQLError && /number of nodes/.test(err.message)) {
      throw refused(
        `Query is too large to run: it has more than ${MAX_QUERY_NODES} fields once fragments are spread`,
        FieldErrorReason.TOO_COMPLEX,
      );
    }
    // Variables of the wrong type: execution reports them as GraphQL does, and runs nothing.
    return;
  }
  if (cost > MAX_QUERY_COST) {
    throw refused(
      `Query cost ${cost} exceeds the maximum of ${MAX_QUERY_COST}: every list counts as its limit times the cost of ` +
        `its fields; ask for smaller pages or fewer nested lists`,
      FieldErrorReason.TOO_COMPLEX,
    );
  }
}

export interface DocumentPolicy {
  parseOptions: ParseOptions;
  /** Run after GraphQL's own rules. */
  validationRules: ValidationRule[];
  /** Apollo plugins: armor's message masking (production) and admitOperation() once an operation is resolved. */
  apolloPlugins<TContext extends object>(): ApolloServerPlugin<TContext>[];
  /** An error message as clients may see it (production hides field suggestions). */
  message(text: string): string;
}

export function createDocumentPolicy(options: { production: boolean }): DocumentPolicy {
  const armor = new ApolloArmor({
    maxDepth: { n: 8 },
    // Armor's cost limit ignores list sizes; query-cost.ts counts them (limit × item cost) and replaces it.
    costLimit: { enabled: false },
    maxAliases: { n: 15 },
    maxTokens: { enabled: false },
    // Suggestions help people exploring in GraphiQL; hide the schema's shape from guessers in production.
    blockFieldSuggestion: { enabled: options.production, mask: SUGGESTION_MASK },
  });
  const protection = armor.protect();
  return {
    parseOptions: { maxTokens: MAX_TOKENS },
    validationRules: protection.validationRules,
    apolloPlugins<TContext extends object>() {
      const admission: ApolloServerPlugin<TContext> = {
        async requestDidStart() {
          return {
            async didResolveOperation({ schema, document, request, operationName, source }) {
              admitOperation({ schema, document, source, variables: request.variables, operationName });
            },
          };
        },
      };
      return [...(protection.plugins as ApolloServerPlugin<TContext>[]), admission];
    },
    message: (text) => (options.production ? text.replace(SUGGESTION, SUGGESTION_MASK).trim() : text),
  };
}

/** What a WebSocket subscribe message carries (graphql-ws's SubscribePayload). */
export interface OperationRequest {
  query: string;
  variables?: Record<string, unknown> | null;
  operationName?: string | null;
}

/**
 * For transports without Apollo: parses (token limit), validates (GraphQL's rules and the policy's) and admits a
 * request, returning the document and its operation, or the errors to answer with (nothing ran).
 */
export function prepareOperation(
  policy: DocumentPolicy,
  schema: GraphQLSchema,
  request: OperationRequest,
): { document: DocumentNode; operation: OperationDefinitionNode } | { errors: readonly GraphQLError[] } {
  let document: DocumentNode;
  try {
    document = parse(request.query, policy.parseOptions);
  } catch (err) {
    if (err instanceof GraphQLError) return { errors: [err] };
    throw err;
  }
  const errors = validate(schema, document, [...specifiedRules, ...policy.validationRules]);
  if (errors.length > 0) return { errors };
  const operation = getOperationAST(document, request.operationName);
  if (!operation) {
    return {
      errors: [
        refused("Unable to identify the operation: name it with operationName", FieldErrorReason.MALFORMED_REQUEST),
      ],
    };
  }
  try {
    admitOperation({
      schema,
      document,
      source: request.query,
      variables: request.variables ?? undefined,
      operationName: request.operationName,
    });
  } catch (err) {
    if (err instanceof GraphQLError) return { errors: [err] };
    throw err;
  }
  return { document, operation };
}
