// The query cost limit: a GraphQL document whose answer could be larger than MAX_QUERY_COST is refused before it
// runs (HTTP 400, extensions.code BAD_REQUEST, the message names the cost and the maximum).
//
// Why graphql-query-complexity with type-graphql's field `complexity` option, not graphql-armor's cost limit:
// armor's cost is a flat sum over the document's fields (object/scalar weights and a depth factor); it never
// reads arguments, so `projects(limit: 100) { items { teacher { projects { ... } } } }` cost it a few dozen
// while the answer held millions of values. graphql-query-complexity hands each field its arguments and its
// children's cost, so a list costs `limit` times what one item costs, and lists nested in lists multiply.
// type-graphql writes a field's `complexity` option into the schema's field extensions, where the estimator reads it.
import type { ApolloServerPlugin } from "@apollo/server";
import { GraphQLError, type DocumentNode, type GraphQLSchema } from "graphql";
import {
  fieldExtensionsEstimator,
  getComplexity,
  simpleEstimator,
  type ComplexityEstimator,
} from "graphql-query-complexity";
import { ErrorCode } from "../shared/errors";
import { PAGE_DEFAULT_LIMIT, PAGE_MAX_LIMIT } from "../shared/pagination";

/**
 * The most a document may cost. Every field costs 1, a list costs 1 + limit × (cost of one item's fields).
 * A page of 100 projects with every field and their teacher costs 1,901; a page of 20 teachers with 20 projects
 * each (every field) 4,561; one list of 100 inside another list of 100 does not fit (over 10,100).
 */
export const MAX_QUERY_COST = 10_000;

/**
 * Field cost (type-graphql `complexity` option) of every list that takes `limit`: 1 + limit × its children's
 * cost. A limit over the page maximum counts as the maximum: such a page is refused (BAD_REQUEST, with the
 * pagination message) before any item is fetched, so the maximum bounds what can really be built.
 */
export const listCost: ComplexityEstimator = ({ args, childComplexity }) => {
  const requested = typeof args.limit === "number" ? args.limit : PAGE_DEFAULT_LIMIT;
  const limit = Math.min(Math.max(requested, 1), PAGE_MAX_LIMIT);
  return 1 + limit * childComplexity;
};

/** A field that takes `limit` but declares no cost (a list added later) still counts as a list. */
const limitArgumentEstimator: ComplexityEstimator = (options) =>
  options.field.args.some((arg) => arg.name === "limit") ? listCost(options) : undefined;

const ESTIMATORS: ComplexityEstimator[] = [
  fieldExtensionsEstimator(),
  limitArgumentEstimator,
  simpleEstimator({ defaultComplexity: 1 }),
];

/** Nodes the cost walk may visit (fragments spread many times count every time). */
const MAX_QUERY_NODES = 10_000;

/** The cost of the operation of a document that passed validation. */
export function queryCost(
  schema: GraphQLSchema,
  document: DocumentNode,
  variables?: Record<string, unknown>,
  operationName?: string | null,
): number {
  return getComplexity({
    schema,
    query: document,
    variables,
    operationName: operationName ?? undefined,
    estimators: ESTIMATORS,
    maxQueryNodes: MAX_QUERY_NODES,
  });
}

function refused(message: string): GraphQLError {
  return new GraphQLError(message, { extensions: { code: ErrorCode.BAD_REQUEST, http: { status: 400 } } });
}

/** Apollo plugin: costs each operation once it is parsed and validated, before anything executes. */
export function queryCostPlugin<TContext extends object>(maxCost = MAX_QUERY_COST): ApolloServerPlugin<TContext> {
  return {
    async requestDidStart() {
      return {
        async didResolveOperation({ schema, document, request, operationName }) {
          let cost: number;
          try {
            cost = queryCost(schema, document, request.variables, operationName);
          } catch (err) {
            if (err instanceof GraphQLError && /number of nodes/.test(err.message)) {
              throw refused(
                `Query is too large to run: it has more than ${MAX_QUERY_NODES} fields once fragments are spread`,
              );
            }
            // Variables of the wrong type: execution reports them as GraphQL does, and runs nothing.
            return;
          }
          if (cost > maxCost) {
            throw refused(
              `Query cost ${cost} exceeds the maximum of ${maxCost}: every list counts as its limit times the cost of ` +
                `its fields; ask for smaller pages or fewer nested lists`,
            );
          }
        },
      };
    },
  };
}
