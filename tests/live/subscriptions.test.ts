// Live updates over WebSocket (graphql-transport-ws, a real graphql-ws client): a project's changes and every
// project's changes arrive as committed, in order; cursors and after_revision replay what was missed, then go live
// without gap or duplicate; filters see projects enter and leave; bad cursors and revisions are BAD_REQUEST naming the
// argument; the document limits of HTTP hold here too; only subscriptions run over the socket.
import {
  AssignTeacherDocument,
  ProjectChangedDocument,
  ProjectChangesDocument,
  UpdateProjectStatusDocument,
  type ProjectChangesSubscription,
} from "../generated/graphql";
import { startTestApp, type TestApp } from "../helpers/app";
import { liveClient, subscribe, type LiveClient, type Subscription } from "../helpers/live";
import { createProject, createTeacher, TEACHER } from "../operations/support";

const AS_STUDENT = { "x-user-role": "student", "x-user-id": "student-9" };

type Event = ProjectChangesSubscription["projectChanges"];
const keyOf = (e: Pick<Event, "project_id" | "change">) => `${e.project_id}:${e.change.revision}`;

describe("live updates of projects", () => {
  let t: TestApp;
  let live: LiveClient;
  beforeAll(async () => {
    t = await startTestApp({ config: { subscriptionPollMs: 50 } });
  });
  afterAll(() => t.close());
  beforeEach(() => {
    live = liveClient(t, AS_STUDENT);
  });
  afterEach(() => live.dispose());

  async function setStatus(projectId: number, project_status: string) {
    const res = await t.gql(UpdateProjectStatusDocument, { projectId, input: { project_status } }, TEACHER);
    expect(res.data?.updateProjectStatus.success).toBe(true);
    return res.data!.updateProjectStatus.data!;
  }

  /** A cursor of the log's current end: the creation of a fresh project, seen through its own replay. */
  async function cursorNow(): Promise<string> {
    const project = await createProject(t);
    const sub = subscribe(live, ProjectChangedDocument, { projectId: project.project_id, afterRevision: 0 });
    const [created] = await sub.received(1);
    sub.stop();
    return created.projectChanged.cursor;
  }

  it("when a project is changed, then its subscriber gets each change with the project as of it, in order", async () => {
    const project = await createProject(t, { project_status: "planned" });
    const teacher = await createTeacher(t);
    const sub = subscribe(live, ProjectChangedDocument, { projectId: project.project_id, afterRevision: 1 });
    await t.gql(
      AssignTeacherDocument,
      { projectId: project.project_id, input: { new_teacher_id: teacher.teacher_id } },
      { ...TEACHER, "x-user-id": "t-1" },
    );
    await setStatus(project.project_id, "active");

    const events = (await sub.received(2)).map((e) => e.projectChanged);

    expect(events.map((e) => [e.change.revision, e.change.operation])).toEqual([
      [2, "assignTeacher"],
      [3, "updateProjectStatus"],
    ]);
    expect(events[0]).toMatchObject({
      project_id: project.project_id,
      change: {
        actor_id: "t-1",
        actor_role: "teacher",
        changes: [{ field: "teacher_id", from: null, to: String(teacher.teacher_id) }],
      },
      project: { revision: 2, teacher_id: teacher.teacher_id, project_status: "planned", teacher: teacher },
    });
    expect(events[1].project).toMatchObject({ revision: 3, project_status: "active", teacher_id: teacher.teacher_id });
    expect(events[1].change.changes).toEqual([{ field: "project_status", from: "planned", to: "active" }]);
    expect(new Set(events.map((e) => e.cursor)).size).toBe(2);
  });

  it("when after_revision is given, then the revisions after it are replayed first, then live ones follow", async () => {
    const project = await createProject(t, { project_status: "s0" });
    for (const status of ["s1", "s2", "s3"]) await setStatus(project.project_id, status);

    const sub = subscribe(live, ProjectChangedDocument, { projectId: project.project_id, afterRevision: 1 });
    await sub.received(3);
    await setStatus(project.project_id, "s4");
    const events = await sub.received(4);

    expect(events.map((e) => [e.projectChanged.change.revision, e.projectChanged.project.project_status])).toEqual([
      [2, "s1"],
      [3, "s2"],
      [4, "s3"],
      [5, "s4"],
    ]);
  });

  it("when after_revision is beyond the project's revision, or the project does not exist, then the subscription fails naming it", async () => {
    const project = await createProject(t);
    const beyond = subscribe(live, ProjectChangedDocument, { projectId: project.project_id, afterRevision: 2 });
    const missing = subscribe(live, ProjectChangedDocument, { projectId: 999_999, afterRevision: null });

    expect(await beyond.failed()).toEqual([
      expect.objectContaining({
        message: expect.stringMatching(/after_revision 2 is beyond project \d+'s revision 1/),
        extensions: { code: "BAD_REQUEST", reason: "OUT_OF_RANGE", field: "after_revision" },
      }),
    ]);
    expect(await missing.failed()).toEqual([
      expect.objectContaining({
        message: "project 999999 does not exist",
        extensions: { code: "NOT_FOUND", reason: "NOT_FOUND", field: "projectId" },
      }),
    ]);
  });

  it("when every project is watched from a cursor, then each change after it arrives once, in commit order", async () => {
    const after = await cursorNow();
    const sub = subscribe(live, ProjectChangesDocument, { after });
    const a = await createProject(t);
    const b = await createProject(t);
    await setStatus(a.project_id, "active");
    await setStatus(b.project_id, "active");

    const events = (await sub.received(4)).map((e) => e.projectChanges);

    expect(events.map(keyOf)).toEqual([
      `${a.project_id}:1`,
      `${b.project_id}:1`,
      `${a.project_id}:2`,
      `${b.project_id}:2`,
    ]);
  });

  it("when a client reconnects with its last cursor, then it gets exactly what it missed, then live changes", async () => {
    const after = await cursorNow();
    const project = await createProject(t);
    const first = subscribe(live, ProjectChangesDocument, { after });
    const [seen] = await first.received(1);
    await live.dispose();
    // Changes while disconnected.
    await setStatus(project.project_id, "missed-1");
    await setStatus(project.project_id, "missed-2");

    live = liveClient(t, AS_STUDENT);
    const again = subscribe(live, ProjectChangesDocument, { after: seen.projectChanges.cursor });
    await again.received(2);
    await setStatus(project.project_id, "live");
    const events = (await again.received(3)).map((e) => e.projectChanges);

    expect(events.map((e) => [e.change.revision, e.project.project_status])).toEqual([
      [2, "missed-1"],
      [3, "missed-2"],
      [4, "live"],
    ]);
  });

  it("when a filter is given, then only changes of matching projects arrive, including those that leave the filter", async () => {
    const after = await cursorNow();
    const sub = subscribe(live, ProjectChangesDocument, { after, filter: { project_status: "review" } });
    const other = await createProject(t, { project_status: "draft" });
    const watched = await createProject(t, { project_status: "review" });
    await setStatus(other.project_id, "done");
    await setStatus(watched.project_id, "done"); // leaves the filter: still sent
    await setStatus(watched.project_id, "archived"); // outside before and after: not sent
    await setStatus(other.project_id, "review"); // enters the filter

    const events = (await sub.received(3)).map((e) => e.projectChanges);
    await setStatus(watched.project_id, "review"); // a marker: every change before it has been passed
    await sub.received(4);

    expect(sub.events.map((e) => [e.projectChanges.project_id, e.projectChanges.project.project_status])).toEqual([
      [watched.project_id, "review"],
      [watched.project_id, "done"],
      [other.project_id, "review"],
      [watched.project_id, "review"],
    ]);
    expect(events).toHaveLength(3);
  });

  it.each([
    ["is not base64 of a cursor", "not a cursor!"],
    ["names no position of the log", Buffer.from("v1:987654321").toString("base64url")],
    ["has another version", Buffer.from("v9:1").toString("base64url")],
  ])("when the cursor %s, then the subscription fails with BAD_REQUEST naming after", async (_what, after) => {
    const sub: Subscription<unknown> = subscribe(live, ProjectChangesDocument, { after });
    expect(await sub.failed()).toEqual([
      expect.objectContaining({
        message: expect.stringMatching(/^after is not a cursor/),
        extensions: { code: "BAD_REQUEST", reason: "INVALID_CURSOR", field: "after" },
      }),
    ]);
  });

  it("when a subscription document breaks the depth, alias or cost limits, then it is refused before it runs", async () => {
    const errorsOf = (query: string) =>
      new Promise<unknown>((resolve) => {
        live.client.subscribe(
          { query },
          { next: () => undefined, error: resolve, complete: () => resolve("completed") },
        );
      });
    const nested = `subscription { projectChanges { project { teacher { projects(limit: 100) {
      teacher { projects(limit: 100) { project_id } } } } } } }`;
    const deep = `subscription { projectChanges { project { teacher { projects { teacher { projects {
      teacher { projects { project_id } } } } } } } } }`;
    const aliases = `subscription { projectChanges { ${Array.from({ length: 16 }, (_, i) => `a${i}: cursor`).join(" ")} } }`;

    expect(await errorsOf(nested)).toEqual([
      expect.objectContaining({
        message: expect.stringMatching(/^Query cost \d+ exceeds the maximum of 10000/),
        extensions: { code: "BAD_REQUEST", reason: "TOO_COMPLEX" },
      }),
    ]);
    expect(await errorsOf(deep)).toEqual([
      expect.objectContaining({ message: expect.stringMatching(/depth/i), extensions: { code: "BAD_REQUEST" } }),
    ]);
    expect(await errorsOf(aliases)).toEqual([
      expect.objectContaining({ message: expect.stringMatching(/aliases/i), extensions: { code: "BAD_REQUEST" } }),
    ]);
  });

  it("when a query or mutation is sent over the WebSocket, then it is refused: they belong to HTTP", async () => {
    const result = await new Promise<unknown>((resolve) => {
      live.client.subscribe(
        { query: "{ projectStatuses }" },
        { next: () => undefined, error: resolve, complete: () => resolve("completed") },
      );
    });

    expect(result).toEqual([
      expect.objectContaining({
        message: "Only subscriptions run over WebSocket; send queries and mutations to POST /graphql",
        extensions: { code: "BAD_REQUEST", reason: "NOT_SUPPORTED" },
      }),
    ]);
  });

  it("when a subscription is posted over HTTP, then nothing subscribes and the error says to use the WebSocket", async () => {
    const res = await t.http<{ data?: unknown; errors?: { message: string; extensions?: { code?: string } }[] }>(
      "POST",
      "/graphql",
      { body: { query: "subscription { projectChanges { cursor } }" }, headers: AS_STUDENT },
    );

    expect(res.body.data).toBeNull();
    expect(res.body.errors).toEqual([
      expect.objectContaining({
        message: "subscriptions run over WebSocket (graphql-transport-ws) at /graphql, not over HTTP",
        extensions: { code: "BAD_REQUEST", reason: "NOT_SUPPORTED" },
      }),
    ]);
  });
});
