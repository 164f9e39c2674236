// Relations: Project.teacher and Teacher.projects, through queries and through mutations.
import {
  AssignTeacherDocument,
  CreateProjectDocument,
  CreateTeacherDocument,
  GetProjectDocument,
  GetTeacherDocument,
  ListProjectsDocument,
  ProjectsWithTeachersDocument,
} from "../generated/graphql";
import { startTestApp, type TestApp } from "../helpers/app";
import { ADMIN, STUDENT, insertProjects, insertTeachers } from "./support";

describe("project and teacher relations", () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(async () => {
    await t.close();
  });
  beforeEach(async () => {
    await Promise.all([
      t.db.models.Project.deleteMany({}),
      t.db.models.ProjectChange.deleteMany({}),
      t.db.models.Teacher.deleteMany({}),
    ]);
  });

  it("when a project has no teacher, then Project.teacher and teacher_id are null", async () => {
    await insertProjects(t.db, [{ project_id: 1 }]);
    const res = await t.gql(GetProjectDocument, { projectId: 1 }, STUDENT);
    expect(res.errors).toBeUndefined();
    expect(res.data!.project).toMatchObject({ project_id: 1, teacher_id: null, teacher: null });
  });

  it("when a list mixes assigned and unassigned projects, then only the assigned ones have a teacher", async () => {
    await insertTeachers(t.db, [1]);
    await insertProjects(t.db, [{ project_id: 1, teacher_id: 1 }, { project_id: 2 }]);
    const res = await t.gql(ProjectsWithTeachersDocument, {}, STUDENT);
    expect(res.errors).toBeUndefined();
    expect(res.data!.projects.items).toEqual([
      { project_id: 1, teacher: { teacher_id: 1, teacher_name: "Teacher 1", projects: [{ project_id: 1 }] } },
      { project_id: 2, teacher: null },
    ]);
  });

  it("when a teacher has projects, then Teacher.projects lists exactly the assigned ones ordered by project_id", async () => {
    await insertTeachers(t.db, [1, 2]);
    await insertProjects(t.db, [
      { project_id: 9, teacher_id: 1 },
      { project_id: 2, teacher_id: 2 },
      { project_id: 5, teacher_id: 1 },
      { project_id: 7 },
      { project_id: 1, teacher_id: 1 },
    ]);
    const res = await t.gql(GetTeacherDocument, { teacherId: 1 }, STUDENT);
    expect(res.errors).toBeUndefined();
    expect(res.data!.teacher!.projects.map((p) => p.project_id)).toEqual([1, 5, 9]);
  });

  it("when a teacher has no project, then Teacher.projects is an empty list", async () => {
    await insertTeachers(t.db, [1]);
    const res = await t.gql(GetTeacherDocument, { teacherId: 1 }, STUDENT);
    expect(res.data!.teacher).toEqual({ teacher_id: 1, teacher_name: "Teacher 1", projects: [] });
  });

  it("when a teacher is created and assigned through the mutations, then both sides of the relation show it", async () => {
    const teacher = await t.gql(CreateTeacherDocument, { input: { teacher_name: "Ada Lovelace" } }, ADMIN);
    const project = await t.gql(
      CreateProjectDocument,
      {
        input: {
          project_name: "Analytical Engine",
          project_desc: "Notes on the engine",
          company_id: 3,
          project_status: "proposed",
          start_date: "2025-02-01",
          end_date: "2025-09-30",
        },
      },
      ADMIN,
    );
    const teacherId = teacher.data!.createTeacher.data!.teacher_id;
    const projectId = project.data!.createProject.data!.project_id;
    const assigned = await t.gql(AssignTeacherDocument, { projectId, input: { new_teacher_id: teacherId } }, ADMIN);
    expect(assigned.data!.assignTeacher.data!.teacher).toEqual({ teacher_id: teacherId, teacher_name: "Ada Lovelace" });

    const readProject = await t.gql(GetProjectDocument, { projectId }, STUDENT);
    expect(readProject.data!.project!.teacher).toEqual({ teacher_id: teacherId, teacher_name: "Ada Lovelace" });
    const readTeacher = await t.gql(GetTeacherDocument, { teacherId }, STUDENT);
    expect(readTeacher.data!.teacher!.projects).toEqual([{ project_id: projectId, project_name: "Analytical Engine" }]);
    const byTeacher = await t.gql(ListProjectsDocument, { filter: { teacher_id: teacherId } }, STUDENT);
    expect(byTeacher.data!.projects.items.map((p) => p.project_id)).toEqual([projectId]);
  });

  it("when a project names a teacher that no longer exists, then Project.teacher is null rather than an error", async () => {
    await insertProjects(t.db, [{ project_id: 1, teacher_id: 42 }]);
    const res = await t.gql(GetProjectDocument, { projectId: 1 }, STUDENT);
    expect(res.errors).toBeUndefined();
    expect(res.data!.project).toMatchObject({ teacher_id: 42, teacher: null });
  });
});
