// A project's whole life (contract, sixth revision): archive and unarchive, each a revision of its own in the change
// log; an archived project stays readable by id but cannot be changed (CONFLICT, ARCHIVED); deleteProject (admin)
// removes it from every read, frees its name, and leaves the change log a last entry holding the project as it was; a
// change racing the delete happens before it or is NOT_FOUND, never after it. On GraphQL and REST, embedded database.
import { startTestApp, type TestApp } from "../helpers/app";
import { ADMIN, createProject, createTeacher, STUDENT, TEACHER } from "./support";

type Headers = Record<string, string>;

async function gql(t: TestApp, query: string, variables: Record<string, unknown>, headers: Headers = ADMIN) {
  const res = await t.http<{ data?: Record<string, Record<string, unknown> | null> }>("POST", "/graphql", {
    body: { query, variables },
    headers,
  });
  return res.body.data ?? {};
}

const PAYLOAD = "success code message errors { reason } data { project_id revision archived_at project_status }";
const archive = (t: TestApp, id: number, headers: Headers = STUDENT) =>
  gql(t, `mutation ($id: Int!) { archiveProject(projectId: $id) { ${PAYLOAD} } }`, { id }, headers).then(
    (d) => d.archiveProject!,
  );
const unarchive = (t: TestApp, id: number, headers: Headers = STUDENT) =>
  gql(t, `mutation ($id: Int!) { unarchiveProject(projectId: $id) { ${PAYLOAD} } }`, { id }, headers).then(
    (d) => d.unarchiveProject!,
  );
const remove = (t: TestApp, id: number, headers: Headers = ADMIN) =>
  gql(
    t,
    "mutation ($id: Int!) { deleteProject(projectId: $id) { success code errors { reason } data { id } } }",
    { id },
    headers,
  ).then((d) => d.deleteProject!);
const setStatus = (t: TestApp, id: number, project_status: string) =>
  gql(
    t,
    `mutation ($id: Int!, $s: String!) { updateProjectStatus(projectId: $id, input: { project_status: $s }) { ${PAYLOAD} } }`,
    { id, s: project_status },
    TEACHER,
  ).then((d) => d.updateProjectStatus!);
const read = (t: TestApp, id: number) =>
  gql(t, "query ($id: Int!) { project(projectId: $id) { project_id archived_at revision } }", { id }).then(
    (d) => d.project,
  );
const globalId = (id: number) => Buffer.from(`Project:${id}`).toString("base64url");

describe("a project's whole life", () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(() => t.close());

  it("when a project is archived, then it reads with archived_at, refuses changes and a second archive (ARCHIVED) until unarchived, and both are revisions in its history", async () => {
    const project = await createProject(t);
    const teacher = await createTeacher(t);

    const archived = await archive(t, project.project_id);
    expect(archived).toMatchObject({ success: true, code: null, data: { revision: 2 } });
    const at = (archived.data as { archived_at: string }).archived_at;
    expect(new Date(at).toISOString()).toBe(at);
    expect(await read(t, project.project_id)).toEqual({ project_id: project.project_id, archived_at: at, revision: 2 });

    for (const refused of [
      await archive(t, project.project_id),
      await setStatus(t, project.project_id, "active"),
      (
        await gql(
          t,
          "mutation ($id: Int!, $t: Int!) { assignTeacher(projectId: $id, input: { new_teacher_id: $t }) { success code errors { reason } } }",
          { id: project.project_id, t: teacher.teacher_id },
          TEACHER,
        )
      ).assignTeacher!,
    ]) {
      expect(refused).toMatchObject({ success: false, code: "CONFLICT", errors: [{ reason: "ARCHIVED" }] });
    }

    const restored = await unarchive(t, project.project_id);
    expect(restored).toMatchObject({ success: true, data: { revision: 3, archived_at: null } });
    expect(await unarchive(t, project.project_id)).toMatchObject({
      success: false,
      code: "CONFLICT",
      errors: [{ reason: "NOT_ARCHIVED" }],
    });
    expect(await setStatus(t, project.project_id, "active")).toMatchObject({ success: true, data: { revision: 4 } });
    const history = await gql(
      t,
      "query ($id: Int!) { project(projectId: $id) { history(limit: 10) { items { revision operation changes { field from to } } } } }",
      { id: project.project_id },
    );
    const items = (history.project as { history: { items: { operation: string; changes: object[] }[] } }).history.items;
    expect(items.map((i) => i.operation)).toEqual([
      "updateProjectStatus",
      "unarchiveProject",
      "archiveProject",
      "createProject",
    ]);
    expect(items[1].changes).toEqual([{ field: "archived_at", from: at, to: null }]);
    expect(items[2].changes).toEqual([{ field: "archived_at", from: null, to: at }]);
  });

  it("when a project is archived, then it leaves every list, connection and count unless the where asks for archived ones", async () => {
    const company_id = 9000 + Math.floor(Math.random() * 1000);
    const kept = await createProject(t, { company_id });
    const gone = await createProject(t, { company_id });
    expect(await archive(t, gone.project_id)).toMatchObject({ success: true });

    const lists = async (where: Record<string, unknown>) => {
      const data = await gql(
        t,
        `query ($where: ProjectWhere) {
          projects(where: $where, limit: 10) { items { project_id } total }
          projectsConnection(where: $where, first: 10) { edges { node { project_id } } totalCount }
          projectCounts(where: $where, groupBy: PROJECT_STATUS) { total groups { key count } }
        }`,
        { where: { company_id: { eq: company_id }, ...where } },
      );
      const page = data.projects as { items: { project_id: number }[]; total: number };
      const connection = data.projectsConnection as { edges: { node: { project_id: number } }[]; totalCount: number };
      const counts = data.projectCounts as { total: number };
      return {
        page: page.items.map((p) => p.project_id),
        total: page.total,
        connection: connection.edges.map((e) => e.node.project_id),
        totalCount: connection.totalCount,
        counted: counts.total,
      };
    };
    const open = { page: [kept.project_id], total: 1, connection: [kept.project_id], totalCount: 1, counted: 1 };
    const archivedOnes = {
      page: [gone.project_id],
      total: 1,
      connection: [gone.project_id],
      totalCount: 1,
      counted: 1,
    };

    expect(await lists({})).toEqual(open);
    expect(await lists({ archived: false })).toEqual(open);
    expect(await lists({ archived: true })).toEqual(archivedOnes);
    // Readable by id all the same.
    expect(await read(t, gone.project_id)).toMatchObject({ project_id: gone.project_id });
    expect(await unarchive(t, gone.project_id)).toMatchObject({ success: true });
    expect((await lists({})).page).toEqual([kept.project_id, gone.project_id]);
  });

  it("when an admin deletes a project, then it is gone from every read, its name is free again, its log ends with deleteProject, and deleting again is NOT_FOUND; other roles are FORBIDDEN", async () => {
    const project = await createProject(t);
    expect(await remove(t, project.project_id, TEACHER)).toMatchObject({ success: false, code: "FORBIDDEN" });

    expect(await remove(t, project.project_id)).toEqual({
      success: true,
      code: null,
      errors: [],
      data: { id: globalId(project.project_id) },
    });

    expect(await read(t, project.project_id)).toBeNull();
    const node = await gql(t, "query ($id: ID!) { node(id: $id) { id } }", { id: globalId(project.project_id) });
    expect(node.node).toBeNull();
    const again = await createProject(t, { project_name: project.project_name, company_id: project.company_id });
    expect(again.project_id).toBeGreaterThan(project.project_id);
    const entries = await t.db.models.ProjectChange.find({ project_id: project.project_id }).sort({ seq: 1 }).lean();
    expect(entries.map((e) => [e.revision, e.operation])).toEqual([
      [1, "createProject"],
      [2, "deleteProject"],
    ]);
    expect(entries[1].project).toMatchObject({ project_id: project.project_id, project_name: project.project_name });
    expect(await remove(t, project.project_id)).toMatchObject({ success: false, code: "NOT_FOUND" });
  });

  it("when status changes race a delete, then each change either comes before the delete in the log or is NOT_FOUND", async () => {
    const project = await createProject(t);

    const answers = await Promise.all([
      ...Array.from({ length: 10 }, (_, i) => setStatus(t, project.project_id, `s-${i}`)),
      remove(t, project.project_id),
      ...Array.from({ length: 10 }, (_, i) => setStatus(t, project.project_id, `t-${i}`)),
    ]);

    const deleted = answers[10];
    expect(deleted).toMatchObject({ success: true });
    const changes = answers.filter((a) => a !== deleted);
    for (const a of changes) expect(a.success || a.code === "NOT_FOUND").toBe(true);
    const entries = await t.db.models.ProjectChange.find({ project_id: project.project_id }).sort({ seq: 1 }).lean();
    const succeeded = changes.filter((a) => a.success).length;
    // Creation, every change that succeeded, then the delete last: revisions 1 … n with no gap.
    expect(entries.map((e) => e.revision)).toEqual(Array.from({ length: succeeded + 2 }, (_, i) => i + 1));
    expect(entries.at(-1)!.operation).toBe("deleteProject");
    expect(await t.db.models.Project.countDocuments({ project_id: project.project_id })).toBe(0);
  });

  it("when REST archives, unarchives and deletes, then each answers the envelope of the other routes", async () => {
    const project = await createProject(t);
    const path = `/projects/${project.project_id}`;

    const archived = await t.http<{ data: { archived_at: string | null } }>("PUT", `${path}/archive`, {
      headers: STUDENT,
    });
    expect(archived).toMatchObject({ status: 200, body: { success: true, message: "Project archived" } });
    expect(archived.body.data.archived_at).not.toBeNull();
    expect(await t.http("PUT", `${path}/archive`, { headers: STUDENT })).toMatchObject({
      status: 409,
      body: { success: false, code: "CONFLICT", errors: [{ reason: "ARCHIVED" }] },
    });
    expect(await t.http("PUT", `${path}/unarchive`, { headers: STUDENT })).toMatchObject({
      status: 200,
      body: { success: true, message: "Project unarchived", data: { archived_at: null } },
    });
    expect((await t.http("DELETE", path, { headers: STUDENT })).status).toBe(403);
    expect(await t.http("DELETE", path, { headers: ADMIN })).toEqual({
      status: 200,
      body: { success: true, message: "Project deleted", data: { id: globalId(project.project_id) } },
    });
    expect((await t.http("DELETE", path, { headers: ADMIN })).status).toBe(404);
    expect((await t.http("PUT", `${path}/archive`, { headers: STUDENT })).status).toBe(404);
  });
});
