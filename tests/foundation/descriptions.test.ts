// Every type, field, argument, input field and enum value of the schema has a description, read the way clients
// read it: through introspection (what GraphiQL, Apollo Sandbox and codegen show). The root types, interfaces and
// scalars count as types; GraphQL's own (String, __Type …) are described by the specification.
import {
  buildSchema,
  getIntrospectionQuery,
  graphqlSync,
  type GraphQLSchema,
  type IntrospectionQuery,
  type IntrospectionType,
} from "graphql";
import { getSchema, getSubgraph } from "../../src/graphql/schema";

const BUILT_IN = new Set(["String", "Int", "Float", "Boolean", "ID"]);

/** "Type", "Type.field", "Type.field(arg)", "Input.field" and "Enum.VALUE" of everything that has no description. */
function undescribed(schema: GraphQLSchema): string[] {
  const result = graphqlSync({ schema, source: getIntrospectionQuery({ descriptions: true }) });
  if (result.errors) throw new Error(result.errors.map((e) => e.message).join("; "));
  const missing: string[] = [];
  const need = (description: string | null | undefined, what: string) => {
    if (!description?.trim()) missing.push(what);
  };
  for (const type of (result.data as unknown as IntrospectionQuery).__schema.types as IntrospectionType[]) {
    if (type.name.startsWith("__") || BUILT_IN.has(type.name)) continue;
    need(type.description, type.name);
    if (type.kind === "OBJECT" || type.kind === "INTERFACE") {
      for (const field of type.fields) {
        need(field.description, `${type.name}.${field.name}`);
        for (const arg of field.args) need(arg.description, `${type.name}.${field.name}(${arg.name})`);
      }
    }
    if (type.kind === "INPUT_OBJECT") {
      for (const field of type.inputFields) need(field.description, `${type.name}.${field.name}`);
    }
    if (type.kind === "ENUM") {
      for (const value of type.enumValues) need(value.description, `${type.name}.${value.name}`);
    }
  }
  return missing;
}

describe("descriptions, read through introspection", () => {
  it("when the service's schema is introspected, then every type, field, argument, input field and enum value has one", () => {
    expect(undescribed(getSchema())).toEqual([]);
  });

  it("when the schema served as a federation subgraph (FEDERATION=true) is introspected, then federation's additions have one too", () => {
    expect(undescribed(getSubgraph().schema)).toEqual([]);
  });

  it("when a schema leaves things undescribed, then each of them is listed (the check above can fail)", () => {
    const schema = buildSchema(`
      """Roots"""
      type Query { "Described" a(x: Int): Thing  b: String }
      interface Thing { id: ID! }
      scalar When
      enum Kind { "Described" ONE TWO }
      input Filter { "Described" kind: Kind  at: When }
      type Mutation { "Described" set("Described" filter: Filter): String }
    `);

    expect(undescribed(schema).sort()).toEqual(
      [
        "Query.a(x)",
        "Query.b",
        "Thing",
        "Thing.id",
        "When",
        "Kind",
        "Kind.TWO",
        "Filter",
        "Filter.at",
        "Mutation",
      ].sort(),
    );
  });
});
