// The query cost: a GraphQL document whose answer could be larger than MAX_QUERY_COST is refused before it runs
// (HTTP 400, extensions.code BAD_REQUEST, the message names the cost and the maximum) by document-policy.ts, which
// applies it on every transport.
//
// Why graphql-query-complexity with type-graphql's field `complexity` option, not graphql-armor's cost limit:
// armor's cost is a flat sum over the document's fields (object/scalar weights and a depth factor); it never
// reads arguments, so `projects(limit: 100) { items { teacher { projects { ... } } } }` cost it a few dozen
// while the answer held millions of values. graphql-query-complexity hands each field its arguments and its
// children's cost, so a list costs `limit` times what one item costs, and lists nested in lists multiply.
// type-graphql writes a field's `complexity` option into the schema's field extensions, where the estimator reads it.
import type { DocumentNode, GraphQLSchema } from "graphql";
import {
  fieldExtensionsEstimator,
  getComplexity,
  simpleEstimator,
  type ComplexityEstimator,
} from "graphql-query-complexity";
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

/**
 * Field cost of every connection (first/last, Relay cursor connections) and of `nodes(ids)`: like a list, 1 + the
 * page size × the cost of its selection (edges, nodes, pageInfo, totalCount, as the document asks). The size is
 * `first` or `last` (both at once is refused before anything is read; counted as the larger), the default page
 * without either, at most the page maximum as for lists; `ids` counts its length.
 */
export const connectionCost: ComplexityEstimator = ({ args, childComplexity }) => {
  const sizes = [args.first, args.last, Array.isArray(args.ids) ? args.ids.length : undefined].filter(
    (size): size is number => typeof size === "number",
  );
  const requested = sizes.length > 0 ? Math.max(...sizes) : PAGE_DEFAULT_LIMIT;
  return 1 + Math.min(Math.max(requested, 0), PAGE_MAX_LIMIT) * childComplexity;
};

/** A field that takes `limit`, or `first`/`last`, but declares no cost (a list added later) still counts as a list. */
const limitArgumentEstimator: ComplexityEstimator = (options) =>
  options.field.args.some((arg) => arg.name === "limit")
    ? listCost(options)
    : options.field.args.some((arg) => arg.name === "first" || arg.name === "last")
      ? connectionCost(options)
      : undefined;

const ESTIMATORS: ComplexityEstimator[] = [
  fieldExtensionsEstimator(),
  limitArgumentEstimator,
  simpleEstimator({ defaultComplexity: 1 }),
];

/** The cost of the operation of a document that passed validation; throws past `maxQueryNodes` nodes visited. */
export function queryCost(
  schema: GraphQLSchema,
  document: DocumentNode,
  variables?: Record<string, unknown>,
  operationName?: string | null,
  maxQueryNodes = 10_000,
): number {
  return getComplexity({
    schema,
    query: document,
    variables,
    operationName: operationName ?? undefined,
    estimators: ESTIMATORS,
    maxQueryNodes,
  });
}
