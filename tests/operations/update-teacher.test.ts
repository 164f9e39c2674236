// updateTeacher: rename (payload and stored), an unknown teacher is BAD_REQUEST (the interface has no not-found
// here), validation and roles.
import { GetProjectDocument, UpdateTeacherDocument, AssignTeacherDocument } from "../generated/graphql";
import { startTestApp, type TestApp } from "../helpers/app";
import {
  ADMIN,
  createProject,
  createTeacher,
  expectFailure,
  expectSuccess,
  snapshot,
  STUDENT,
  TEACHER,
} from "./support";

describe("updateTeacher", () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(async () => {
    await t.close();
  });

  it.each([
    ["teacher", TEACHER],
    ["admin", ADMIN],
  ])(
    "when a %s renames a teacher, then the payload and the stored teacher carry the trimmed name",
    async (_role, headers) => {
      const teacher = await createTeacher(t, "Old Name");

      const res = await t.gql(
        UpdateTeacherDocument,
        { teacherId: teacher.teacher_id, input: { teacher_name: "  New Name " } },
        headers,
      );

      const payload = expectSuccess(res);
      expect(payload.message).toBe("Teacher updated");
      expect(payload.data).toEqual({ teacher_id: teacher.teacher_id, teacher_name: "New Name" });
      const stored = await t.db.models.Teacher.findOne({ teacher_id: teacher.teacher_id }).lean();
      expect(stored!.teacher_name).toBe("New Name");
      expect(await t.db.models.Teacher.countDocuments({ teacher_id: teacher.teacher_id })).toBe(1);
    },
  );

  it("when a renamed teacher is assigned to a project, then the project shows the new name", async () => {
    const teacher = await createTeacher(t, "Before");
    const project = await createProject(t);
    expectSuccess(
      await t.gql(
        AssignTeacherDocument,
        { projectId: project.project_id, input: { new_teacher_id: teacher.teacher_id } },
        ADMIN,
      ),
    );

    expectSuccess(
      await t.gql(UpdateTeacherDocument, { teacherId: teacher.teacher_id, input: { teacher_name: "After" } }, ADMIN),
    );

    const read = await t.gql(GetProjectDocument, { projectId: project.project_id }, ADMIN);
    expect(read.data?.project?.teacher).toEqual({ teacher_id: teacher.teacher_id, teacher_name: "After" });
  });

  it("when the name is 200 characters, then it is accepted", async () => {
    const teacher = await createTeacher(t);
    const name = "t".repeat(200);

    const res = await t.gql(
      UpdateTeacherDocument,
      { teacherId: teacher.teacher_id, input: { teacher_name: name } },
      ADMIN,
    );

    expect(expectSuccess(res).data.teacher_name).toBe(name);
    expect((await t.db.models.Teacher.findOne({ teacher_id: teacher.teacher_id }).lean())!.teacher_name).toBe(name);
  });

  it("when the teacher does not exist, then it is BAD_REQUEST naming teacherId and nothing is stored", async () => {
    await createTeacher(t);
    const before = await snapshot(t);

    const res = await t.gql(UpdateTeacherDocument, { teacherId: 777_777, input: { teacher_name: "Nobody" } }, ADMIN);

    expectFailure(res, "BAD_REQUEST", "teacherId");
    expect(await snapshot(t)).toEqual(before);
    expect(await t.db.models.Teacher.exists({ teacher_id: 777_777 })).toBeNull();
  });

  it.each<[string, number | null, string, string]>([
    ["an empty teacher_name", null, "", "teacher_name"],
    ["a teacher_name of spaces only", null, "  \t ", "teacher_name"],
    ["a 201-character teacher_name", null, "t".repeat(201), "teacher_name"],
    ["teacherId 0", 0, "Name", "teacherId"],
    ["a negative teacherId", -2, "Name", "teacherId"],
  ])(
    "when called with %s, then it is BAD_REQUEST naming the field and nothing changes",
    async (_label, teacherId, name, field) => {
      const teacher = await createTeacher(t, "Unchanged");
      const before = await snapshot(t);

      const res = await t.gql(
        UpdateTeacherDocument,
        { teacherId: teacherId ?? teacher.teacher_id, input: { teacher_name: name } },
        ADMIN,
      );

      expectFailure(res, "BAD_REQUEST", field);
      expect(await snapshot(t)).toEqual(before);
    },
  );

  it("when a student renames a teacher, then it is FORBIDDEN and the name stays", async () => {
    const teacher = await createTeacher(t, "Kept");
    const before = await snapshot(t);

    const res = await t.gql(
      UpdateTeacherDocument,
      { teacherId: teacher.teacher_id, input: { teacher_name: "Changed" } },
      STUDENT,
    );

    expectFailure(res, "FORBIDDEN", /student/);
    expect(await snapshot(t)).toEqual(before);
  });

  it.each<[string, Record<string, string>]>([
    ["no X-User-Role", {}],
    ["an unknown X-User-Role", { "x-user-role": "superuser" }],
  ])("when called with %s, then it is UNAUTHORIZED and the name stays", async (_label, headers) => {
    const teacher = await createTeacher(t, "Kept");
    const before = await snapshot(t);

    const res = await t.gql(
      UpdateTeacherDocument,
      { teacherId: teacher.teacher_id, input: { teacher_name: "Changed" } },
      headers,
    );

    expectFailure(res, "UNAUTHORIZED", /X-User-Role/);
    expect(await snapshot(t)).toEqual(before);
  });
});
