// Field errors of the GraphQL payloads: every invalid field of a request is listed at once (message and code stay the
// first problem's), each entry names the input field or argument as the interface does, failures that belong to no
// field have field null, and errors is empty on success. Nothing is stored when validation fails.
import {
  AssignTeacherDocument,
  CreateProjectDocument,
  CreateStudentDocument,
  UpdateProjectStatusDocument,
  UpdateStudentDocument,
  UpdateTeacherDocument,
} from "../generated/graphql";
import { parseStatusWorkflow } from "../../src/components/projects";
import { startTestApp, type TestApp } from "../helpers/app";
import {
  ADMIN,
  createProject,
  createStudent,
  createTeacher,
  expectFailure,
  expectSuccess,
  projectInput,
  snapshot,
  STUDENT,
  studentInput,
  TEACHER,
} from "./support";

describe("field errors", () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(async () => {
    await t.close();
  });

  it("when a project has several invalid fields, then every one is listed, in input order, and nothing is stored", async () => {
    const before = await snapshot(t);
    const input = projectInput({
      project_name: "   ",
      project_desc: "d".repeat(5001),
      project_url: "ftp://example.com",
      start_date: "2025-02-30",
      end_date: "soon",
    });

    const payload = expectFailure(
      await t.gql(CreateProjectDocument, { input }, STUDENT),
      "BAD_REQUEST",
      /^project_name must not be empty$/,
    );

    expect(payload.errors).toEqual([
      { field: "project_name", message: "project_name must not be empty", code: "BAD_REQUEST" },
      {
        field: "project_desc",
        message: "project_desc must be at most 5000 characters (got 5001)",
        code: "BAD_REQUEST",
      },
      { field: "project_url", message: "project_url must be an absolute http or https URL", code: "BAD_REQUEST" },
      {
        field: "start_date",
        message: "start_date must be a real calendar date written YYYY-MM-DD",
        code: "BAD_REQUEST",
      },
      { field: "end_date", message: "end_date must be a real calendar date written YYYY-MM-DD", code: "BAD_REQUEST" },
    ]);
    expect(await snapshot(t)).toEqual(before);
  });

  it("when end_date is before start_date and another field is invalid too, then both are listed", async () => {
    const input = projectInput({ company_id: 0, start_date: "2025-06-01", end_date: "2025-05-31" });

    const payload = expectFailure(await t.gql(CreateProjectDocument, { input }, STUDENT), "BAD_REQUEST", "company_id");

    expect(payload.errors).toEqual([
      { field: "company_id", message: "company_id must be a whole number from 1 to 2147483647", code: "BAD_REQUEST" },
      { field: "end_date", message: "end_date 2025-05-31 is before start_date 2025-06-01", code: "BAD_REQUEST" },
    ]);
  });

  it("when a student has several invalid fields, then each is listed", async () => {
    const res = await t.gql(
      CreateStudentDocument,
      { input: studentInput({ student_name: "", email: "nope", class_code: "c".repeat(33) }) },
      ADMIN,
    );

    expect(expectFailure(res, "BAD_REQUEST", "student_name").errors!.map((e) => e.field)).toEqual([
      "student_name",
      "email",
      "class_code",
    ]);
  });

  it("when an argument and an input field are both invalid, then both are listed, the argument first", async () => {
    const res = await t.gql(
      UpdateStudentDocument,
      { studentId: 0, input: { student_name: " ", class_code: "B2" } },
      TEACHER,
    );

    expect(expectFailure(res, "BAD_REQUEST", "studentId").errors).toEqual([
      {
        field: "studentId",
        message: "studentId must be a whole number from 1 to 9007199254740991",
        code: "BAD_REQUEST",
      },
      { field: "student_name", message: "student_name must not be empty", code: "BAD_REQUEST" },
    ]);
  });

  it("when an operation succeeds, then errors is empty", async () => {
    const project = await createProject(t);
    const teacher = await createTeacher(t);
    const student = await createStudent(t);

    const results = [
      await t.gql(
        AssignTeacherDocument,
        { projectId: project.project_id, input: { new_teacher_id: teacher.teacher_id } },
        ADMIN,
      ),
      await t.gql(
        UpdateProjectStatusDocument,
        { projectId: project.project_id, input: { project_status: "done" } },
        ADMIN,
      ),
      await t.gql(UpdateTeacherDocument, { teacherId: teacher.teacher_id, input: { teacher_name: "Ada" } }, ADMIN),
      await t.gql(UpdateStudentDocument, { studentId: student.student_id, input: {} }, ADMIN),
    ];

    for (const res of results) expect(expectSuccess(res as never).errors).toEqual([]);
  });

  it("when a failure belongs to no field (authentication, role), then its one entry has field null", async () => {
    const unauthenticated = expectFailure(
      await t.gql(CreateProjectDocument, { input: projectInput() }, {}),
      "UNAUTHORIZED",
    );
    expect(unauthenticated.errors).toEqual([{ field: null, message: unauthenticated.message, code: "UNAUTHORIZED" }]);

    const forbidden = expectFailure(
      await t.gql(UpdateTeacherDocument, { teacherId: 1, input: { teacher_name: "X" } }, STUDENT),
      "FORBIDDEN",
    );
    expect(forbidden.errors).toEqual([{ field: null, message: forbidden.message, code: "FORBIDDEN" }]);
  });

  it("when a conflict or a missing resource concerns a field, then the entry names it", async () => {
    const project = await createProject(t);
    const taken = expectFailure(
      await t.gql(CreateProjectDocument, { input: projectInput({ project_name: project.project_name }) }, ADMIN),
      "CONFLICT",
    );
    expect(taken.errors).toEqual([{ field: "project_name", message: taken.message, code: "CONFLICT" }]);

    const student = await createStudent(t);
    const emailTaken = expectFailure(
      await t.gql(CreateStudentDocument, { input: studentInput({ email: student.email }) }, ADMIN),
      "CONFLICT",
    );
    expect(emailTaken.errors).toEqual([{ field: "email", message: emailTaken.message, code: "CONFLICT" }]);

    const noTeacher = expectFailure(
      await t.gql(AssignTeacherDocument, { projectId: project.project_id, input: { new_teacher_id: 987_654 } }, ADMIN),
      "NOT_FOUND",
    );
    expect(noTeacher.errors).toEqual([{ field: "new_teacher_id", message: noTeacher.message, code: "NOT_FOUND" }]);

    const noProject = expectFailure(
      await t.gql(UpdateProjectStatusDocument, { projectId: 987_654, input: { project_status: "x" } }, ADMIN),
      "NOT_FOUND",
    );
    expect(noProject.errors).toEqual([{ field: "projectId", message: noProject.message, code: "NOT_FOUND" }]);
  });

  describe("with PROJECT_STATUS_WORKFLOW", () => {
    let w: TestApp;
    beforeAll(async () => {
      w = await startTestApp({
        db: t.db,
        statusWorkflow: parseStatusWorkflow(
          JSON.stringify({ initial: ["proposed"], transitions: { proposed: ["done"], done: [] } }),
        ),
      });
    });
    afterAll(async () => {
      await w.close();
    });

    it("when the status cannot start a project and another field is invalid, then both are listed", async () => {
      const input = projectInput({ project_name: "", project_status: "done" });

      const payload = expectFailure(
        await w.gql(CreateProjectDocument, { input }, STUDENT),
        "BAD_REQUEST",
        "project_name",
      );

      expect(payload.errors).toEqual([
        { field: "project_name", message: "project_name must not be empty", code: "BAD_REQUEST" },
        {
          field: "project_status",
          message: 'project_status "done" cannot start a project; use one of: proposed',
          code: "BAD_REQUEST",
        },
      ]);
    });
  });
});
