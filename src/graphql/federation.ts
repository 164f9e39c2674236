// The schema as an Apollo Federation 2 subgraph (FEDERATION=true), the way type-graphql's examples/apollo-federation-2
// builds one: the schema type-graphql built is printed, the printed SDL gets the federation @link and an @key per key
// of each entity, and @apollo/subgraph's buildSubgraphSchema makes the subgraph of it (`_service { sdl }`,
// `_entities`, `_Entity`) with the built schema's resolvers, scalars and enums (type-graphql's createResolversMap).
//
// What a printed SDL loses is carried over here: each field's extensions (the query cost reads `complexity` there)
// and descriptions of what @apollo/subgraph adds (every type, field and argument of the schema has one). The
// entities are Project, Teacher and Student, keyed by their global id (`id`, as node(id) takes it) and by their
// number (`project_id`, `teacher_id`, `student_id`); a representation resolves through loadNode, so `_entities`
// answers exactly what node(id) answers, through the same per-request loaders (one query per type per batch).
//
// Authorization fails closed here too: the root fields @apollo/subgraph adds are given their rule below
// (`_service` is public: routers read it without user credentials; `_entities` is for any authenticated caller,
// each entity then readable as node(id) decides), and a subgraph schema with any other root field that the role
// table does not name is refused.
import {
  graphqlSync,
  isObjectType,
  Kind,
  parse,
  printSchema,
  visit,
  type ConstDirectiveNode,
  type DocumentNode,
  type GraphQLFieldResolver,
  type GraphQLSchema,
} from "graphql";
import type { ComplexityEstimator } from "graphql-query-complexity";
import { createResolversMap } from "type-graphql";
import { authorizeBy, ruleFor, type AccessRule } from "../auth/access-policy";
import { badRequest, ErrorCode, FieldErrorReason } from "../shared/errors";
import type { Context } from "./context";
import { globalIdOf, loadNode, NODE_TYPES, parseGlobalId, type NodeTypeName } from "./node";

/**
 * The Federation specification the subgraph links: 2.4, the first whose composition and routers (Apollo Router's
 * subscription support) accept a subgraph with a Subscription type; any router or composer of Federation 2.4 or later
 * reads it.
 */
export const FEDERATION_SPEC_URL = "https://specs.apollo.dev/federation/v2.4";

/** Each entity's keys: its global id, then its number (the record's key, NODE_TYPES). */
export const ENTITY_KEYS: Readonly<Record<NodeTypeName, readonly [string, string]>> = {
  Project: ["id", NODE_TYPES.Project.key],
  Teacher: ["id", NODE_TYPES.Teacher.key],
  Student: ["id", NODE_TYPES.Student.key],
};

/** What a router sends of an entity: its type and the fields of one of its keys. */
type Representation = { __typename: string } & Record<string, unknown>;

/** The root fields @apollo/subgraph adds, with their rule; "public": anyone, authenticated or not. */
const FEDERATION_FIELD_RULES: Readonly<Record<string, AccessRule | "public">> = {
  _service: "public",
  _entities: { roles: "any", wrongRole: ErrorCode.FORBIDDEN },
};

/**
 * Field cost of `_entities` (query-cost.ts): 1 + the number of representations × the cost of one entity's selection
 * (at least 1), so a batch counts what it reads, like `nodes(ids)`.
 */
export const entitiesCost: ComplexityEstimator = ({ args, childComplexity }) =>
  1 + (Array.isArray(args.representations) ? args.representations.length : 0) * Math.max(childComplexity, 1);

/** Descriptions of what @apollo/subgraph adds to the schema (it describes only `_Service.sdl`). */
const FEDERATION_DESCRIPTIONS: Readonly<Record<string, string>> = {
  "Query._service": "This service as a subgraph of a federated supergraph: what routers and composers read",
  "Query._entities":
    "The entities these representations name (routers ask for them), in order; null for each that node(id) would answer null",
  "Query._entities(representations)":
    'Representations of entities, each its __typename and one of its keys: { __typename: "Project", id } or { __typename: "Project", project_id }',
  _Service: "This service as a federation subgraph",
  "_Service.sdl": "The subgraph's SDL, with its federation directives (@link, @key), as composition reads it",
  _Entity: "Every type other subgraphs may reference by key: Project, Teacher and Student",
  _Any: "A representation of an entity: an object with its __typename and the fields of one of its keys",
  federation__FieldSet: "A selection of fields, as @key names them",
  link__Import: "An element of a linked specification that this schema imports",
  link__Purpose: "Why a schema links a specification",
};

/** The subgraph's executable schema and the SDL its `_service { sdl }` answers. */
export interface Subgraph {
  schema: GraphQLSchema;
  sdl: string;
}

/** The subgraph of a schema built by type-graphql (buildAppSchema), with the entities' reference resolvers. */
export function buildSubgraph(schema: GraphQLSchema): Subgraph {
  // Required here, on first use: a service without FEDERATION never runs Apollo's federation libraries (~0.7 MB).
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- lazy on purpose
  const { buildSubgraphSchema } = require("@apollo/subgraph") as typeof import("@apollo/subgraph");
  const typeDefs = withFederationDirectives(parse(printSchema(schema)));
  const resolvers = createResolversMap(schema) as Record<string, Record<string, unknown>>;
  for (const typeName of Object.keys(ENTITY_KEYS) as NodeTypeName[]) {
    resolvers[typeName] = {
      ...resolvers[typeName],
      __resolveReference: (reference: Representation, context: Context) => resolveEntity(context, typeName, reference),
    };
  }
  // @apollo/subgraph's resolver map type is graphql-tools' shape; createResolversMap's is type-graphql's, the same.
  const subgraph = buildSubgraphSchema({ typeDefs, resolvers: resolvers as never });
  carryFieldExtensions(schema, subgraph);
  describeFederation(subgraph);
  guardEntities(subgraph);
  assertFederationFieldRules(subgraph);
  const sdl = serviceSdlOf(subgraph);
  return { schema: subgraph, sdl };
}

/** The printed schema with `extend schema @link(...)` and each entity's @keys. */
function withFederationDirectives(document: DocumentNode): DocumentNode {
  const keyed = visit(document, {
    ObjectTypeDefinition(node) {
      const keys = ENTITY_KEYS[node.name.value as NodeTypeName];
      if (!keys) return undefined;
      return { ...node, directives: [...(node.directives ?? []), ...keys.map(keyDirective)] };
    },
  });
  const link = parse(`extend schema @link(url: "${FEDERATION_SPEC_URL}", import: ["@key"])`);
  return { ...keyed, definitions: [...link.definitions, ...keyed.definitions] };
}

function keyDirective(fields: string): ConstDirectiveNode {
  return {
    kind: Kind.DIRECTIVE,
    name: { kind: Kind.NAME, value: "key" },
    arguments: [
      {
        kind: Kind.ARGUMENT,
        name: { kind: Kind.NAME, value: "fields" },
        value: { kind: Kind.STRING, value: fields },
      },
    ],
  };
}

/**
 * The entity a representation names, as node(id) answers it (loadNode: the caller's read rule of the type, the
 * request's loaders): by its global id when the representation has one, else by its number; null for a global id of
 * another type, a malformed key, or an unknown record.
 */
export function resolveEntity(
  context: Context,
  typeName: NodeTypeName,
  representation: Representation,
): Promise<object | null> | null {
  const { id } = representation;
  const number = representation[ENTITY_KEYS[typeName][1]];
  if (id !== undefined) {
    return typeof id === "string" && parseGlobalId(id)?.type === typeName ? loadNode(context, id) : null;
  }
  return typeof number === "number" && Number.isSafeInteger(number) && number >= 1
    ? loadNode(context, globalIdOf(typeName, number))
    : null;
}

/** Field extensions (the query cost's `complexity`) of the built schema, which printing the SDL leaves behind. */
function carryFieldExtensions(from: GraphQLSchema, to: GraphQLSchema): void {
  for (const [name, type] of Object.entries(from.getTypeMap())) {
    const target = to.getType(name);
    if (!isObjectType(type) || !isObjectType(target)) continue;
    const fields = target.getFields();
    for (const [fieldName, field] of Object.entries(type.getFields())) {
      if (fields[fieldName] && Object.keys(field.extensions).length > 0) {
        fields[fieldName].extensions = { ...fields[fieldName].extensions, ...field.extensions };
      }
    }
  }
  const entities = to.getQueryType()?.getFields()._entities;
  if (entities) entities.extensions = { ...entities.extensions, complexity: entitiesCost };
}

/** FEDERATION_DESCRIPTIONS onto the built subgraph ("Type", "Type.field", "Type.field(argument)"). */
function describeFederation(schema: GraphQLSchema): void {
  for (const [where, description] of Object.entries(FEDERATION_DESCRIPTIONS)) {
    const [typeName, member] = where.split(".");
    const type = schema.getType(typeName);
    if (!type) continue;
    if (member === undefined) {
      type.description ??= description;
      continue;
    }
    if (!isObjectType(type)) continue;
    const argument = /^(\w+)\((\w+)\)$/.exec(member);
    const field = type.getFields()[argument ? argument[1] : member];
    if (!field) continue;
    if (argument) {
      const arg = field.args.find((a) => a.name === argument[2]);
      if (arg) arg.description ??= description;
    } else {
      field.description ??= description;
    }
  }
}

/**
 * `_entities` is for authenticated callers (FEDERATION_FIELD_RULES), and takes representations of this subgraph's
 * entities only (anything else is BAD_REQUEST naming `representations`, where @apollo/subgraph would fail as if the
 * service had); each entity then as node(id) decides.
 */
function guardEntities(schema: GraphQLSchema): void {
  const field = schema.getQueryType()?.getFields()._entities;
  if (!field?.resolve) return;
  const resolve: GraphQLFieldResolver<unknown, Context> = field.resolve;
  const rule = FEDERATION_FIELD_RULES._entities as AccessRule;
  field.resolve = (source, args: { representations?: unknown }, context: Context, info) => {
    authorizeBy(rule, context.caller, "_entities");
    const representations = Array.isArray(args.representations) ? args.representations : [];
    const stranger = representations.findIndex(
      (r) => !r || typeof r !== "object" || !Object.hasOwn(ENTITY_KEYS, (r as Representation).__typename),
    );
    if (stranger >= 0) {
      throw badRequest(
        `representations[${stranger}] names no entity of this service: its __typename must be one of ${Object.keys(ENTITY_KEYS).join(", ")}`,
        "representations",
        FieldErrorReason.INVALID_FORMAT,
      );
    }
    return resolve(source, args, context, info);
  };
}

/** Throws unless every root field of the subgraph is in the role table or is one of federation's own fields. */
function assertFederationFieldRules(schema: GraphQLSchema): void {
  const unnamed: string[] = [];
  for (const type of [schema.getQueryType(), schema.getMutationType(), schema.getSubscriptionType()]) {
    if (!type) continue;
    for (const fieldName of Object.keys(type.getFields())) {
      const federation = type === schema.getQueryType() && fieldName in FEDERATION_FIELD_RULES;
      if (!federation && !ruleFor(type.name, fieldName)) unnamed.push(`${type.name}.${fieldName}`);
    }
  }
  if (unnamed.length > 0) {
    throw new Error(
      `Authorization fails closed, so the federation subgraph schema is refused: ${unnamed.join(", ")} ` +
        `not named in the role table (src/auth/access-policy.ts) nor among federation's fields (src/graphql/federation.ts)`,
    );
  }
}

/** What `_service { sdl }` answers: asked of the subgraph itself, as a router asks it. */
function serviceSdlOf(schema: GraphQLSchema): string {
  const result = graphqlSync({ schema, source: "{ _service { sdl } }" });
  const sdl = (result.data as { _service?: { sdl?: unknown } } | null | undefined)?._service?.sdl;
  if (typeof sdl !== "string") throw new Error("@apollo/subgraph built no _service { sdl }");
  return sdl;
}
