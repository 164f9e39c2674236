// The change log under the feed, on the real database: a position taken by a writer that has not inserted yet holds
// the readers back (nothing after it is handed out first); one never filled is given up after the bounded wait with a
// void entry, and the late writer's insert then fails on that position and lands higher — so nothing is skipped.
// Revisions stored by versions before the change log are copied into it once at start-up, with the project's state
// after each.
import { ProjectChangeFeed, type ProjectChangeEvent } from "../../src/components/projects";
import { ProjectChangeLog, revisionKey } from "../../src/components/projects/persistence";
import { openDatabase, type Database } from "../../src/persistence";
import { createServices, type Services } from "../../src/services";
import { dropTestDatabase, openTestDatabase, testMongoUri } from "../helpers/database";
import { silentLogger, unique } from "../helpers/fixtures";

/** 1, 2, …, n. */
const range = (n: number) => Array.from({ length: n }, (_, i) => i + 1);

/** The counter whose values are the log's positions (a writer first takes one, then inserts). */
const POSITIONS = "project_changes";

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function input(project_status = "planned") {
  return {
    project_name: unique("Log"),
    project_desc: "A project for the change log",
    company_id: 7,
    project_status,
    start_date: "2025-01-01",
    end_date: "2025-02-01",
  };
}

describe("the change log's positions", () => {
  let db: Database;
  let services: Services;
  let log: ProjectChangeLog;
  const feeds: ProjectChangeFeed[] = [];
  beforeAll(async () => {
    db = await openTestDatabase();
    services = createServices(db, undefined, silentLogger);
    log = new ProjectChangeLog(db.models.ProjectChange, db.models.Project, db.ids);
  });
  afterEach(() => feeds.splice(0).forEach((feed) => feed.stop()));
  afterAll(() => dropTestDatabase(db));

  function feed(gapWaitMs: number): ProjectChangeFeed {
    const created = new ProjectChangeFeed(log, services.projects, { pollMs: 20, gapWaitMs });
    feeds.push(created);
    return created;
  }

  /** A subscription of every project's changes after the log's current end. */
  async function watchFromNow(f: ProjectChangeFeed) {
    const anchor = await services.projects.create(input());
    const own = await f.subscribeProject({ projectId: anchor.project_id, after_revision: 0 }, { onOverflow: () => {} });
    const created = (await own.next()).value as ProjectChangeEvent;
    await own.return!();
    return f.subscribeAll({ after: created.cursor }, { onOverflow: () => {} });
  }

  it("when changes committed together meet a revision that is there already, then the others are committed in order and its position is voided", async () => {
    const anchor = await services.projects.create(input());
    const project = (await log.revision(anchor.project_id, 1))!.project;
    const before = await log.lastSeq();
    const projectId = 900_000 + (process.pid % 1000);
    const change = (revision: number) => ({
      _id: revisionKey(projectId, revision),
      project_id: projectId,
      revision,
      operation: "updateProjectStatus",
      actor_id: null,
      actor_role: "admin",
      at: new Date(),
      set: { project_status: "active" },
      changes: [{ field: "project_status", from: "planned", to: "active" }],
      project,
    });
    // Revision 10 is committed already (by an earlier start, say); 150 changes are more than FerretDB's insert batch.
    const taken = await log.position();
    await db.models.ProjectChange.create({ ...change(10), seq: taken });
    const changes = Array.from({ length: 150 }, (_, i) => change(i + 1));

    const committed = await log.appendAll(changes);

    expect(committed).toBe(149);
    const stored = await db.models.ProjectChange.find({ project_id: projectId }).sort({ seq: 1 }).lean();
    // Revision 10 keeps its (earlier) position; the others follow in the order given.
    expect(stored.map((c) => c.revision)).toEqual([
      10,
      ...Array.from({ length: 150 }, (_, i) => i + 1).filter((r) => r !== 10),
    ]);
    // Every position up to the last is taken, by a change or a void entry: readers never wait on a hole.
    const all = await db.models.ProjectChange.find({ seq: { $gt: before } })
      .sort({ seq: 1 })
      .lean();
    expect(all.map((entry) => entry.seq)).toEqual(Array.from({ length: all.length }, (_, i) => before + 1 + i));
  });

  it("when a writer has taken a position but inserts late, then readers wait for it and hand changes out in position order", async () => {
    const f = feed(60_000);
    const late = await services.projects.create(input());
    const events = await watchFromNow(f);
    const taken = await db.ids.next(POSITIONS); // the slow writer's position
    const after = await services.projects.create(input()); // commits at a higher position

    const first = events.next();
    expect(await Promise.race([first, sleep(600).then(() => "still waiting")])).toBe("still waiting");

    // The slow writer's insert lands: revision 2 of `late`, at the position it took.
    await db.models.ProjectChange.create({
      _id: revisionKey(late.project_id, 2),
      seq: taken,
      project_id: late.project_id,
      revision: 2,
      operation: "updateProjectStatus",
      actor_id: "slow-writer",
      actor_role: "teacher",
      at: new Date(),
      set: { project_status: "active" },
      changes: [{ field: "project_status", from: "planned", to: "active" }],
      project: { ...late, project_status: "active", revision: 2, created_at: new Date(), updated_at: new Date() },
    });
    const delivered = [(await first).value as ProjectChangeEvent, (await events.next()).value as ProjectChangeEvent];

    expect(delivered.map((e) => [e.project_id, e.change.revision, e.seq])).toEqual([
      [late.project_id, 2, taken],
      [after.project_id, 1, taken + 1],
    ]);
  });

  it("when a writer never inserts at its position, then after the bounded wait the position is voided and nothing after it is lost", async () => {
    const f = feed(300);
    const events = await watchFromNow(f);
    const taken = await db.ids.next(POSITIONS); // a writer that dies before inserting
    const after = await services.projects.create(input());

    const started = Date.now();
    const next = (await events.next()).value as ProjectChangeEvent;

    expect(next).toMatchObject({ project_id: after.project_id, seq: taken + 1 });
    expect(Date.now() - started).toBeGreaterThanOrEqual(250);
    expect(await log.at(taken)).toEqual({ seq: taken }); // a void entry: no change
    // Had the writer been merely slow, its insert now fails on the position, and its retry lands higher.
    await expect(
      db.models.ProjectChange.create({
        _id: revisionKey(after.project_id, 2),
        seq: taken,
        project_id: after.project_id,
        revision: 2,
        operation: "updateProjectStatus",
        actor_id: null,
        actor_role: "teacher",
        at: new Date(),
        set: {},
        changes: [],
        project: {},
      }),
    ).rejects.toThrow(/duplicate key|E11000/);
    const retried = await services.projects.updateStatus(after.project_id, { project_status: "active" });
    const event = (await events.next()).value as ProjectChangeEvent;
    expect(event).toMatchObject({ project_id: after.project_id, change: { revision: retried.revision } });
    expect(event.seq).toBeGreaterThan(taken + 1);
  });

  it("when a writer dies after changing the project but before inserting its entry, then after the bounded wait a reader writes the entry from the project", async () => {
    const f = feed(300);
    const project = await services.projects.create(input());
    const events = await watchFromNow(f);
    // What the writer had done when it died: it took a position and changed the project (one conditional update).
    const taken = await log.position();
    const at = new Date();
    await db.models.Project.updateOne(
      { project_id: project.project_id },
      { $set: { project_status: "active", updated_at: at, change_seq: taken }, $inc: { revision: 1 } },
      { timestamps: false },
    );
    const later = await services.projects.create(input());

    const delivered = [
      (await events.next()).value as ProjectChangeEvent,
      (await events.next()).value as ProjectChangeEvent,
    ];

    expect(delivered.map((e) => [e.project_id, e.change.revision, e.seq])).toEqual([
      [project.project_id, 2, taken],
      [later.project_id, 1, taken + 1],
    ]);
    expect(delivered[0].change).toMatchObject({
      operation: "updateProjectStatus",
      actor_id: null,
      actor_role: "system",
      changes: [{ field: "project_status", from: "planned", to: "active" }],
    });
    expect(delivered[0].project).toMatchObject({ project_status: "active", revision: 2 });
    const history = await services.projects.history({ project_id: project.project_id, revision: 2 });
    expect(history.items.map((item) => item.revision)).toEqual([2, 1]);
  });
});

describe("revisions stored before the change log", () => {
  let db: Database;
  afterAll(() => dropTestDatabase(db));

  it("when the service starts on them, then they are copied into the log once, with each project's state after each revision", async () => {
    db = await openTestDatabase();
    const at = (minute: number) => new Date(Date.UTC(2025, 0, 1, 10, minute));
    await db.models.Project.collection.insertMany([
      {
        _id: "1" as never,
        project_id: 1,
        project_name: "Old one",
        name_key: "old one",
        project_desc: "d",
        company_id: 3,
        project_status: "active",
        project_url: null,
        start_date: "2025-01-01",
        end_date: "2025-02-01",
        teacher_id: 5,
        revision: 3,
        created_by: "u-1",
        created_at: at(0),
        updated_at: at(20),
      },
      // Stored before revisions existed: no revision 1, then one change.
      {
        _id: "2" as never,
        project_id: 2,
        project_name: "Older one",
        name_key: "older one",
        project_desc: "d",
        company_id: 3,
        project_status: "done",
        project_url: null,
        start_date: "2025-01-01",
        end_date: "2025-02-01",
        teacher_id: null,
        revision: 2,
        created_at: at(1),
        updated_at: at(15),
      },
    ]);
    const legacy = (
      project_id: number,
      revision: number,
      minute: number,
      operation: string,
      set: object,
      changes: object[],
    ) => ({
      _id: `${project_id}:${revision}`,
      project_id,
      revision,
      operation,
      actor_id: null,
      actor_role: "admin",
      at: at(minute),
      set,
      changes,
    });
    await db.models.ProjectRevision.collection.insertMany([
      legacy(1, 3, 20, "updateProjectStatus", { project_status: "active" }, [
        { field: "project_status", from: "planned", to: "active" },
      ]),
      legacy(1, 1, 0, "createProject", {}, [{ field: "project_status", from: null, to: "planned" }]),
      legacy(2, 2, 15, "updateProjectStatus", { project_status: "done" }, [
        { field: "project_status", from: "open", to: "done" },
      ]),
      legacy(1, 2, 10, "assignTeacher", { teacher_id: 5 }, [{ field: "teacher_id", from: null, to: "5" }]),
      // Of a project removed by hand since: nothing to fold it onto, left out (and said so).
      legacy(9, 1, 5, "createProject", {}, [{ field: "project_status", from: null, to: "active" }]),
    ] as never[]);
    // As on a database that an older version wrote: no marker yet.
    await db.connection.db!.collection("migrations").deleteMany({});

    const told: string[] = [];
    const restarted = await openDatabase(testMongoUri(), {
      dbName: db.connection.name,
      progress: (message) => told.push(message),
    });
    const toldAgain: string[] = [];
    const again = await openDatabase(testMongoUri(), {
      dbName: db.connection.name,
      progress: (message) => toldAgain.push(message),
    });
    await again.close();
    // The operator sees the copy start and end (it runs before the service listens); a later start copies nothing.
    expect(told).toEqual([
      expect.stringMatching(/^Copying 5 revisions from project_revisions into the change log/),
      expect.stringMatching(
        /^Copied 4 revisions into the change log in \d+\.\d s; left out 1 revision of projects no longer stored$/,
      ),
    ]);
    expect(toldAgain).toEqual([]);
    try {
      const log = await restarted.models.ProjectChange.find({}).sort({ seq: 1 }).lean();
      expect(log.map((c) => [c._id, c.project.project_status, c.project.teacher_id, c.project.revision])).toEqual([
        ["1:1", "planned", null, 1],
        ["1:2", "planned", 5, 2],
        ["2:2", "done", null, 2],
        ["1:3", "active", 5, 3],
      ]);
      expect(new Set(log.map((c) => c.seq)).size).toBe(4);

      const services = createServices(restarted, undefined, silentLogger);
      const history = await services.projects.history({ project_id: 1, revision: 3 });
      expect(history.items.map((i) => i.operation)).toEqual(["updateProjectStatus", "assignTeacher", "createProject"]);
      const feed = services.projectChanges;
      const replay = await feed.subscribeProject({ projectId: 2, after_revision: 0 }, { onOverflow: () => {} });
      expect(((await replay.next()).value as ProjectChangeEvent).project).toMatchObject({
        project_id: 2,
        project_status: "done",
        revision: 2,
        created_by: null,
      });
      feed.stop();
    } finally {
      await restarted.close();
    }
  });

  it("when two instances start on many of them at once, then each revision is in the log once, in its project's order, with no position left empty", async () => {
    const first = await openTestDatabase();
    const dbName = first.connection.name;
    try {
      const at = (minute: number) => new Date(Date.UTC(2025, 0, 1) + minute * 60_000);
      // 1,000 projects with their creation, the first 100 also with a status change: more than one batch.
      const projects = range(1000).map((id) => ({
        _id: String(id),
        project_id: id,
        project_name: `Old ${id}`,
        name_key: `old ${id}`,
        project_desc: "d",
        company_id: 3,
        project_status: id <= 100 ? "done" : "active",
        project_url: null,
        start_date: "2025-01-01",
        end_date: "2025-02-01",
        teacher_id: null,
        revision: id <= 100 ? 2 : 1,
        created_at: at(id),
        updated_at: at(id <= 100 ? 2000 + id : id),
      }));
      const revision = (project_id: number, n: number, minute: number, from: string | null, to: string) => ({
        _id: `${project_id}:${n}`,
        project_id,
        revision: n,
        operation: n === 1 ? "createProject" : "updateProjectStatus",
        actor_id: null,
        actor_role: "admin",
        at: at(minute),
        set: n === 1 ? {} : { project_status: to },
        changes: [{ field: "project_status", from, to }],
      });
      const legacy = [
        ...range(1000).map((id) => revision(id, 1, id, null, "active")),
        ...range(100).map((id) => revision(id, 2, 2000 + id, "active", "done")),
      ];
      await first.models.Project.collection.insertMany(projects as never[]);
      await first.models.ProjectRevision.collection.insertMany(legacy as never[]);
      await first.connection.db!.collection("migrations").deleteMany({});

      const told: string[] = [];
      const both = await Promise.all(
        [1, 2].map(() => openDatabase(testMongoUri(), { dbName, progress: (message) => told.push(message) })),
      );
      await Promise.all(both.map((instance) => instance.close()));

      const log = await first.models.ProjectChange.find({}).sort({ seq: 1 }).lean();
      const changes = log.filter((entry) => !("void" in entry && entry.void));
      expect(changes).toHaveLength(1100);
      expect(new Set(changes.map((c) => c._id)).size).toBe(1100);
      // Every position up to the last is taken, by a change or a void entry: readers never wait on a hole.
      expect(log.map((entry) => entry.seq)).toEqual(range(log.length));
      for (const id of range(100)) {
        const [created, changed] = [1, 2].map((n) => changes.find((c) => c._id === `${id}:${n}`)!);
        expect(created.seq).toBeLessThan(changed.seq);
        expect(changed.project.project_status).toBe("done");
      }
      // What the two instances say they copied adds up to every revision, once.
      const copied = told.flatMap((message) => /^Copied ([\d,]+) revisions?/.exec(message)?.[1] ?? []);
      expect(copied).toHaveLength(2);
      expect(copied.reduce((sum, n) => sum + Number(n.replace(/,/g, "")), 0)).toBe(1100);
    } finally {
      await dropTestDatabase(first);
    }
  });
});
