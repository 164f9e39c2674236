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
import { getVariableValues, Kind, visit, type DocumentNode, type GraphQLSchema } from "graphql";
import {
  fieldExtensionsEstimator,
  getComplexity,
  simpleEstimator,
  type ComplexityEstimator,
} from "graphql-query-complexity";
import { whereSize } from "../shared/list-where";
import { PAGE_DEFAULT_LIMIT, PAGE_MAX_LIMIT } from "../shared/pagination";

/**
 * The most a document may cost. Every field costs 1, a list costs 1 + limit × (cost of one item's fields) + the size
 * of its where (its values and conditions: shared/list-where.ts's whereSize).
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
  return 1 + limit * childComplexity + whereSize(args.where);
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
  return 1 + Math.min(Math.max(requested, 0), PAGE_MAX_LIMIT) * childComplexity + whereSize(args.where);
};

/** Field cost of projectCounts: 1 + its selection (its groups count as one list of at most MAX_GROUPS) + its where's size. */
export const countsCost: ComplexityEstimator = ({ args, childComplexity }) =>
  1 + childComplexity + whereSize(args.where);

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

/**
 * The arguments the estimators read (listCost, connectionCost, federation's entitiesCost, limitArgumentEstimator),
 * and `if` of @skip/@include, which the walk applies: a cost depends on the variables given to these only. An
 * estimator reading another argument must add it here, or costs would be taken from another request's variables.
 */
export const COST_ARGUMENTS: ReadonlySet<string> = new Set([
  "limit",
  "first",
  "last",
  "ids",
  "representations",
  "if",
  "where",
]);

/** Costs already worked out, per schema and document (the parsed document is reused for the same text). */
const costs = new WeakMap<GraphQLSchema, WeakMap<DocumentNode, DocumentCosts>>();

interface DocumentCosts {
  /** The variables the cost depends on: those used in COST_ARGUMENTS. */
  variables: string[];
  /** Cost by operation name, node limit and the values of those variables. */
  byKey: Map<string, number>;
}

/** Costs kept per document (the values of its cost variables differ); the oldest go first. */
const COSTS_PER_DOCUMENT = 64;

/** Longer keys (large id lists or representations) are not kept. */
const MAX_KEY_LENGTH = 512;

/**
 * The cost of the operation of a document that passed validation; throws past `maxQueryNodes` nodes visited. A
 * cost once worked out for a document, an operation and the values of the variables it depends on is reused (the
 * walk was a fifteenth of a request by id); a throw is not kept.
 */
export function queryCost(
  schema: GraphQLSchema,
  document: DocumentNode,
  variables?: Record<string, unknown>,
  operationName?: string | null,
  maxQueryNodes = 10_000,
): number {
  let bySchema = costs.get(schema);
  if (!bySchema) costs.set(schema, (bySchema = new WeakMap()));
  let known = bySchema.get(document);
  if (!known) bySchema.set(document, (known = { variables: costVariablesOf(document), byKey: new Map() }));
  // [] for a variable not given (its default applies), [value] for one given (null included).
  const key = JSON.stringify([
    operationName ?? null,
    maxQueryNodes,
    known.variables.map((name) => (variables && Object.hasOwn(variables, name) ? [variables[name]] : [])),
  ]);
  const cached = known.byKey.get(key);
  if (cached !== undefined) {
    // Variables of the wrong type throw, as the walk throws them (the other variables did not count for the key).
    const operation = document.definitions.find(
      (d) => d.kind === Kind.OPERATION_DEFINITION && (operationName == null || d.name?.value === operationName),
    );
    if (operation?.kind === Kind.OPERATION_DEFINITION) {
      const { errors } = getVariableValues(schema, operation.variableDefinitions ?? [], variables ?? {});
      if (errors?.length) throw errors[0];
    }
    return cached;
  }
  const cost = walkCost(schema, document, variables, operationName, maxQueryNodes);
  if (key.length <= MAX_KEY_LENGTH) {
    if (known.byKey.size >= COSTS_PER_DOCUMENT) known.byKey.delete(known.byKey.keys().next().value!);
    known.byKey.set(key, cost);
  }
  return cost;
}

/** The names of the variables used, anywhere in their value, by arguments named in COST_ARGUMENTS. */
function costVariablesOf(document: DocumentNode): string[] {
  const names = new Set<string>();
  visit(document, {
    Argument(argument) {
      if (!COST_ARGUMENTS.has(argument.name.value)) return;
      visit(argument.value, {
        [Kind.VARIABLE](variable) {
          names.add(variable.name.value);
        },
      });
    },
  });
  return [...names].sort();
}

/** The cost as graphql-query-complexity's walk gives it. */
export function walkCost(
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
