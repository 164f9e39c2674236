// Per-request DataLoaders: answers in key order, and a mutation earlier in the same request never leaves a stale
// cached teacher or teacher's project list for a later field of that request.
import { UNRESTRICTED } from "../../src/components/projects";
import { createLoaders } from "../../src/graphql/context";
import { createServices } from "../../src/services";
import {
  AssignTwiceReadingTeacherProjectsDocument,
  ChangeStatusReadingTeacherProjectsDocument,
  ProjectsWithTeachersDocument,
  ReassignReadingTeacherProjectsDocument,
  RenameTeacherBetweenReadsDocument,
} from "../generated/graphql";
import { startTestApp, type TestApp } from "../helpers/app";
import { silentLogger } from "../helpers/fixtures";
import { ADMIN, insertProjects, insertTeachers } from "./support";

describe("per-request loaders", () => {
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

  it("when teachers are loaded by ids in any order, then answers follow the keys, with null for an unknown id", async () => {
    await insertTeachers(t.db, [1, 2, 3]);
    const loaders = createLoaders(createServices(t.db, undefined, silentLogger), UNRESTRICTED);
    const teachers = await loaders.teacherById.loadMany([3, 99, 1, 2]);
    expect(teachers.map((x) => (x && !(x instanceof Error) ? x.teacher_id : x))).toEqual([3, null, 1, 2]);
  });

  it("when projects are loaded by teacher ids in any order, then each key gets its own projects ordered by project_id", async () => {
    await insertTeachers(t.db, [1, 2, 3]);
    await insertProjects(t.db, [
      { project_id: 4, teacher_id: 2 },
      { project_id: 1, teacher_id: 1 },
      { project_id: 3, teacher_id: 2 },
      { project_id: 2, teacher_id: 1 },
      { project_id: 5, teacher_id: null },
    ]);
    const loaders = createLoaders(createServices(t.db, undefined, silentLogger), UNRESTRICTED);
    const lists = await Promise.all(
      [2, 3, 1, 7].map((id) => loaders.projectsByTeacherId.load({ teacher_id: id, offset: 0, limit: 20 })),
    );
    expect(lists.map((ps) => ps.map((p) => p.project_id))).toEqual([[3, 4], [], [1, 2], []]);
  });

  it("when projects list teachers out of id order, then each project gets its own teacher", async () => {
    await insertTeachers(t.db, [1, 2, 3]);
    await insertProjects(t.db, [
      { project_id: 1, teacher_id: 3 },
      { project_id: 2, teacher_id: 1 },
      { project_id: 3, teacher_id: 2 },
      { project_id: 4, teacher_id: 3 },
    ]);
    const res = await t.gql(ProjectsWithTeachersDocument, {}, ADMIN);
    expect(res.errors).toBeUndefined();
    expect(res.data!.projects.items.map((p) => [p.project_id, p.teacher?.teacher_name])).toEqual([
      [1, "Teacher 3"],
      [2, "Teacher 1"],
      [3, "Teacher 2"],
      [4, "Teacher 3"],
    ]);
  });

  it("when one request reads a teacher, renames it, and reads it again through a project, then the new name is seen", async () => {
    await insertTeachers(t.db, [1]);
    await insertProjects(t.db, [{ project_id: 1, teacher_id: 1, project_status: "proposed" }]);
    const res = await t.gql(
      RenameTeacherBetweenReadsDocument,
      { projectId: 1, status: "proposed", teacherId: 1, name: "Grace Hopper" },
      ADMIN,
    );
    expect(res.errors).toBeUndefined();
    expect(res.data!.before.data?.teacher?.teacher_name).toBe("Teacher 1");
    expect(res.data!.rename.success).toBe(true);
    expect(res.data!.after.data?.teacher).toEqual({ teacher_id: 1, teacher_name: "Grace Hopper" });
  });

  it("when one request assigns a teacher to two projects, then teacher.projects after the second lists both", async () => {
    await insertTeachers(t.db, [1]);
    await insertProjects(t.db, [{ project_id: 1 }, { project_id: 2 }]);
    const res = await t.gql(AssignTwiceReadingTeacherProjectsDocument, { first: 1, second: 2, teacherId: 1 }, ADMIN);
    expect(res.errors).toBeUndefined();
    expect(res.data!.first.data?.teacher?.projects).toEqual([{ project_id: 1 }]);
    expect(res.data!.second.data?.teacher?.projects).toEqual([{ project_id: 1 }, { project_id: 2 }]);
  });

  it("when one request moves a project to another teacher, then the first teacher's projects no longer list it", async () => {
    await insertTeachers(t.db, [1, 2]);
    await insertProjects(t.db, [{ project_id: 1 }, { project_id: 2 }]);
    const res = await t.gql(ReassignReadingTeacherProjectsDocument, { p1: 1, p2: 2, a: 1, b: 2 }, ADMIN);
    expect(res.errors).toBeUndefined();
    expect(res.data!.toA.data?.teacher).toEqual({ teacher_id: 1, projects: [{ project_id: 1 }] });
    expect(res.data!.toB.data?.teacher).toEqual({ teacher_id: 2, projects: [{ project_id: 1 }] });
    expect(res.data!.secondToA.data?.teacher).toEqual({ teacher_id: 1, projects: [{ project_id: 2 }] });
  });

  it("when one request changes a project's status after reading teacher.projects, then a later read shows the new status", async () => {
    await insertTeachers(t.db, [1]);
    await insertProjects(t.db, [
      { project_id: 1, teacher_id: 1, project_status: "proposed" },
      { project_id: 2, teacher_id: 1, project_status: "proposed" },
    ]);
    const res = await t.gql(
      ChangeStatusReadingTeacherProjectsDocument,
      { p1: 1, p1Status: "proposed", p2: 2, p2Status: "in_progress" },
      ADMIN,
    );
    expect(res.errors).toBeUndefined();
    expect(res.data!.before.data?.teacher?.projects).toEqual([
      { project_id: 1, project_status: "proposed" },
      { project_id: 2, project_status: "proposed" },
    ]);
    expect(res.data!.after.data?.teacher?.projects).toEqual([
      { project_id: 1, project_status: "proposed" },
      { project_id: 2, project_status: "in_progress" },
    ]);
  });
});
