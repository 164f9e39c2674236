// Revisions and history of projects: every change is recorded with its actor, time and field values, newest first;
// expected_revision gives editors optimistic concurrency; a database written before revisions existed, or by an
// earlier version whose writer died between its two writes, is brought up once when the service opens it.
import { revisionKey, upgradeProjects } from "../../src/components/projects/persistence";
import { changeLogOf } from "../../src/persistence";
import {
  AssignTeacherDocument,
  GetProjectDocument,
  ProjectHistoryDocument,
  UpdateProjectStatusDocument,
} from "../generated/graphql";
import { startTestApp, type TestApp } from "../helpers/app";
import {
  createProject,
  createTeacher,
  expectFailure,
  expectSuccess,
  ISO_TIMESTAMP,
  projectInput,
  TEACHER,
} from "./support";
import { CreateProjectDocument } from "../generated/graphql";

const AS_TEACHER = { ...TEACHER, "x-user-id": "teacher-7" };
const AS_STUDENT = { "x-user-role": "student", "x-user-id": "student-3" };

describe("revisions and history", () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(() => t.close());

  async function history(projectId: number, offset = 0, limit = 20) {
    const res = await t.gql(ProjectHistoryDocument, { projectId, offset, limit }, TEACHER);
    expect(res.errors).toBeUndefined();
    return res.data!.project!;
  }

  it("when a project is created, then it is at revision 1, created_by is the caller and the history holds its creation", async () => {
    const input = projectInput({ project_url: null });

    const created = expectSuccess(await t.gql(CreateProjectDocument, { input }, AS_STUDENT)).data;

    expect(created).toMatchObject({ revision: 1, created_by: "student-3" });
    const project = await history(created.project_id);
    expect(project.history).toMatchObject({ total: 1, offset: 0, limit: 20, has_more: false });
    const [entry] = project.history.items;
    expect(entry).toMatchObject({
      revision: 1,
      operation: "createProject",
      actor_id: "student-3",
      actor_role: "student",
    });
    expect(entry.at).toMatch(ISO_TIMESTAMP);
    expect(entry.changes).toEqual([
      { field: "project_name", from: null, to: input.project_name },
      { field: "project_desc", from: null, to: input.project_desc },
      { field: "company_id", from: null, to: String(input.company_id) },
      { field: "project_status", from: null, to: input.project_status },
      { field: "start_date", from: null, to: input.start_date },
      { field: "end_date", from: null, to: input.end_date },
    ]);
  });

  it("when a teacher is assigned and the status changed, then each change is a new revision with its actor and old and new values, newest first", async () => {
    const project = await createProject(t, { project_status: "planned" });
    const teacher = await createTeacher(t);

    const assigned = expectSuccess(
      await t.gql(
        AssignTeacherDocument,
        { projectId: project.project_id, input: { new_teacher_id: teacher.teacher_id } },
        AS_TEACHER,
      ),
    ).data;
    const moved = expectSuccess(
      await t.gql(
        UpdateProjectStatusDocument,
        { projectId: project.project_id, input: { project_status: "active" } },
        AS_TEACHER,
      ),
    ).data;

    expect(assigned.revision).toBe(2);
    expect(moved).toMatchObject({ revision: 3, project_status: "active", teacher_id: teacher.teacher_id });
    const h = await history(project.project_id);
    expect(h).toMatchObject({ revision: 3, teacher_id: teacher.teacher_id, project_status: "active" });
    expect(h.history.total).toBe(3);
    expect(h.history.items.map((i) => [i.revision, i.operation])).toEqual([
      [3, "updateProjectStatus"],
      [2, "assignTeacher"],
      [1, "createProject"],
    ]);
    expect(h.history.items[0]).toMatchObject({
      actor_id: "teacher-7",
      actor_role: "teacher",
      changes: [{ field: "project_status", from: "planned", to: "active" }],
    });
    expect(h.history.items[1].changes).toEqual([{ field: "teacher_id", from: null, to: String(teacher.teacher_id) }]);
    // The stored document is at the newest revision.
    const stored = await t.db.models.Project.findOne({ project_id: project.project_id }).lean();
    expect(stored).toMatchObject({ revision: 3, project_status: "active", teacher_id: teacher.teacher_id });
  });

  it("when the status is set to the one it has, then nothing is recorded", async () => {
    const project = await createProject(t, { project_status: "planned" });

    const same = expectSuccess(
      await t.gql(
        UpdateProjectStatusDocument,
        { projectId: project.project_id, input: { project_status: "planned" } },
        TEACHER,
      ),
    ).data;

    expect(same.revision).toBe(1);
    expect((await history(project.project_id)).history.total).toBe(1);
  });

  it("when the history is paged, then offset and limit walk from the newest change to the oldest", async () => {
    const project = await createProject(t, { project_status: "s0" });
    for (let i = 1; i <= 6; i++) {
      expectSuccess(
        await t.gql(
          UpdateProjectStatusDocument,
          { projectId: project.project_id, input: { project_status: `s${i}` } },
          TEACHER,
        ),
      );
    }

    const first = (await history(project.project_id, 0, 3)).history;
    const last = (await history(project.project_id, 6, 3)).history;
    const beyond = (await history(project.project_id, 10, 3)).history;

    expect(first).toMatchObject({ total: 7, offset: 0, limit: 3, has_more: true });
    expect(first.items.map((i) => i.revision)).toEqual([7, 6, 5]);
    expect(first.items[0].changes).toEqual([{ field: "project_status", from: "s5", to: "s6" }]);
    expect(last).toMatchObject({ total: 7, offset: 6, has_more: false });
    expect(last.items.map((i) => i.revision)).toEqual([1]);
    expect(beyond).toMatchObject({ total: 7, has_more: false, items: [] });
    const limitTooLarge = await t.gql(
      ProjectHistoryDocument,
      { projectId: project.project_id, offset: 0, limit: 101 },
      TEACHER,
    );
    expect(limitTooLarge.errors?.[0]?.extensions?.code).toBe("BAD_REQUEST");
  });

  it("when expected_revision is not the current revision, then the change is CONFLICT and nothing changes", async () => {
    const project = await createProject(t);
    const teacher = await createTeacher(t);
    expectSuccess(
      await t.gql(
        UpdateProjectStatusDocument,
        { projectId: project.project_id, input: { project_status: "review" } },
        TEACHER,
      ),
    );
    const before = await t.db.models.Project.findOne({ project_id: project.project_id }).lean();

    const staleAssign = await t.gql(
      AssignTeacherDocument,
      { projectId: project.project_id, input: { new_teacher_id: teacher.teacher_id, expected_revision: 1 } },
      TEACHER,
    );
    const staleStatus = await t.gql(
      UpdateProjectStatusDocument,
      { projectId: project.project_id, input: { project_status: "done", expected_revision: 3 } },
      TEACHER,
    );

    expectFailure(staleAssign, "CONFLICT", /revision 2.*expected_revision 1/);
    expectFailure(staleStatus, "CONFLICT", /expected_revision 3/);
    expect(await t.db.models.Project.findOne({ project_id: project.project_id }).lean()).toEqual(before);
    expect((await history(project.project_id)).history.total).toBe(2);
  });

  it("when expected_revision is the current revision, then the change succeeds", async () => {
    const project = await createProject(t);
    const teacher = await createTeacher(t);

    const assigned = expectSuccess(
      await t.gql(
        AssignTeacherDocument,
        { projectId: project.project_id, input: { new_teacher_id: teacher.teacher_id, expected_revision: 1 } },
        TEACHER,
      ),
    ).data;
    const moved = expectSuccess(
      await t.gql(
        UpdateProjectStatusDocument,
        { projectId: project.project_id, input: { project_status: "done", expected_revision: 2 } },
        TEACHER,
      ),
    ).data;

    expect(assigned).toMatchObject({ revision: 2, teacher_id: teacher.teacher_id });
    expect(moved).toMatchObject({ revision: 3, project_status: "done" });
  });

  it("when expected_revision is not a whole number of at least 1, then BAD_REQUEST names it", async () => {
    const project = await createProject(t);

    const res = await t.gql(
      UpdateProjectStatusDocument,
      { projectId: project.project_id, input: { project_status: "done", expected_revision: 0 } },
      TEACHER,
    );

    expectFailure(res, "BAD_REQUEST", /expected_revision/);
  });

  it("when a project was stored before revisions existed, then once the database is opened it reads as revision 1 and its next change is revision 2", async () => {
    const project = await createProject(t, { project_status: "planned" });
    // As such a project is stored: no revision field, no history entry.
    await t.db.models.Project.updateOne({ project_id: project.project_id }, { $unset: { revision: 1 } });
    await t.db.models.ProjectChange.deleteOne({ _id: revisionKey(project.project_id, 1) });
    await t.db.connection.db!.collection("migrations").deleteOne({ _id: "projects-at-newest-revision" as never });
    await upgradeProjects(t.db, changeLogOf(t.db));

    const read = await t.gql(GetProjectDocument, { projectId: project.project_id }, TEACHER);
    const moved = await t.gql(
      UpdateProjectStatusDocument,
      { projectId: project.project_id, input: { project_status: "active", expected_revision: 1 } },
      TEACHER,
    );

    expect(read.data?.project).toMatchObject({ revision: 1, project_status: "planned" });
    expect(expectSuccess(moved).data).toMatchObject({ revision: 2, project_status: "active" });
    expect(await t.db.models.Project.findOne({ project_id: project.project_id }).lean()).toMatchObject({
      revision: 2,
      project_status: "active",
    });
    const h = await history(project.project_id);
    expect(h.history.items.map((item) => item.revision)).toEqual([2]);
  });

  it("when an earlier version's writer died after logging a revision but before updating the project, then opening the database brings the project up to it", async () => {
    const project = await createProject(t, { project_status: "planned" });
    const teacher = await createTeacher(t);
    const stored = (await t.db.models.ProjectChange.findOne({ _id: revisionKey(project.project_id, 1) }).lean())!;
    const log = changeLogOf(t.db);
    // As that version left it: revision 2 in the log, the project document still at revision 1.
    await t.db.models.ProjectChange.create({
      seq: await t.db.ids.next("project_changes"),
      _id: revisionKey(project.project_id, 2),
      project_id: project.project_id,
      revision: 2,
      operation: "assignTeacher",
      actor_id: "died-midway",
      actor_role: "teacher",
      at: new Date(),
      set: { teacher_id: teacher.teacher_id },
      changes: [{ field: "teacher_id", from: null, to: String(teacher.teacher_id) }],
      project: { ...stored.project, teacher_id: teacher.teacher_id, revision: 2, updated_at: new Date() },
    });
    await t.db.connection.db!.collection("migrations").deleteOne({ _id: "projects-at-newest-revision" as never });

    await upgradeProjects(t.db, log);

    const read = await t.gql(GetProjectDocument, { projectId: project.project_id }, TEACHER);
    expect(read.data?.project).toMatchObject({ revision: 2, teacher_id: teacher.teacher_id });
    const moved = await t.gql(
      UpdateProjectStatusDocument,
      { projectId: project.project_id, input: { project_status: "active" } },
      TEACHER,
    );
    expect(expectSuccess(moved).data).toMatchObject({ revision: 3, teacher_id: teacher.teacher_id });
    expect((await history(project.project_id)).history.items.map((i) => i.operation)).toEqual([
      "updateProjectStatus",
      "assignTeacher",
      "createProject",
    ]);
  });
});
