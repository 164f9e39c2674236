// A real supergraph: the service's subgraph SDL (what `_service { sdl }` answers) composed by Apollo's composition
// library with a second subgraph this test defines (grades: it adds Project.grade, and lists projects and students
// of its own by key), served by Apollo's gateway over HTTP with a static supergraph; the gateway forwards the
// caller's role headers to both subgraphs, as a router must. Queries across both subgraphs answer right, each page
// costs one `_entities` call, and the service reads a batch of 100 entities in one database query per type.
import { composeServices } from "@apollo/composition";
import { ApolloGateway, RemoteGraphQLDataSource } from "@apollo/gateway";
import { ApolloServer } from "@apollo/server";
import { ApolloServerPluginInlineTraceDisabled } from "@apollo/server/plugin/disabled";
import { startStandaloneServer } from "@apollo/server/standalone";
import { buildSubgraphSchema } from "@apollo/subgraph";
import { parse } from "graphql";
import type { Headers } from "../helpers/app";
import {
  ADMIN,
  idOf,
  insertProjects,
  insertStudents,
  insertTeachers,
  range,
  startSubgraph,
  STUDENT,
  type Subgraph,
} from "./support";

/**
 * The second subgraph: grades of projects, kept by project number; an honour roll of students, by number. It leaves
 * the descriptions of Project and Student to the service that owns them (two descriptions would be a hint).
 */
const GRADES_SDL = `
  extend schema @link(url: "https://specs.apollo.dev/federation/v2.4", import: ["@key"])

  type Query {
    "The projects graded so far, best first"
    gradedProjects: [Project!]!
    "The students on the honour roll"
    honourRoll: [Student]!
  }

  type Project @key(fields: "project_id") {
    project_id: Int!
    "The project's grade, A to F"
    grade: String!
  }

  type Student @key(fields: "student_id", resolvable: false) {
    student_id: SafeInt!
  }

  scalar SafeInt
`;

const gradeOf = (projectId: number) => "ABCDF"[projectId % 5];

/** The headers a router forwards to every subgraph: who the caller is. */
const FORWARDED = ["authorization", "x-user-role", "x-user-id"];

/** What the gateway keeps of each request: its headers, to forward. */
interface GatewayContext {
  headers: Headers;
}

interface Fetch {
  subgraph: string;
  query: string;
  representations: number;
}

describe("the service in a supergraph, behind Apollo's gateway", () => {
  let service: Subgraph;
  let grades: { server: ApolloServer; url: string; gradedProjects: number[]; honourRoll: number[] };
  let gateway: { server: ApolloServer<GatewayContext>; url: string };
  const fetches: Fetch[] = [];
  let hints: string[];

  beforeAll(async () => {
    service = await startSubgraph();
    await insertTeachers(service.db, range(1, 3));
    await insertProjects(
      service.db,
      range(1, 150).map((project_id) => ({ project_id, teacher_id: (project_id % 3) + 1 })),
    );
    await insertStudents(
      service.db,
      range(1, 3).map((student_id) => ({ student_id, class_code: "F1" })),
    );

    const gradesServer = new ApolloServer({
      plugins: [ApolloServerPluginInlineTraceDisabled()],
      schema: buildSubgraphSchema({
        typeDefs: parse(GRADES_SDL),
        resolvers: {
          Query: {
            gradedProjects: () => grades.gradedProjects.map((project_id) => ({ project_id })),
            honourRoll: () => grades.honourRoll.map((student_id) => ({ student_id })),
          },
          Project: {
            __resolveReference: ({ project_id }: { project_id: number }) => ({ project_id }),
            grade: ({ project_id }: { project_id: number }) => gradeOf(project_id),
          },
        },
      }),
    });
    const started = await startStandaloneServer(gradesServer, { listen: { port: 0, host: "127.0.0.1" } });
    grades = { server: gradesServer, url: started.url, gradedProjects: [], honourRoll: [] };

    const sdl = await service.post<{ _service: { sdl: string } }>({ query: "{ _service { sdl } }" });
    const composed = composeServices([
      { name: "projects", typeDefs: parse(sdl.body.data!._service.sdl), url: `${service.url}/graphql` },
      { name: "grades", typeDefs: parse(GRADES_SDL), url: grades.url },
    ]);
    if (composed.errors) throw new Error(composed.errors.map((e) => e.message).join("\n"));
    hints = composed.hints.map((hint) => `${hint.definition.code}: ${hint.message}`);

    const gatewayServer = new ApolloServer<GatewayContext>({
      gateway: new ApolloGateway({
        supergraphSdl: composed.supergraphSdl,
        buildService: ({ name, url }) =>
          new RemoteGraphQLDataSource<GatewayContext>({
            url,
            willSendRequest({ request, context }) {
              for (const header of FORWARDED) {
                const value = context.headers?.[header];
                if (value) request.http!.headers.set(header, value);
              }
              const representations = request.variables?.representations;
              fetches.push({
                subgraph: name,
                query: request.query ?? "",
                representations: Array.isArray(representations) ? representations.length : 0,
              });
            },
          }),
      }),
    });
    const gatewayStarted = await startStandaloneServer(gatewayServer, {
      listen: { port: 0, host: "127.0.0.1" },
      context: async ({ req }) => ({ headers: req.headers as Headers }),
    });
    gateway = { server: gatewayServer, url: gatewayStarted.url };
  });

  afterAll(async () => {
    await gateway?.server.stop();
    await grades?.server.stop();
    await service?.close();
  });

  beforeEach(() => {
    fetches.length = 0;
  });

  async function viaGateway<Data>(query: string, headers: Headers, variables?: Record<string, unknown>) {
    const response = await fetch(gateway.url, {
      method: "POST",
      headers: { "content-type": "application/json", ...headers },
      body: JSON.stringify({ query, variables }),
    });
    return {
      status: response.status,
      body: (await response.json()) as { data?: Data; errors?: { message: string; extensions?: { code?: string } }[] },
    };
  }

  const entityFetches = (subgraph: string) =>
    fetches.filter((f) => f.subgraph === subgraph && f.query.includes("_entities"));

  it("when the service's SDL is composed with a subgraph that extends Project, then composition succeeds with no hint", () => {
    expect(hints).toEqual([]);
  });

  it("when a page of projects asks for the other subgraph's grade, then every project has its grade, fetched in one _entities call", async () => {
    const res = await viaGateway<{
      projectsConnection: { nodes: { project_id: number; project_name: string; grade: string }[] };
    }>(`{ projectsConnection(first: 100) { nodes { project_id project_name grade } } }`, ADMIN);

    expect(res.status).toBe(200);
    expect(res.body.errors).toBeUndefined();
    expect(res.body.data!.projectsConnection.nodes).toEqual(
      range(1, 100).map((n) => ({ project_id: n, project_name: `Project ${n}`, grade: gradeOf(n) })),
    );
    expect(entityFetches("grades").map((f) => f.representations)).toEqual([100]);
    expect(fetches.filter((f) => f.subgraph === "projects")).toHaveLength(1);
  });

  it("when the next page is asked for by cursor, then it too costs one _entities call", async () => {
    const first = await viaGateway<{ projectsConnection: { pageInfo: { endCursor: string } } }>(
      `{ projectsConnection(first: 100) { pageInfo { endCursor } } }`,
      ADMIN,
    );
    fetches.length = 0;
    const res = await viaGateway<{ projectsConnection: { nodes: { project_id: number; grade: string }[] } }>(
      `query Next($after: String) { projectsConnection(first: 100, after: $after) { nodes { project_id grade } } }`,
      ADMIN,
      { after: first.body.data!.projectsConnection.pageInfo.endCursor },
    );

    expect(res.body.errors).toBeUndefined();
    expect(res.body.data!.projectsConnection.nodes).toEqual(
      range(101, 150).map((n) => ({ project_id: n, grade: gradeOf(n) })),
    );
    expect(entityFetches("grades").map((f) => f.representations)).toEqual([50]);
  });

  it("when the other subgraph lists 100 projects and the query asks for this service's fields, then the service gets one _entities call and reads each type once", async () => {
    grades.gradedProjects = range(1, 100).reverse();

    const { result: res, commands } = await service.commandsOf(() =>
      viaGateway<{
        gradedProjects: { id: string; project_name: string; grade: string; teacher: { teacher_name: string } }[];
      }>(`{ gradedProjects { id project_name grade teacher { teacher_name } } }`, ADMIN),
    );

    expect(res.body.errors).toBeUndefined();
    expect(res.body.data!.gradedProjects).toEqual(
      grades.gradedProjects.map((n) => ({
        id: idOf("Project", n),
        project_name: `Project ${n}`,
        grade: gradeOf(n),
        teacher: { teacher_name: `Teacher ${(n % 3) + 1}` },
      })),
    );
    expect(entityFetches("projects").map((f) => f.representations)).toEqual([100]);
    expect(commands).toEqual(["find projects", "find teachers"]);
  });

  it("when the other subgraph references students, then an admin reads them and a student gets null for each, as node(id) answers", async () => {
    grades.honourRoll = [2, 3];
    const query = `{ honourRoll { student_id student_name } }`;

    const admin = await viaGateway<{ honourRoll: ({ student_id: number; student_name: string } | null)[] }>(
      query,
      ADMIN,
    );
    const student = await viaGateway<{ honourRoll: unknown[] }>(query, STUDENT);

    expect(admin.body.errors).toBeUndefined();
    expect(admin.body.data!.honourRoll).toEqual([
      { student_id: 2, student_name: "Student 2" },
      { student_id: 3, student_name: "Student 3" },
    ]);
    expect(student.body.data!.honourRoll).toEqual([null, null]);
  });

  it("when the caller sends no role, then the gateway forwards none and the service refuses the query, as without a gateway", async () => {
    const res = await viaGateway<{ projectsConnection: unknown }>(
      `{ projectsConnection(first: 1) { totalCount } }`,
      {},
    );

    expect(res.body.data?.projectsConnection ?? null).toBeNull();
    expect(res.body.errors?.[0].extensions?.code).toBe("UNAUTHORIZED");
  });
});
