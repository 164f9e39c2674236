// Typed values with the same JSON on the wire: start_date/end_date are LocalDate, created_at/updated_at and
// ProjectChange.at DateTime, ProjectChange.operation the enum ProjectOperation and actor_role the enum Role — and a
// client reads exactly the text it read when they were String: the dates as stored, the timestamps as
// Date.toISOString() writes the stored instant, the enums as the recorded names, and the same values as REST.
import type { GraphQLInputObjectType, GraphQLObjectType } from "graphql";
import { GraphQLDateTime } from "graphql-scalars";
import { DateTime } from "../../src/graphql/scalars";
import { getSchema } from "../../src/graphql/schema";
import { startTestApp, type GraphQLBody, type TestApp } from "../helpers/app";
import { insertProjects } from "../lists/support";
import { unique } from "../helpers/fixtures";

const ISO_UTC_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const HEADERS = { "x-user-role": "admin", "x-user-id": "typed-values" };

interface ProjectAnswer {
  project_id: number;
  start_date: string;
  end_date: string;
  created_at: string;
  updated_at: string;
  history: { items: { operation: string; actor_role: string; at: string }[] };
}

describe("typed values, same JSON", () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(async () => {
    await t.close();
  });

  const read = async (projectId: number) =>
    (
      await t.http<GraphQLBody<{ project: ProjectAnswer }>>("POST", "/graphql", {
        body: {
          query: `query($id: Int!) { project(projectId: $id) {
            project_id start_date end_date created_at updated_at
            history { items { operation actor_role at } }
          } }`,
          variables: { id: projectId },
        },
        headers: HEADERS,
      })
    ).body;

  it("when a project is read over GraphQL, then its dates and timestamps are the text REST answers and the database holds", async () => {
    const created = await t.http<{ data: Record<string, unknown> & { project_id: number } }>("POST", "/projects", {
      body: {
        project_name: unique("Typed"),
        project_desc: "d",
        company_id: 1,
        project_status: "planned",
        start_date: "2026-01-10",
        end_date: "2026-02-28",
      },
      headers: HEADERS,
    });
    const rest = created.body.data;
    await t.http("PUT", `/projects/${rest.project_id}/updateStatus`, {
      body: { project_status: "active" },
      headers: HEADERS,
    });
    const stored = await t.db.models.Project.findOne({ project_id: rest.project_id }).lean();
    const changes = await t.db.models.ProjectChange.find({ project_id: rest.project_id }).sort({ revision: -1 }).lean();

    const { data, errors } = await read(rest.project_id);

    expect(errors).toBeUndefined();
    expect(data!.project).toEqual({
      project_id: rest.project_id,
      start_date: "2026-01-10",
      end_date: "2026-02-28",
      created_at: rest.created_at,
      updated_at: stored!.updated_at.toISOString(),
      history: {
        items: [
          { operation: "updateProjectStatus", actor_role: "admin", at: changes[0].at.toISOString() },
          { operation: "createProject", actor_role: "admin", at: changes[1].at.toISOString() },
        ],
      },
    });
    expect(data!.project.created_at).toBe(stored!.created_at.toISOString());
    expect(data!.project.created_at).toMatch(ISO_UTC_MS);
  });

  it("when the schema is read, then those fields have the scalar and enum types, and inputs keep String dates", () => {
    const schema = getSchema();
    const project = schema.getType("Project") as GraphQLObjectType;
    const change = schema.getType("ProjectChange") as GraphQLObjectType;
    const input = schema.getType("CreateProjectInput") as GraphQLInputObjectType;
    const typeOf = (fields: Record<string, { type: unknown }>, name: string) => String(fields[name].type);

    expect(["start_date", "end_date", "created_at", "updated_at"].map((f) => typeOf(project.getFields(), f))).toEqual([
      "LocalDate!",
      "LocalDate!",
      "DateTime!",
      "DateTime!",
    ]);
    expect(["operation", "actor_role", "at"].map((f) => typeOf(change.getFields(), f))).toEqual([
      "ProjectOperation!",
      "Role!",
      "DateTime!",
    ]);
    // Inputs stay String: a LocalDate input would turn "2026-02-30" into a document error instead of a field error
    // listed with the others in the payload.
    expect(typeOf(input.getFields(), "start_date")).toBe("String!");
  });

  it("when DateTime serialises a stored timestamp, then it is that text (graphql-scalars' own would be a Date object)", () => {
    const stored = "2026-01-10T12:34:56.789Z";

    expect(DateTime.serialize(stored)).toBe(stored);
    expect(DateTime.serialize(new Date(stored))).toBe(stored);
    expect(DateTime.serialize("2026-01-10T13:34:56.789+01:00")).toBe(stored);
    expect(() => DateTime.serialize("yesterday")).toThrow(/DateTime cannot represent/);
    // Why this service defines it: graphql-scalars 1.x answers a Date, which only JSON.stringify turns into text.
    expect(GraphQLDateTime.serialize(stored)).toBeInstanceOf(Date);
  });

  it("when a project stored by other means has a date that is not a calendar date, then lists leave it out instead of failing", async () => {
    await insertProjects(t.db, [
      { project_id: 910_001, start_date: "2025-02-30" },
      { project_id: 910_002, start_date: "2025-02-28" },
    ]);

    const res = await t.http<GraphQLBody<{ projects: { items: { project_id: number }[] } }>>("POST", "/graphql", {
      body: { query: "{ projects(limit: 100, offset: 0) { items { project_id start_date } } }" },
      headers: HEADERS,
    });

    expect(res.body.errors).toBeUndefined();
    const ids = res.body.data!.projects.items.map((p) => p.project_id);
    expect(ids).toContain(910_002);
    expect(ids).not.toContain(910_001);
  });
});
