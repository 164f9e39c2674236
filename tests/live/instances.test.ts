// Several service instances on one database, as in production: each reads the shared change log, so a change
// committed through any instance reaches the subscribers of all of them — exactly once each, in one order shared by
// every subscriber — and a client whose instance restarts resumes from its last cursor without missing anything.
import {
  ProjectChangedDocument,
  ProjectChangesDocument,
  UpdateProjectStatusDocument,
  type ProjectChangesSubscription,
} from "../generated/graphql";
import { startTestApp, type TestApp } from "../helpers/app";
import { liveClient, subscribe, type LiveClient } from "../helpers/live";
import { createProject, TEACHER } from "../operations/support";

const AS_STUDENT = { "x-user-role": "student" };
const WRITERS_PER_INSTANCE = 4;
const CHANGES_PER_WRITER = 8;

type Event = ProjectChangesSubscription["projectChanges"];
const keyOf = (e: Event) => `${e.project_id}:${e.change.revision}`;

describe("live updates across instances on one database", () => {
  let a: TestApp;
  let b: TestApp;
  const clients: LiveClient[] = [];
  beforeAll(async () => {
    a = await startTestApp({ config: { subscriptionPollMs: 100 } });
    b = await startTestApp({ db: a.db, config: { subscriptionPollMs: 100 } });
  });
  afterEach(async () => {
    await Promise.all(clients.splice(0).map((c) => c.dispose()));
  });
  afterAll(async () => {
    await b.app.close();
    await a.close();
  });

  function client(t: TestApp): LiveClient {
    const c = liveClient(t, AS_STUDENT);
    clients.push(c);
    return c;
  }

  /** The cursor of a fresh project's creation: the log's end, seen through the project's own replay. */
  async function cursorNow(t: TestApp): Promise<string> {
    const project = await createProject(t);
    const sub = subscribe(client(t), ProjectChangedDocument, { projectId: project.project_id, afterRevision: 0 });
    const [created] = await sub.received(1);
    sub.stop();
    return created.projectChanged.cursor;
  }

  /** Changes a status through `t`; the committed change's key, or undefined when it lost (CONFLICT). */
  async function change(t: TestApp, projectId: number, project_status: string): Promise<string | undefined> {
    const res = await t.gql(UpdateProjectStatusDocument, { projectId, input: { project_status } }, TEACHER);
    const payload = res.data?.updateProjectStatus;
    if (!payload?.success) {
      expect(payload?.code).toBe("CONFLICT");
      return undefined;
    }
    return `${projectId}:${payload.data!.revision}`;
  }

  it("when writers on both instances change projects at once, then every subscriber on both gets exactly the committed changes, in one order", async () => {
    const projects = await Promise.all([1, 2, 3].map(() => createProject(a)));
    const after = await cursorNow(a);
    const subscribers = [a, a, b, b].map((t) => subscribe(client(t), ProjectChangesDocument, { after }));

    const writers = [a, b].flatMap((t, instance) =>
      Array.from({ length: WRITERS_PER_INSTANCE }, async (_, w) => {
        const committed: string[] = [];
        for (let k = 0; k < CHANGES_PER_WRITER; k++) {
          // Writers share projects, so some changes race for the same revision.
          const project = projects[(w + k) % projects.length];
          const key = await change(t, project.project_id, `s-${instance}-${w}-${k}`);
          if (key) committed.push(key);
        }
        return committed;
      }),
    );
    const committed = (await Promise.all(writers)).flat();
    // A last change through each instance marks the end: whatever arrives before it is all there is.
    const markers = [
      await change(a, projects[0].project_id, "end-a"),
      await change(b, projects[1].project_id, "end-b"),
    ];
    const expected = [...committed, ...markers];
    for (const sub of subscribers) await sub.received(expected.length, 30_000);

    const orders = subscribers.map((sub) => sub.events.map((e) => keyOf(e.projectChanges)));
    expect(committed.length).toBeGreaterThan(WRITERS_PER_INSTANCE); // the test wrote something on both
    for (const order of orders) {
      expect(order).toHaveLength(expected.length);
      expect([...order].sort()).toEqual([...expected].sort());
      expect(order).toEqual(orders[0]);
    }
    // Per project, revisions arrive in their own order, one by one.
    for (const project of projects) {
      const revisions = orders[0]
        .filter((k) => k.startsWith(`${project.project_id}:`))
        .map((k) => Number(k.split(":")[1]));
      expect(revisions).toEqual(revisions.map((_, i) => revisions[0] + i));
    }
  });

  it("when a client's instance restarts, then reconnecting with its last cursor misses nothing and repeats nothing", async () => {
    const project = await createProject(a);
    const after = await cursorNow(a);
    let c = await startTestApp({ db: a.db, config: { subscriptionPollMs: 100 } });
    const watcher = client(c);
    const sub = subscribe(watcher, ProjectChangesDocument, { after });
    const before = [await change(a, project.project_id, "r1"), await change(b, project.project_id, "r2")];
    await sub.received(2);
    const last = sub.events[1].projectChanges.cursor;

    await c.app.close();
    expect(watcher.closes.at(-1)?.code).toBe(1001);
    // While the instance is down, changes go on through the others.
    const during = [await change(a, project.project_id, "r3"), await change(b, project.project_id, "r4")];
    c = await startTestApp({ db: a.db, config: { subscriptionPollMs: 100 } });
    try {
      const resumed = subscribe(client(c), ProjectChangesDocument, { after: last });
      await resumed.received(2);
      const afterwards = [await change(a, project.project_id, "r5")];
      const events = await resumed.received(3);

      expect(sub.events.map((e) => keyOf(e.projectChanges))).toEqual(before);
      expect(events.map((e) => keyOf(e.projectChanges))).toEqual([...during, ...afterwards]);
    } finally {
      await c.app.close();
    }
  });
});
