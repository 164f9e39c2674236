// Internal failures: with the app's database connection closed (a real failure of the real persistence, nothing
// mocked), every mutation answers INTERNAL_SERVER_ERROR in its payload and queries a masked GraphQL error; neither
// carries a stack trace or driver text.
import {
  AssignTeacherDocument,
  CreateProjectDocument,
  CreateStudentDocument,
  CreateTeacherDocument,
  GetProjectDocument,
  UpdateProjectStatusDocument,
  UpdateStudentDocument,
  UpdateTeacherDocument,
} from "../generated/graphql";
import { startTestApp, type GraphQLResponse, type TestApp } from "../helpers/app";
import { dropTestDatabase, openTestDatabase } from "../helpers/database";
import { ADMIN, expectFailure, expectQueryError, projectInput, studentInput, type Envelope } from "./support";

/** Text that would betray internals: stack frames, driver and server error names, connection details. */
const LEAKS =
  /\n\s+at |\.ts:\d+|node_modules|Mongo|mongoose|E11000|ECONNREFUSED|127\.0\.0\.1|\.sock\b|Error:|topology|pool/i;

describe("internal errors", () => {
  let t: TestApp;
  let dbName: string;
  beforeAll(async () => {
    t = await startTestApp();
    dbName = t.db.connection.name;
    await t.db.connection.close();
  });
  afterAll(async () => {
    await t.app.close();
    // The app's own connection is closed: drop its database through a new one.
    await dropTestDatabase(await openTestDatabase(dbName));
  });

  it.each<[string, () => Promise<GraphQLResponse<Record<string, Envelope>>>]>([
    ["createProject", () => t.gql(CreateProjectDocument, { input: projectInput() }, ADMIN)],
    ["assignTeacher", () => t.gql(AssignTeacherDocument, { projectId: 1, input: { new_teacher_id: 1 } }, ADMIN)],
    [
      "updateProjectStatus",
      () => t.gql(UpdateProjectStatusDocument, { projectId: 1, input: { project_status: "done" } }, ADMIN),
    ],
    ["updateTeacher", () => t.gql(UpdateTeacherDocument, { teacherId: 1, input: { teacher_name: "Name" } }, ADMIN)],
    ["updateStudent", () => t.gql(UpdateStudentDocument, { studentId: 1, input: { student_name: "Name" } }, ADMIN)],
    ["createTeacher", () => t.gql(CreateTeacherDocument, { input: { teacher_name: "Name" } }, ADMIN)],
    ["createStudent", () => t.gql(CreateStudentDocument, { input: studentInput() }, ADMIN)],
  ])(
    "when %s runs while the database connection is closed, then it is INTERNAL_SERVER_ERROR with a message free of internals",
    async (_name, call) => {
      const res = await call();

      const payload = expectFailure(res, "INTERNAL_SERVER_ERROR");
      expect(payload.message).not.toMatch(LEAKS);
      expect(payload.message!.length).toBeLessThan(200);
    },
  );

  it("when a query runs while the database connection is closed, then it is a GraphQL error INTERNAL_SERVER_ERROR free of internals", async () => {
    const res = await t.gql(GetProjectDocument, { projectId: 1 }, ADMIN);

    expectQueryError(res, "INTERNAL_SERVER_ERROR");
    expect(res.errors![0].message).not.toMatch(LEAKS);
    expect(JSON.stringify(res.errors![0].extensions)).not.toMatch(/stack|Mongo/i);
  });

  it("when a mutation fails for bad input while the database is down, then validation still answers BAD_REQUEST first", async () => {
    const res = await t.gql(CreateProjectDocument, { input: projectInput({ company_id: 0 }) }, ADMIN);

    expectFailure(res, "BAD_REQUEST", "company_id");
  });
});
