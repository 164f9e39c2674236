// The single-item queries project, teacher and student: what they answer, null for unknown ids, BAD_REQUEST for
// invalid ids, and UNAUTHORIZED (a GraphQL error with extensions.code) without authentication, in both modes.
import {
  AssignTeacherDocument,
  GetProjectDocument,
  GetStudentDocument,
  GetTeacherDocument,
} from "../generated/graphql";
import { startTestApp, type GraphQLResponse, type Headers, type TestApp } from "../helpers/app";
import { bearer, expiredToken, JWT_AUTH, token, unsignedToken, wronglySignedToken } from "../helpers/tokens";
import {
  ADMIN,
  createProject,
  createStudent,
  createTeacher,
  expectQueryError,
  expectSuccess,
  STUDENT,
  TEACHER,
} from "./support";

describe("single-item queries", () => {
  let t: TestApp;
  let j: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
    j = await startTestApp({ auth: JWT_AUTH, db: t.db });
  });
  afterAll(async () => {
    await j.close();
    await t.close();
  });

  describe("project", () => {
    it.each([
      ["student", STUDENT],
      ["teacher", TEACHER],
      ["admin", ADMIN],
    ])(
      "when a %s asks for an existing project, then it answers the stored project with its teacher",
      async (_role, headers) => {
        const project = await createProject(t, { project_url: null });
        const teacher = await createTeacher(t, "Ada");
        expectSuccess(
          await t.gql(
            AssignTeacherDocument,
            { projectId: project.project_id, input: { new_teacher_id: teacher.teacher_id } },
            ADMIN,
          ),
        );
        const stored = (await t.db.models.Project.findOne({ project_id: project.project_id }).lean())!;

        const res = await t.gql(GetProjectDocument, { projectId: project.project_id }, headers);

        expect(res.errors).toBeUndefined();
        expect(res.data?.project).toEqual({
          project_id: stored.project_id,
          project_name: stored.project_name,
          project_desc: stored.project_desc,
          company_id: stored.company_id,
          project_status: stored.project_status,
          project_url: null,
          start_date: stored.start_date,
          end_date: stored.end_date,
          teacher_id: teacher.teacher_id,
          revision: 2,
          created_by: null,
          archived_at: null,
          created_at: stored.created_at.toISOString(),
          updated_at: stored.updated_at.toISOString(),
          teacher: { teacher_id: teacher.teacher_id, teacher_name: "Ada" },
        });
      },
    );

    it("when the project has no teacher, then teacher_id and teacher are null", async () => {
      const project = await createProject(t);

      const res = await t.gql(GetProjectDocument, { projectId: project.project_id }, STUDENT);

      expect(res.data?.project).toEqual({ ...project, teacher: null });
    });

    it("when no project has the id, then it answers null without errors", async () => {
      const res = await t.gql(GetProjectDocument, { projectId: 987_654 }, STUDENT);

      expect(res.errors).toBeUndefined();
      expect(res.data).toEqual({ project: null });
    });
  });

  describe("teacher", () => {
    it("when a teacher is asked for, then it answers the stored name and its projects in id order", async () => {
      const teacher = await createTeacher(t, "Grace");
      const first = await createProject(t);
      const second = await createProject(t);
      for (const p of [second, first]) {
        expectSuccess(
          await t.gql(
            AssignTeacherDocument,
            { projectId: p.project_id, input: { new_teacher_id: teacher.teacher_id } },
            ADMIN,
          ),
        );
      }

      const res = await t.gql(GetTeacherDocument, { teacherId: teacher.teacher_id }, STUDENT);

      expect(res.errors).toBeUndefined();
      expect(res.data?.teacher).toEqual({
        teacher_id: teacher.teacher_id,
        teacher_name: (await t.db.models.Teacher.findOne({ teacher_id: teacher.teacher_id }).lean())!.teacher_name,
        projects: [
          { project_id: first.project_id, project_name: first.project_name },
          { project_id: second.project_id, project_name: second.project_name },
        ],
      });
    });

    it("when the teacher has no project, then projects is an empty list", async () => {
      const teacher = await createTeacher(t);

      const res = await t.gql(GetTeacherDocument, { teacherId: teacher.teacher_id }, TEACHER);

      expect(res.data?.teacher).toEqual({ ...teacher, projects: [] });
    });

    it("when no teacher has the id, then it answers null without errors", async () => {
      const res = await t.gql(GetTeacherDocument, { teacherId: 987_654 }, ADMIN);

      expect(res.errors).toBeUndefined();
      expect(res.data).toEqual({ teacher: null });
    });
  });

  describe("student", () => {
    it("when a student is asked for, then it answers the stored student", async () => {
      const student = await createStudent(t, { email: "Query.Me@Example.com", class_code: "Q1" });
      const stored = (await t.db.models.Student.findOne({ student_id: student.student_id }).lean())!;

      const res = await t.gql(GetStudentDocument, { studentId: student.student_id }, TEACHER);

      expect(res.errors).toBeUndefined();
      expect(res.data?.student).toEqual({
        student_id: stored.student_id,
        student_name: stored.student_name,
        email: "query.me@example.com",
        class_code: "Q1",
      });
    });

    it("when no student has the id (even a large SafeInt), then it answers null without errors", async () => {
      const res = await t.gql(GetStudentDocument, { studentId: 2 ** 53 - 1 }, ADMIN);

      expect(res.errors).toBeUndefined();
      expect(res.data).toEqual({ student: null });
    });

    it("when studentId is beyond SafeInt, then it is a GraphQL error", async () => {
      const res = await t.gql(GetStudentDocument, { studentId: 2 ** 53 }, ADMIN);

      expect(res.errors?.length).toBeGreaterThan(0);
      expect(res.data ?? null).toBeNull();
    });
  });

  describe("invalid ids", () => {
    it.each<[string, () => Promise<GraphQLResponse<Record<string, unknown>>>, string]>([
      ["project with projectId 0", () => t.gql(GetProjectDocument, { projectId: 0 }, ADMIN), "projectId"],
      ["project with a negative projectId", () => t.gql(GetProjectDocument, { projectId: -1 }, ADMIN), "projectId"],
      ["teacher with teacherId 0", () => t.gql(GetTeacherDocument, { teacherId: 0 }, ADMIN), "teacherId"],
      ["teacher with a negative teacherId", () => t.gql(GetTeacherDocument, { teacherId: -4 }, ADMIN), "teacherId"],
      ["student with studentId 0", () => t.gql(GetStudentDocument, { studentId: 0 }, ADMIN), "studentId"],
      ["student with a negative studentId", () => t.gql(GetStudentDocument, { studentId: -8 }, ADMIN), "studentId"],
    ])(
      "when %s is asked for, then it is a GraphQL error with code BAD_REQUEST naming the argument",
      async (_label, ask, field) => {
        const res = await ask();

        expectQueryError(res, "BAD_REQUEST", field);
      },
    );

    it("when projectId is not an Int, then it is a GraphQL error of the document", async () => {
      const res = await t.gql(GetProjectDocument, { projectId: "one" as unknown as number }, ADMIN);

      expect(res.errors?.length).toBeGreaterThan(0);
      expect(res.errors![0].message).toMatch(/projectId|Int/);
      expect(res.data ?? null).toBeNull();
    });
  });

  describe("authentication", () => {
    const QUERIES: [string, (app: TestApp, headers: Headers) => Promise<GraphQLResponse<Record<string, unknown>>>][] = [
      ["project", (app, headers) => app.gql(GetProjectDocument, { projectId: 1 }, headers)],
      ["teacher", (app, headers) => app.gql(GetTeacherDocument, { teacherId: 1 }, headers)],
      ["student", (app, headers) => app.gql(GetStudentDocument, { studentId: 1 }, headers)],
    ];

    const HEADER_MODE_FAILURES: [string, Headers][] = [
      ["no X-User-Role", {}],
      ["an empty X-User-Role", { "x-user-role": " " }],
      ["an unknown X-User-Role", { "x-user-role": "visitor" }],
    ];

    it.each(
      QUERIES.flatMap(([name, ask]) =>
        HEADER_MODE_FAILURES.map(([label, headers]) => [name, label, ask, headers] as const),
      ),
    )(
      "when %s is asked for in header mode with %s, then it is a GraphQL error with code UNAUTHORIZED",
      async (_name, _label, ask, headers) => {
        await createProject(t);

        const res = await ask(t, headers);

        expectQueryError(res, "UNAUTHORIZED", /X-User-Role/);
        expect(res.errors![0].message).not.toMatch(/\n\s+at /);
      },
    );

    const JWT_FAILURES: [string, () => Promise<Headers>][] = [
      ["no token", async () => ({ "x-user-role": "admin" })],
      ["a wrongly signed token", async () => ({ authorization: `Bearer ${await wronglySignedToken(["admin"])}` })],
      ["an expired token", async () => ({ authorization: `Bearer ${await expiredToken(["admin"])}` })],
      ["a token with alg none", async () => ({ authorization: `Bearer ${unsignedToken(["admin"])}` })],
      [
        "a token of another issuer",
        async () => ({ authorization: `Bearer ${await token(["admin"], { issuer: "https://x.test" })}` }),
      ],
      [
        "a token for another audience",
        async () => ({ authorization: `Bearer ${await token(["admin"], { audience: "x" })}` }),
      ],
      ["an X-User-Role outside the token's roles", () => bearer("admin", ["student"])],
      ["an unknown X-User-Role", () => bearer("visitor", ["visitor"])],
    ];

    it.each(
      QUERIES.flatMap(([name, ask]) => JWT_FAILURES.map(([label, headers]) => [name, label, ask, headers] as const)),
    )(
      "when %s is asked for in jwt mode with %s, then it is a GraphQL error with code UNAUTHORIZED",
      async (_name, _label, ask, headers) => {
        const res = await ask(j, await headers());

        expectQueryError(res, "UNAUTHORIZED");
      },
    );

    it("when a project is asked for in jwt mode with a valid token and no X-User-Role, then it is answered", async () => {
      const project = await createProject(t);

      const res = await j.gql(
        GetProjectDocument,
        { projectId: project.project_id },
        await bearer(undefined, ["student"]),
      );

      expect(res.errors).toBeUndefined();
      expect(res.data?.project?.project_id).toBe(project.project_id);
    });

    it.each(["teacher", "admin"])(
      "when a teacher and a student are asked for in jwt mode acting as %s, then they are answered",
      async (role) => {
        const teacher = await createTeacher(t);
        const student = await createStudent(t);
        const headers = await bearer(role);

        const teacherRes = await j.gql(GetTeacherDocument, { teacherId: teacher.teacher_id }, headers);
        const studentRes = await j.gql(GetStudentDocument, { studentId: student.student_id }, headers);

        expect(teacherRes.data?.teacher).toEqual({ ...teacher, projects: [] });
        expect(studentRes.data?.student).toEqual(student);
      },
    );

    it("when a teacher and a student are asked for in jwt mode acting as student, then the teacher is answered and the student is FORBIDDEN", async () => {
      const teacher = await createTeacher(t);
      const student = await createStudent(t);
      const headers = await bearer("student");

      const teacherRes = await j.gql(GetTeacherDocument, { teacherId: teacher.teacher_id }, headers);
      const studentRes = await j.gql(GetStudentDocument, { studentId: student.student_id }, headers);

      expect(teacherRes.data?.teacher).toEqual({ ...teacher, projects: [] });
      expectQueryError(studentRes, "FORBIDDEN", /teacher, admin/);
    });
  });
});
