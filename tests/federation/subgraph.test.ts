// The subgraph schema (FEDERATION=true) is the service's schema with federation's additions, nothing lost: its SDL is
// the committed schema/subgraph.graphql (npm run schema writes it), the query cost reads the same field costs, every
// root field has an access rule (fail closed), and FEDERATION is read like every other variable.
import fs from "node:fs";
import { buildSchema, GraphQLObjectType, parse, printType, type GraphQLSchema } from "graphql";
import { parseStatusWorkflow } from "../../src/components/projects";
import { loadConfig } from "../../src/config";
import { buildSubgraph } from "../../src/graphql/federation";
import { queryCost } from "../../src/graphql/query-cost";
import { getSchema, getSubgraph, printSubgraphSdl, SUBGRAPH_FILE } from "../../src/graphql/schema";
import { ConfigError } from "../../src/shared/environment";
import { idOf } from "./support";

describe("the subgraph schema", () => {
  it("when the subgraph is built from the resolvers, then its SDL equals the committed schema/subgraph.graphql", () => {
    // On failure: run `npm run schema` and commit the file, so the change of the supergraph shows in review.
    expect(printSubgraphSdl()).toBe(fs.readFileSync(SUBGRAPH_FILE, "utf8"));
  });

  it("when the SDL is read, then it links Federation 2 and keys each entity by its global id and its number", () => {
    const sdl = printSubgraphSdl();

    expect(sdl).toMatch(/@link\(url: "https:\/\/specs\.apollo\.dev\/federation\/v2\.\d+", import: \["@key"\]\)/);
    for (const [type, key] of [
      ["Project", "project_id"],
      ["Teacher", "teacher_id"],
      ["Student", "student_id"],
    ]) {
      expect(sdl).toMatch(
        new RegExp(`type ${type} implements Node\\s+@key\\(fields: "id"\\)\\s+@key\\(fields: "${key}"\\)`),
      );
    }
    expect(sdl).toContain("union _Entity = Project | Student | Teacher");
  });

  it("when the subgraph's types are printed, then each of the service's types is printed as on the service's schema, and only federation's are added", () => {
    const service = getSchema();
    const subgraph = getSubgraph().schema;
    const named = (schema: GraphQLSchema) => Object.keys(schema.getTypeMap()).filter((n) => !n.startsWith("__"));

    expect(
      named(subgraph)
        .filter((n) => !named(service).includes(n))
        .sort(),
    ).toEqual(["_Any", "_Entity", "_Service", "federation__FieldSet", "link__Import", "link__Purpose"].sort());
    for (const name of named(service).filter((n) => n !== "Query")) {
      expect(printType(subgraph.getType(name)!)).toBe(printType(service.getType(name)!));
    }
    const { _entities, _service, ...queryFields } = subgraph.getQueryType()!.toConfig().fields;
    expect([_entities, _service]).toEqual([expect.anything(), expect.anything()]);
    const query = new GraphQLObjectType({ ...subgraph.getQueryType()!.toConfig(), fields: queryFields });
    expect(printType(query)).toBe(printType(service.getQueryType()!));
  });

  it("when a document is costed on the subgraph, then each list and connection costs what it costs on the service's schema", () => {
    const ids = Array.from({ length: 100 }, (_, i) => idOf("Project", i + 1));
    const documents = [
      parse(`{ nodes(ids: ${JSON.stringify(ids)}) { id ... on Project { project_name } } }`),
      parse(`{ teachers(limit: 50) { items { projects(limit: 20) { project_id } } } }`),
      parse(`{ projectsConnection(first: 100) { nodes { history(limit: 5) { items { revision } } } } }`),
    ];

    for (const document of documents) {
      expect(queryCost(getSubgraph().schema, document)).toBe(queryCost(getSchema(), document));
    }
    expect(queryCost(getSubgraph().schema, documents[0])).toBeGreaterThan(100);
  });

  it("when _entities is costed, then each representation counts its selection, so a batch counts what it reads", () => {
    const document = parse(
      `query ($representations: [_Any!]!) { _entities(representations: $representations) { ... on Project { id project_name } } }`,
    );
    const cost = (n: number) =>
      queryCost(getSubgraph().schema, document, {
        representations: Array.from({ length: n }, (_, i) => ({ __typename: "Project", project_id: i + 1 })),
      });

    expect(cost(100)).toBe(1 + 100 * 2);
    expect(cost(1)).toBe(1 + 2);
  });

  it("when a schema has a root field that the role table does not name, then no subgraph is built of it (fail closed)", () => {
    const schema = buildSchema(`
      "Roots" type Query { "Named" project(projectId: Int!): String  "Not named" secretReport: String }
    `);

    expect(() => buildSubgraph(schema)).toThrow(/Query\.secretReport/);
    expect(() => buildSubgraph(schema)).not.toThrow(/Query\.project\b/);
  });
});

describe("FEDERATION", () => {
  const load = (env: NodeJS.ProcessEnv) => loadConfig(env, { statusWorkflow: parseStatusWorkflow });
  const errorOf = (env: NodeJS.ProcessEnv) => {
    try {
      load(env);
    } catch (err) {
      if (err instanceof ConfigError) return err.message;
      throw err;
    }
    return undefined;
  };

  it("when it is unset, then the service is no subgraph; true or false (any case) set it", () => {
    expect(load({}).federation).toBe(false);
    expect(load({ FEDERATION: "TRUE" }).federation).toBe(true);
    expect(load({ FEDERATION: "false" }).federation).toBe(false);
  });

  it("when it is neither true nor false, then the start stops with one line naming it", () => {
    expect(errorOf({ FEDERATION: "yes" })).toBe('Invalid FEDERATION ("yes"): accepts true or false');
  });
});
