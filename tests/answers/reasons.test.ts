// Every kind of refusal carries its FieldErrorReason, the same on both transports: GraphQL (a mutation payload's
// errors[].reason, or a GraphQL error's extensions.reason) and REST (the error body's errors[].reason). The walk goes
// through value validation, the domain's rules, the caller, the rate limit, the framework's own refusals, documents
// and internal failures; the reasons it cannot reach on demand are named with the test that covers them, and every
// reason of the enum is one or the other.
import fs from "node:fs";
import path from "node:path";
import { parseStatusWorkflow } from "../../src/components/projects";
import { FieldErrorReason } from "../../src/shared/errors";
import { startTestApp, type TestApp } from "../helpers/app";
import { dropTestDatabase, openTestDatabase } from "../helpers/database";
import { unique } from "../helpers/fixtures";

const WORKFLOW = parseStatusWorkflow(
  fs.readFileSync(path.resolve(__dirname, "../../examples/status-workflow.json"), "utf8"),
);

/** The first problem as a client reads it: its field, code and reason. */
interface Problem {
  field: string | null;
  code: string;
  reason: string;
}

type Headers = Record<string, string>;
const ADMIN: Headers = { "x-user-role": "admin" };
const STUDENT: Headers = { "x-user-role": "student" };
const TEACHER: Headers = { "x-user-role": "teacher" };
const JSON_TYPE: Headers = { "content-type": "application/json" };

/** POST /graphql; the first problem of a failed mutation payload, else of the GraphQL errors. */
async function graphql(t: TestApp, query: string, variables: object = {}, headers: Headers = ADMIN): Promise<Problem> {
  const response = await fetch(`${t.url}/graphql`, {
    method: "POST",
    headers: { ...JSON_TYPE, ...headers },
    body: JSON.stringify({ query, variables }),
  });
  return problemOfGraphql((await response.json()) as GraphqlAnswer);
}

/** A GraphQL answer: mutation payloads in data, or errors with their extensions. */
interface GraphqlAnswer {
  data?: Record<string, { success?: boolean; errors?: Problem[] } | null> | null;
  errors?: { extensions?: { code?: string; reason?: string; field?: string } }[];
}

function problemOfGraphql(body: GraphqlAnswer): Problem {
  const failed = Object.values(body.data ?? {}).find((payload) => payload?.success === false);
  if (failed) return failed.errors![0];
  const extensions = body.errors?.[0]?.extensions ?? {};
  return { field: extensions.field ?? null, code: String(extensions.code), reason: String(extensions.reason) };
}

/** A REST call (or any route outside /graphql); the first entry of the error body's errors. */
async function rest(
  t: TestApp,
  method: string,
  url: string,
  body?: unknown,
  headers: Headers = ADMIN,
  raw?: { text: string; type: string },
): Promise<Problem> {
  const response = await fetch(`${t.url}${url}`, {
    method,
    headers: {
      ...(raw ? { "content-type": raw.type } : body !== undefined ? JSON_TYPE : {}),
      ...headers,
    },
    body: raw ? raw.text : body !== undefined ? JSON.stringify(body) : undefined,
  });
  const answer = (await response.json()) as { errors: { field: string | null; code: string; reason: string }[] };
  const [{ field, code, reason }] = answer.errors;
  return { field, code, reason };
}

/** The same raw body posted to /graphql: its GraphQL error. */
async function graphqlRaw(t: TestApp, text: string, type: string): Promise<Problem> {
  const response = await fetch(`${t.url}/graphql`, {
    method: "POST",
    headers: { "content-type": type, ...ADMIN },
    body: text,
  });
  return problemOfGraphql((await response.json()) as GraphqlAnswer);
}

const CREATE_PROJECT = `mutation($input: CreateProjectInput!) {
  createProject(input: $input) { success errors { field code reason } }
}`;
const CREATE_STUDENT = `mutation($input: CreateStudentInput!) {
  createStudent(input: $input) { success errors { field code reason } }
}`;
const ASSIGN = `mutation($projectId: Int!, $input: AssignTeacherInput!) {
  assignTeacher(projectId: $projectId, input: $input) { success errors { field code reason } }
}`;
const SET_STATUS = `mutation($projectId: Int!, $input: UpdateProjectStatusInput!) {
  updateProjectStatus(projectId: $projectId, input: $input) { success errors { field code reason } }
}`;
const RENAME_TEACHER = `mutation($teacherId: Int!, $input: UpdateTeacherInput!) {
  updateTeacher(teacherId: $teacherId, input: $input) { success errors { field code reason } }
}`;
const CREATE_TEACHER = `mutation { createTeacher(input: { teacher_name: "Ada" }) { success errors { field code reason } } }`;

const projectBody = (overrides: object = {}) => ({
  project_name: unique("Reasons"),
  project_desc: "A project to refuse things with",
  company_id: 7,
  project_status: "proposed",
  start_date: "2026-01-10",
  end_date: "2026-02-10",
  ...overrides,
});

interface Fixtures {
  t: TestApp;
  project: { project_id: number; project_name: string };
  teacherId: number;
  email: string;
}

/** One kind of refusal: what it is, and how each transport that can meet it is made to. */
interface Refusal {
  what: string;
  expected: Problem;
  graphql?: (f: Fixtures) => Promise<Problem>;
  rest?: (f: Fixtures) => Promise<Problem>;
}

const bad = (field: string | null, reason: string, code = "BAD_REQUEST"): Problem => ({ field, code, reason });

const REFUSALS: Refusal[] = [
  {
    what: "a blank name",
    expected: bad("project_name", "BLANK"),
    graphql: ({ t }) => graphql(t, CREATE_PROJECT, { input: projectBody({ project_name: "   " }) }),
    rest: ({ t }) => rest(t, "POST", "/projects", projectBody({ project_name: "   " })),
  },
  {
    what: "a text over its length",
    expected: bad("project_desc", "TOO_LONG"),
    graphql: ({ t }) => graphql(t, CREATE_PROJECT, { input: projectBody({ project_desc: "d".repeat(5001) }) }),
    rest: ({ t }) => rest(t, "POST", "/projects", projectBody({ project_desc: "d".repeat(5001) })),
  },
  {
    what: "a URL that is not http(s)",
    expected: bad("project_url", "INVALID_FORMAT"),
    graphql: ({ t }) => graphql(t, CREATE_PROJECT, { input: projectBody({ project_url: "ftp://example.com" }) }),
    rest: ({ t }) => rest(t, "POST", "/projects", projectBody({ project_url: "ftp://example.com" })),
  },
  {
    what: "an e-mail address that is not one",
    expected: bad("email", "INVALID_FORMAT"),
    graphql: ({ t }) => graphql(t, CREATE_STUDENT, { input: { student_name: "Mei", email: "nope", class_code: "A1" } }),
  },
  {
    what: "a date that is not a calendar date",
    expected: bad("start_date", "INVALID_DATE"),
    graphql: ({ t }) => graphql(t, CREATE_PROJECT, { input: projectBody({ start_date: "2026-02-30" }) }),
    rest: ({ t }) => rest(t, "POST", "/projects", projectBody({ start_date: "2026-02-30" })),
  },
  {
    what: "a number out of its range",
    expected: bad("company_id", "OUT_OF_RANGE"),
    graphql: ({ t }) => graphql(t, CREATE_PROJECT, { input: projectBody({ company_id: 0 }) }),
    rest: ({ t }) => rest(t, "POST", "/projects", projectBody({ company_id: 0 })),
  },
  {
    what: "an end date before the start date",
    expected: bad("end_date", "OUT_OF_RANGE"),
    graphql: ({ t }) => graphql(t, CREATE_PROJECT, { input: projectBody({ end_date: "2025-12-31" }) }),
    rest: ({ t }) => rest(t, "POST", "/projects", projectBody({ end_date: "2025-12-31" })),
  },
  {
    what: "an id argument (or path id) of 0",
    expected: bad("projectId", "OUT_OF_RANGE"),
    graphql: ({ t, teacherId }) => graphql(t, ASSIGN, { projectId: 0, input: { new_teacher_id: teacherId } }),
    rest: ({ t, teacherId }) => rest(t, "PUT", "/projects/0/teacher", { new_teacher_id: teacherId }),
  },
  {
    what: "a page size over the maximum",
    expected: bad("limit", "OUT_OF_RANGE"),
    graphql: ({ t }) => graphql(t, "{ projects(limit: 101) { total } }"),
  },
  {
    what: "a control character in a text",
    expected: bad("project_name", "FORBIDDEN_CHARACTERS"),
    graphql: ({ t }) => graphql(t, CREATE_PROJECT, { input: projectBody({ project_name: "Solar\u0000Car" }) }),
    rest: ({ t }) => rest(t, "POST", "/projects", projectBody({ project_name: "Solar\u0000Car" })),
  },
  {
    what: "a required field left out (GraphQL's own validation refuses that document)",
    expected: bad("project_desc", "REQUIRED"),
    rest: ({ t }) => {
      const { project_desc: _left, ...body } = projectBody();
      return rest(t, "POST", "/projects", body);
    },
  },
  {
    what: "a value of the wrong JSON type (GraphQL's own validation refuses that document)",
    expected: bad("company_id", "WRONG_TYPE"),
    rest: ({ t }) => rest(t, "POST", "/projects", projectBody({ company_id: "7" })),
  },
  {
    what: "a field that is not accepted (GraphQL's input types have none)",
    expected: bad("email", "UNKNOWN_FIELD"),
    rest: ({ t }) => rest(t, "PUT", "/students/1", { email: "a@example.com" }),
  },
  {
    what: "a path id that is not a number",
    expected: bad("projectId", "INVALID_FORMAT"),
    rest: ({ t }) => rest(t, "PUT", "/projects/abc/teacher", { new_teacher_id: 1 }),
  },
  {
    what: "a status the workflow does not list",
    expected: bad("project_status", "UNKNOWN_STATUS"),
    graphql: ({ t, project }) =>
      graphql(t, SET_STATUS, { projectId: project.project_id, input: { project_status: "dreaming" } }),
    rest: ({ t, project }) =>
      rest(t, "PUT", `/projects/${project.project_id}/updateStatus`, { project_status: "dreaming" }),
  },
  {
    what: "a status change the workflow does not allow",
    expected: bad("project_status", "TRANSITION_NOT_ALLOWED"),
    graphql: ({ t, project }) =>
      graphql(t, SET_STATUS, { projectId: project.project_id, input: { project_status: "completed" } }),
    rest: ({ t, project }) =>
      rest(t, "PUT", `/projects/${project.project_id}/updateStatus`, { project_status: "completed" }),
  },
  {
    what: "a project name its company already has",
    expected: bad("project_name", "TAKEN", "CONFLICT"),
    graphql: ({ t, project }) =>
      graphql(t, CREATE_PROJECT, { input: projectBody({ project_name: project.project_name.toUpperCase() }) }),
    rest: ({ t, project }) => rest(t, "POST", "/projects", projectBody({ project_name: ` ${project.project_name} ` })),
  },
  {
    what: "an e-mail address another student has",
    expected: bad("email", "TAKEN", "CONFLICT"),
    graphql: ({ t, email }) => graphql(t, CREATE_STUDENT, { input: { student_name: "Mei", email, class_code: "A1" } }),
  },
  {
    what: "a teacher that does not exist",
    expected: bad("new_teacher_id", "NOT_FOUND", "NOT_FOUND"),
    graphql: ({ t, project }) =>
      graphql(t, ASSIGN, { projectId: project.project_id, input: { new_teacher_id: 999_999 } }),
    rest: ({ t, project }) => rest(t, "PUT", `/projects/${project.project_id}/teacher`, { new_teacher_id: 999_999 }),
  },
  {
    what: "a teacher to rename that does not exist (BAD_REQUEST by the interface)",
    expected: bad("teacherId", "NOT_FOUND"),
    graphql: ({ t }) => graphql(t, RENAME_TEACHER, { teacherId: 999_999, input: { teacher_name: "Nobody" } }),
    rest: ({ t }) => rest(t, "PUT", "/teachers/999999", { teacher_name: "Nobody" }),
  },
  {
    what: "the teacher the project already has",
    expected: bad("new_teacher_id", "ALREADY_ASSIGNED", "CONFLICT"),
    graphql: ({ t, project, teacherId }) =>
      graphql(t, ASSIGN, { projectId: project.project_id, input: { new_teacher_id: teacherId } }),
    rest: ({ t, project, teacherId }) =>
      rest(t, "PUT", `/projects/${project.project_id}/teacher`, { new_teacher_id: teacherId }),
  },
  {
    what: "an expected_revision that is not the project's",
    expected: bad("expected_revision", "STALE_REVISION", "CONFLICT"),
    graphql: ({ t, project }) =>
      graphql(t, SET_STATUS, {
        projectId: project.project_id,
        input: { project_status: "in_progress", expected_revision: 99 },
      }),
    rest: ({ t, project }) =>
      rest(t, "PUT", `/projects/${project.project_id}/updateStatus`, {
        project_status: "in_progress",
        expected_revision: 99,
      }),
  },
  {
    what: "a caller with no role",
    expected: bad(null, "NOT_ALLOWED", "UNAUTHORIZED"),
    graphql: ({ t }) => graphql(t, CREATE_PROJECT, { input: projectBody() }, {}),
    rest: ({ t }) => rest(t, "POST", "/projects", projectBody(), {}),
  },
  {
    what: "a role the operation does not allow",
    expected: bad(null, "NOT_ALLOWED", "FORBIDDEN"),
    graphql: ({ t, project, teacherId }) =>
      graphql(t, ASSIGN, { projectId: project.project_id, input: { new_teacher_id: teacherId } }, STUDENT),
    rest: ({ t, project, teacherId }) =>
      rest(t, "PUT", `/projects/${project.project_id}/teacher`, { new_teacher_id: teacherId }, STUDENT),
  },
  {
    what: "a role the operation does not allow, where the interface says UNAUTHORIZED",
    expected: bad(null, "NOT_ALLOWED", "UNAUTHORIZED"),
    graphql: ({ t }) => graphql(t, CREATE_PROJECT, { input: projectBody() }, TEACHER),
    rest: ({ t }) => rest(t, "POST", "/projects", projectBody(), TEACHER),
  },
  {
    what: "malformed JSON",
    expected: bad(null, "MALFORMED_REQUEST"),
    graphql: ({ t }) => graphqlRaw(t, '{"query": ', "application/json"),
    rest: ({ t }) =>
      rest(t, "PUT", "/teachers/1", undefined, ADMIN, { text: '{"teacher_name": ', type: "application/json" }),
  },
  {
    what: "a body that is not JSON",
    expected: bad(null, "UNSUPPORTED_MEDIA_TYPE"),
    graphql: ({ t }) => graphqlRaw(t, "<query/>", "application/xml"),
    rest: ({ t }) => rest(t, "PUT", "/teachers/1", undefined, ADMIN, { text: "<teacher/>", type: "application/xml" }),
  },
  {
    what: "a body over 1 MiB",
    expected: bad(null, "TOO_LARGE"),
    graphql: ({ t }) => graphqlRaw(t, `"${"x".repeat(1024 * 1024)}"`, "application/json"),
    rest: ({ t }) =>
      rest(t, "PUT", "/teachers/1", undefined, ADMIN, {
        text: `"${"x".repeat(1024 * 1024)}"`,
        type: "application/json",
      }),
  },
  {
    what: "a route that does not exist",
    expected: bad(null, "NOT_FOUND", "NOT_FOUND"),
    rest: ({ t }) => rest(t, "GET", "/nowhere"),
  },
  {
    what: "a document that costs more than the service runs",
    expected: bad(null, "TOO_COMPLEX"),
    graphql: ({ t }) =>
      graphql(
        t,
        "{ teachers(limit: 100) { items { projects(limit: 100) { teacher { projects(limit: 100) { project_id } } } } } }",
      ),
  },
];

/**
 * Reasons this walk does not reach on demand, and the test that shows each: cursors and live limits (subscriptions
 * over WebSocket), documents refused by trusted-documents mode, Node's request timeout (30 s), and a change that keeps
 * losing to concurrent ones.
 */
const COVERED_ELSEWHERE: Partial<Record<FieldErrorReason, string>> = {
  INVALID_CURSOR: "tests/live/subscriptions.test.ts",
  NOT_SUPPORTED: "tests/live/subscriptions.test.ts",
  LIMIT_EXCEEDED: "tests/live/connections.test.ts",
  NOT_TRUSTED: "tests/documents/persisted-documents.test.ts, tests/frontend/trusted-documents.test.ts",
  TIMEOUT: "not walked: Node's request timeout takes 30 s (answers/failure.ts maps 408)",
  CONCURRENT_CHANGE: "not walked: needs a change that loses its claim to concurrent commits every attempt",
  OVERLOADED: "tests/operations/instances-writing.test.ts",
  IN_USE: "tests/operations/delete-records.test.ts",
  ARCHIVED: "tests/operations/project-lifecycle.test.ts",
  NOT_ARCHIVED: "tests/operations/project-lifecycle.test.ts",
};

const walked = new Set<string>();

describe("a reason for every refusal, on GraphQL and REST", () => {
  let db: Awaited<ReturnType<typeof openTestDatabase>>;
  const fixtures = {} as Fixtures;
  beforeAll(async () => {
    db = await openTestDatabase();
    fixtures.t = await startTestApp({ db, statusWorkflow: WORKFLOW });
    const { t } = fixtures;
    const teacher = (await (
      await fetch(`${t.url}/graphql`, {
        method: "POST",
        headers: { ...JSON_TYPE, ...ADMIN },
        body: JSON.stringify({
          query: 'mutation { createTeacher(input: { teacher_name: "Ada" }) { data { teacher_id } } }',
        }),
      })
    ).json()) as { data: { createTeacher: { data: { teacher_id: number } } } };
    fixtures.teacherId = teacher.data.createTeacher.data.teacher_id;
    const created = (await (
      await fetch(`${t.url}/projects`, {
        method: "POST",
        headers: { ...JSON_TYPE, ...ADMIN },
        body: JSON.stringify(projectBody()),
      })
    ).json()) as { data: { project_id: number; project_name: string } };
    fixtures.project = created.data;
    await fetch(`${t.url}/projects/${created.data.project_id}/teacher`, {
      method: "PUT",
      headers: { ...JSON_TYPE, ...ADMIN },
      body: JSON.stringify({ new_teacher_id: fixtures.teacherId }),
    });
    fixtures.email = `${unique("taken")}@example.com`;
    await graphql(t, CREATE_STUDENT, { input: { student_name: "Lin", email: fixtures.email, class_code: "A1" } });
  });
  afterAll(async () => {
    await fixtures.t.close();
    await dropTestDatabase(db);
  });

  const cases = REFUSALS.flatMap((refusal) =>
    (["graphql", "rest"] as const)
      .filter((transport) => refusal[transport])
      .map((transport) => [refusal.what, transport, refusal] as const),
  );

  it.each(cases)("when %s is sent over %s, then the reason says so", async (_what, transport, refusal) => {
    const problem = await refusal[transport]!(fixtures);

    expect(problem).toEqual(refusal.expected);
    walked.add(problem.reason);
  });

  it("when one caller goes over the rate limit, then the refusal is RATE_LIMITED on both transports", async () => {
    const limited = await startTestApp({ db, config: { rateLimitPerMinute: 1 } });
    try {
      const graphqlCaller = { ...ADMIN, "x-user-id": "reasons-graphql" };
      const restCaller = { ...ADMIN, "x-user-id": "reasons-rest" };
      await graphql(limited, "{ projectStatuses }", {}, graphqlCaller);
      await rest(limited, "PUT", "/teachers/999999", { teacher_name: "Once" }, restCaller);

      const expected = bad(null, "RATE_LIMITED", "TOO_MANY_REQUESTS");
      expect(await graphql(limited, "{ projectStatuses }", {}, graphqlCaller)).toEqual(expected);
      expect(await rest(limited, "PUT", "/teachers/999999", { teacher_name: "Twice" }, restCaller)).toEqual(expected);
      walked.add(expected.reason);
    } finally {
      await limited.close();
    }
  });

  it("when the database is gone, then operations are INTERNAL on both transports and /readyz is UNAVAILABLE", async () => {
    const broken = await startTestApp({ db: await openTestDatabase(db.connection.name) });
    await broken.db.connection.close();
    try {
      const internal = bad(null, "INTERNAL", "INTERNAL_SERVER_ERROR");
      expect(await graphql(broken, CREATE_TEACHER)).toEqual(internal);
      expect(await rest(broken, "PUT", "/teachers/1", { teacher_name: "Ada" })).toEqual(internal);
      expect(await rest(broken, "GET", "/readyz")).toEqual(bad(null, "UNAVAILABLE", "INTERNAL_SERVER_ERROR"));
      walked.add("INTERNAL").add("UNAVAILABLE");
    } finally {
      await broken.app.close();
    }
  });

  it("when the walk is done, then every reason of the enum was met here or is shown by the test named for it", () => {
    const unaccounted = Object.values(FieldErrorReason).filter(
      (reason) => !walked.has(reason) && !(reason in COVERED_ELSEWHERE),
    );
    expect(unaccounted).toEqual([]);
  });
});
