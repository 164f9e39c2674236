// One accepted request must never poison a read (issue: a company_id of 2^31 accepted over REST broke every projects
// list, since GraphQL's Int cannot return it). Every write path refuses what reads cannot answer, BAD_REQUEST naming
// the field; a record that arrives another way (an import, a direct write) is left out of lists and named in the log,
// and reads by id fail as internal errors instead of answering it.
import { Writable } from "node:stream";
import pino from "pino";
import { startTestApp, type GraphQLBody, type TestApp } from "../helpers/app";
import { ADMIN, unique } from "../helpers/fixtures";
import { snapshot } from "../operations/support";
import { insertProjects } from "../lists/support";

const INT_MAX = 2_147_483_647;

function projectBody(overrides: Record<string, unknown> = {}) {
  return {
    project_name: unique("Range"),
    project_desc: "x",
    company_id: 2,
    project_status: "active",
    start_date: "2026-01-01",
    end_date: "2026-02-01",
    ...overrides,
  };
}

type LogLine = Record<string, unknown> & { msg?: string; level?: number };

describe("values both transports can answer", () => {
  let t: TestApp;
  const lines: LogLine[] = [];
  beforeAll(async () => {
    const stream = new Writable({
      write(chunk: Buffer, _encoding, done) {
        lines.push(JSON.parse(chunk.toString()) as LogLine);
        done();
      },
    });
    t = await startTestApp({ logger: pino({ level: "info" }, stream) });
  });
  afterAll(async () => {
    await t.close();
  });

  const listProjects = () =>
    t.http<GraphQLBody<{ projects: { items: { project_id: number; company_id: number }[] } }>>("POST", "/graphql", {
      body: { query: "{ projects(limit: 100) { items { project_id company_id } } }" },
      headers: ADMIN,
    });

  it("when REST creates a project with company_id 2^31 (the reported request), then it is 400 naming company_id and nothing is stored", async () => {
    const before = await snapshot(t);

    const res = await t.http("POST", "/projects", {
      body: projectBody({ company_id: INT_MAX + 1 }),
      headers: { "x-user-role": "student" },
    });

    expect(res.status).toBe(400);
    expect(res.body).toEqual({
      success: false,
      code: "BAD_REQUEST",
      message: `company_id must be a whole number from 1 to ${INT_MAX}`,
      errors: [
        {
          field: "company_id",
          message: `company_id must be a whole number from 1 to ${INT_MAX}`,
          code: "BAD_REQUEST",
          reason: "OUT_OF_RANGE",
        },
      ],
    });
    expect(await snapshot(t)).toEqual(before);
  });

  it("when REST creates a project with the largest company_id, then GraphQL lists it", async () => {
    const res = await t.http<{ data: { project_id: number } }>("POST", "/projects", {
      body: projectBody({ company_id: INT_MAX }),
      headers: { "x-user-role": "student" },
    });
    expect(res.status).toBe(201);

    const list = await listProjects();
    expect(list.body.errors).toBeUndefined();
    expect(list.body.data!.projects.items).toContainEqual({
      project_id: res.body.data.project_id,
      company_id: INT_MAX,
    });
  });

  it.each([
    ["new_teacher_id", { new_teacher_id: INT_MAX + 1 }, "teacher"],
    ["expected_revision", { new_teacher_id: 1, expected_revision: INT_MAX + 1 }, "teacher"],
    ["expected_revision", { project_status: "done", expected_revision: INT_MAX + 1 }, "updateStatus"],
  ])("when REST sends %s beyond 2^31 − 1, then it is 400 naming it", async (field, body, route) => {
    const res = await t.http("PUT", `/projects/1/${route}`, { body, headers: ADMIN });

    expect(res.status).toBe(400);
    expect(res.body.errors).toContainEqual({
      field,
      message: `${field} must be a whole number from 1 to ${INT_MAX}`,
      code: "BAD_REQUEST",
      reason: "OUT_OF_RANGE",
    });
  });

  it.each([
    ["/projects/2147483648/teacher", "projectId", INT_MAX],
    ["/teachers/2147483648", "teacherId", INT_MAX],
    ["/students/9007199254740992", "studentId", Number.MAX_SAFE_INTEGER],
  ])("when the REST path %s is beyond its range, then it is 400 naming %s", async (path, field, max) => {
    const body = path.startsWith("/projects")
      ? { new_teacher_id: 1 }
      : path.startsWith("/teachers")
        ? { teacher_name: "T" }
        : {};

    const res = await t.http("PUT", path, { body, headers: ADMIN });

    expect(res.status).toBe(400);
    expect(res.body.errors).toEqual([
      {
        field,
        message: `${field} must be a whole number from 1 to ${max}`,
        code: "BAD_REQUEST",
        reason: "OUT_OF_RANGE",
      },
    ]);
  });

  it("when GraphQL sends company_id 2^31, then the document is refused (Int cannot hold it) and nothing is stored", async () => {
    const before = await snapshot(t);

    const res = await t.http<GraphQLBody>("POST", "/graphql", {
      body: {
        query: "mutation($input: CreateProjectInput!) { createProject(input: $input) { success } }",
        variables: { input: projectBody({ company_id: INT_MAX + 1 }) },
      },
      headers: ADMIN,
    });

    expect(res.status).toBe(400);
    expect(res.body.errors![0].message).toMatch(/company_id/);
    expect(await snapshot(t)).toEqual(before);
  });

  it("when a project the API cannot answer was written directly, then lists leave it out and the log names collection, id and field", async () => {
    await insertProjects(t.db, [{ project_id: 900_001, company_id: INT_MAX + 1 }, { project_id: 900_002 }]);
    lines.length = 0;

    const list = await listProjects();

    expect(list.status).toBe(200);
    expect(list.body.errors).toBeUndefined();
    const ids = list.body.data!.projects.items.map((p) => p.project_id);
    expect(ids).toContain(900_002);
    expect(ids).not.toContain(900_001);
    expect(lines).toContainEqual(
      expect.objectContaining({ level: 40, collection: "projects", id: 900_001, field: "company_id" }),
    );
  });

  it("when such a project is read by id, then it is an internal error (logged), not a wrong answer", async () => {
    const res = await t.http<GraphQLBody>("POST", "/graphql", {
      body: { query: "{ project(projectId: 900001) { project_id company_id } }" },
      headers: ADMIN,
    });

    expect(res.body.errors![0].extensions!.code).toBe("INTERNAL_SERVER_ERROR");
    expect(JSON.stringify(res.body)).not.toMatch(/2147483648|company_id must/);
  });
});

describe("OPTIONS that is not a CORS preflight", () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(async () => {
    await t.close();
  });

  const MESSAGE =
    "OPTIONS is answered only as a CORS preflight, which carries Origin and Access-Control-Request-Method headers";

  it.each([
    ["no Origin", {}],
    ["an Origin but no Access-Control-Request-Method", { origin: "http://localhost:5173" }],
  ])("when a REST route gets OPTIONS with %s, then it is 400 in the envelope", async (_case, headers) => {
    const res = await t.http("OPTIONS", "/projects", { headers });

    expect(res.status).toBe(400);
    expect(res.body).toEqual({
      success: false,
      message: MESSAGE,
      code: "BAD_REQUEST",
      errors: [{ field: null, message: MESSAGE, code: "BAD_REQUEST", reason: "MALFORMED_REQUEST" }],
    });
  });

  it("when /graphql gets OPTIONS with no Origin, then it is 400 as a GraphQL error", async () => {
    const res = await t.http<GraphQLBody>("OPTIONS", "/graphql");

    expect(res.status).toBe(400);
    expect(res.body).toEqual({
      errors: [{ message: MESSAGE, extensions: { code: "BAD_REQUEST", reason: "MALFORMED_REQUEST" } }],
    });
  });
});
