// assignTeacher: success (payload, resolved teacher, stored teacher_id), re-assignment, NOT_FOUND for an unknown
// project or teacher, CONFLICT for the teacher the project already has, id validation and roles.
import { AssignTeacherDocument, GetTeacherDocument } from "../generated/graphql";
import { startTestApp, type TestApp } from "../helpers/app";
import {
  ADMIN,
  counts,
  createProject,
  createTeacher,
  expectFailure,
  expectSuccess,
  snapshot,
  STUDENT,
  TEACHER,
} from "./support";

describe("assignTeacher", () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(async () => {
    await t.close();
  });

  it("when a teacher assigns an existing teacher to a project, then the payload shows the teacher and the database stores teacher_id", async () => {
    const project = await createProject(t);
    const teacher = await createTeacher(t, "Ada Lovelace");

    const res = await t.gql(
      AssignTeacherDocument,
      { projectId: project.project_id, input: { new_teacher_id: teacher.teacher_id } },
      TEACHER,
    );

    const payload = expectSuccess(res);
    expect(payload.message).toBe("Teacher assigned to project");
    expect(payload.data).toMatchObject({
      project_id: project.project_id,
      project_name: project.project_name,
      teacher_id: teacher.teacher_id,
      teacher: { teacher_id: teacher.teacher_id, teacher_name: "Ada Lovelace" },
    });
    const stored = await t.db.models.Project.findOne({ project_id: project.project_id }).lean();
    expect(stored!.teacher_id).toBe(teacher.teacher_id);
    expect(stored!.project_name).toBe(project.project_name);
  });

  it("when an admin assigns a different teacher, then the project moves to that teacher and the teachers' project lists follow", async () => {
    const project = await createProject(t);
    const first = await createTeacher(t);
    const second = await createTeacher(t);
    expectSuccess(
      await t.gql(
        AssignTeacherDocument,
        { projectId: project.project_id, input: { new_teacher_id: first.teacher_id } },
        ADMIN,
      ),
    );

    const res = await t.gql(
      AssignTeacherDocument,
      { projectId: project.project_id, input: { new_teacher_id: second.teacher_id } },
      ADMIN,
    );

    expect(expectSuccess(res).data.teacher).toEqual({
      teacher_id: second.teacher_id,
      teacher_name: second.teacher_name,
    });
    expect((await t.db.models.Project.findOne({ project_id: project.project_id }).lean())!.teacher_id).toBe(
      second.teacher_id,
    );
    const firstNow = await t.gql(GetTeacherDocument, { teacherId: first.teacher_id }, ADMIN);
    const secondNow = await t.gql(GetTeacherDocument, { teacherId: second.teacher_id }, ADMIN);
    expect(firstNow.data?.teacher?.projects).toEqual([]);
    expect(secondNow.data?.teacher?.projects).toEqual([
      { project_id: project.project_id, project_name: project.project_name },
    ]);
  });

  it("when the project already has that teacher, then it is CONFLICT and nothing changes", async () => {
    const project = await createProject(t);
    const teacher = await createTeacher(t);
    const variables = { projectId: project.project_id, input: { new_teacher_id: teacher.teacher_id } };
    expectSuccess(await t.gql(AssignTeacherDocument, variables, TEACHER));
    const before = await snapshot(t);

    const res = await t.gql(AssignTeacherDocument, variables, TEACHER);

    expectFailure(res, "CONFLICT", new RegExp(`teacher ${teacher.teacher_id} is already assigned`));
    expect(await snapshot(t)).toEqual(before);
  });

  it("when the project does not exist, then it is NOT_FOUND naming the project and nothing changes", async () => {
    const teacher = await createTeacher(t);
    const before = await snapshot(t);

    const res = await t.gql(
      AssignTeacherDocument,
      { projectId: 999_999, input: { new_teacher_id: teacher.teacher_id } },
      TEACHER,
    );

    expectFailure(res, "NOT_FOUND", /project 999999/);
    expect(await snapshot(t)).toEqual(before);
  });

  it("when the teacher does not exist, then it is NOT_FOUND naming new_teacher_id and the project keeps no teacher", async () => {
    const project = await createProject(t);
    const before = await snapshot(t);

    const res = await t.gql(
      AssignTeacherDocument,
      { projectId: project.project_id, input: { new_teacher_id: 888_888 } },
      TEACHER,
    );

    expectFailure(res, "NOT_FOUND", "new_teacher_id");
    expect(await snapshot(t)).toEqual(before);
    expect((await t.db.models.Project.findOne({ project_id: project.project_id }).lean())!.teacher_id).toBeNull();
  });

  it.each<[string, number, number | "teacher", string]>([
    ["projectId 0", 0, "teacher", "projectId"],
    ["a negative projectId", -1, "teacher", "projectId"],
    ["new_teacher_id 0", 1, 0, "new_teacher_id"],
    ["a negative new_teacher_id", 1, -7, "new_teacher_id"],
  ])(
    "when called with %s, then it is BAD_REQUEST naming the field and nothing changes",
    async (_label, projectId, teacherId, field) => {
      const project = await createProject(t);
      const teacher = await createTeacher(t);
      const before = await snapshot(t);

      const res = await t.gql(
        AssignTeacherDocument,
        {
          projectId: projectId === 1 ? project.project_id : projectId,
          input: { new_teacher_id: teacherId === "teacher" ? teacher.teacher_id : teacherId },
        },
        TEACHER,
      );

      expectFailure(res, "BAD_REQUEST", field);
      expect(await snapshot(t)).toEqual(before);
    },
  );

  it("when a student assigns a teacher, then it is FORBIDDEN and nothing changes", async () => {
    const project = await createProject(t);
    const teacher = await createTeacher(t);
    const before = await snapshot(t);

    const res = await t.gql(
      AssignTeacherDocument,
      { projectId: project.project_id, input: { new_teacher_id: teacher.teacher_id } },
      STUDENT,
    );

    expectFailure(res, "FORBIDDEN", /student/);
    expect(await snapshot(t)).toEqual(before);
  });

  it.each<[string, Record<string, string>]>([
    ["no X-User-Role", {}],
    ["an unknown X-User-Role", { "x-user-role": "janitor" }],
  ])("when called with %s, then it is UNAUTHORIZED and nothing changes", async (_label, headers) => {
    const project = await createProject(t);
    const teacher = await createTeacher(t);
    const before = await counts(t);

    const res = await t.gql(
      AssignTeacherDocument,
      { projectId: project.project_id, input: { new_teacher_id: teacher.teacher_id } },
      headers,
    );

    expectFailure(res, "UNAUTHORIZED", /X-User-Role/);
    expect(await counts(t)).toEqual(before);
    expect((await t.db.models.Project.findOne({ project_id: project.project_id }).lean())!.teacher_id).toBeNull();
  });
});
