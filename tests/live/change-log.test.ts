// The change log under the feed, on the real database: each change takes its position, changes the project and
// inserts its entry in one transaction, so positions become readable in order with no gap, a project's revisions are
// in the log in revision order whatever the timing, a fault in the middle is tried again and recorded once, and
// readers never wait. Data of earlier versions (void entries, positions left empty) still reads, and their cursors
// resume. Revisions stored by versions before the change log are copied into it once at start-up, with the project's
// state after each.
import type { mongo } from "mongoose";
import { ProjectChangeFeed, type ProjectChangeEvent } from "../../src/components/projects";
import { appendAll, type ProjectChangeLog, revisionKey } from "../../src/components/projects/persistence";
import { changeLogOf, openDatabase, type Database } from "../../src/persistence";
import { createServices, type Services } from "../../src/services";
import { dropTestDatabase, failCommand, openTestDatabase, testDbName, testMongoUri } from "../helpers/database";
import { silentLogger, unique } from "../helpers/fixtures";

/** 1, 2, …, n. */
const range = (n: number) => Array.from({ length: n }, (_, i) => i + 1);

/** The counter whose values are the log's positions. */
const POSITIONS = "project_changes";

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

describe("the change log: one transaction per change", () => {
  const appName = `change-log-${process.pid}`;
  let db: Database;
  let services: Services;
  let log: ProjectChangeLog;
  const feeds: ProjectChangeFeed[] = [];
  beforeAll(async () => {
    db = await openTestDatabase(testDbName(), { appName, monitorCommands: true });
    services = createServices(db, undefined, silentLogger);
    log = changeLogOf(db);
  });
  afterEach(() => feeds.splice(0).forEach((feed) => feed.stop()));
  afterAll(() => dropTestDatabase(db));

  function feed(): ProjectChangeFeed {
    const created = new ProjectChangeFeed(log, services.projects, { pollMs: 20 });
    feeds.push(created);
    return created;
  }

  /** The log's entries after position `after`, in position order. */
  const entriesAfter = (after: number) =>
    db.models.ProjectChange.find({ seq: { $gt: after } })
      .sort({ seq: 1 })
      .lean();

  it("when changes committed together meet a revision that is there already, then the others are committed in order at consecutive positions", async () => {
    const anchor = await services.projects.create(input());
    const project = (await log.revision(anchor.project_id, 1))!.project;
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
    await appendAll(db, [change(10)]);
    const before = await log.lastSeq();
    const changes = Array.from({ length: 150 }, (_, i) => change(i + 1));

    const committed = await appendAll(db, changes);

    expect(committed).toBe(149);
    const stored = await db.models.ProjectChange.find({ project_id: projectId }).sort({ seq: 1 }).lean();
    // Revision 10 keeps its (earlier) position; the others follow in the order given.
    expect(stored.map((c) => c.revision)).toEqual([
      10,
      ...Array.from({ length: 150 }, (_, i) => i + 1).filter((r) => r !== 10),
    ]);
    expect((await entriesAfter(before)).map((entry) => entry.seq)).toEqual(range(149).map((i) => before + i));
  });

  it("when 50 status changes of one project run at once, then all succeed and its 51 revisions are in the log at consecutive positions, in revision order, as the feed hands them out", async () => {
    const project = await services.projects.create(input());
    const f = feed();
    const own = await f.subscribeProject(
      { projectId: project.project_id, after_revision: 1 },
      { onOverflow: () => {} },
    );
    const before = (await log.revision(project.project_id, 1))!.seq;

    const results = await Promise.allSettled(
      range(50).map((i) => services.projects.updateStatus(project.project_id, { project_status: `status-${i}` })),
    );

    expect(results.filter((r) => r.status === "fulfilled")).toHaveLength(50);
    const entries = (await entriesAfter(before - 1)).filter((entry) => entry.project_id === project.project_id);
    expect(entries.map((entry) => entry.revision)).toEqual(range(51));
    // Each change's state follows from the one before: the status it replaced is the previous revision's.
    for (const [i, entry] of entries.slice(1).entries()) {
      expect(entry.changes).toEqual([
        { field: "project_status", from: entries[i].project.project_status, to: entry.project.project_status },
      ]);
    }
    const stored = await services.projects.get(project.project_id);
    expect(stored).toMatchObject({ revision: 51, project_status: entries[50].project.project_status });
    // No position is missing between the first and the last: the other changes of this test run are in between.
    const all = await entriesAfter(before - 1);
    expect(all.map((entry) => entry.seq)).toEqual(range(all.length).map((i) => before - 1 + i));
    const delivered: ProjectChangeEvent[] = [];
    for (let i = 0; i < 50; i++) delivered.push((await own.next()).value as ProjectChangeEvent);
    expect(delivered.map((event) => event.change.revision)).toEqual(range(50).map((i) => i + 1));
    expect(delivered.map((event) => event.seq)).toEqual(entries.slice(1).map((entry) => entry.seq));
  });

  it("when a fault is injected into a change's log insert, then its transaction is tried again and the change is recorded exactly once", async () => {
    const project = await services.projects.create(input());
    const off = await failCommand(
      db,
      appName,
      { times: 1 },
      {
        failCommands: ["insert"],
        errorCode: 112, // WriteConflict: MongoDB labels it TransientTransactionError inside a transaction
      },
    );
    // The fault reaches the change: its log insert fails once with WriteConflict.
    const failed: string[] = [];
    const onFailed = (event: mongo.CommandFailedEvent) => {
      if (event.commandName === "insert") failed.push((event.failure as { codeName?: string }).codeName ?? "");
    };
    db.connection.getClient().on("commandFailed", onFailed);
    try {
      const changed = await services.projects.updateStatus(project.project_id, { project_status: "active" });

      expect(changed).toMatchObject({ revision: 2, project_status: "active" });
    } finally {
      db.connection.getClient().off("commandFailed", onFailed);
      await off();
    }
    expect(failed).toEqual(["WriteConflict"]);
    const entries = await db.models.ProjectChange.find({ project_id: project.project_id }).sort({ seq: 1 }).lean();
    expect(entries.map((entry) => [entry.revision, entry.project.project_status])).toEqual([
      [1, "planned"],
      [2, "active"],
    ]);
    expect(await services.projects.get(project.project_id)).toMatchObject({ revision: 2, project_status: "active" });
  });

  it("when a change's transaction is still open, then readers see neither its position nor its project change, and do not wait for it", async () => {
    const project = await services.projects.create(input());
    const lastBefore = await log.lastSeq();
    const session = await db.connection.startSession();
    try {
      session.startTransaction();
      // What a change does, stopped before its commit.
      await db.models.Project.updateOne(
        { project_id: project.project_id },
        { $set: { project_status: "active" }, $inc: { revision: 1 } },
        { session, timestamps: false },
      );
      const seq = await log.position(session);
      await db.models.ProjectChange.create(
        [
          {
            ...(await log.revision(project.project_id, 1))!,
            _id: revisionKey(project.project_id, 2),
            revision: 2,
            seq,
          },
        ],
        { session },
      );

      // Were a reader to wait for the open transaction, these would never answer: the test holds it open.
      expect(await log.lastSeq()).toBe(lastBefore);
      expect(await log.after(lastBefore, 10)).toEqual([]);
      expect(await services.projects.get(project.project_id)).toMatchObject({ revision: 1, project_status: "planned" });

      await session.commitTransaction();
      expect(await log.lastSeq()).toBe(seq);
      expect(await services.projects.get(project.project_id)).toMatchObject({ revision: 2, project_status: "active" });
    } finally {
      await session.endSession();
    }
  });

  it("when the log holds void entries and empty positions an earlier version left, then readers pass them without waiting and a cursor at a void entry resumes", async () => {
    const f = feed();
    const first = await services.projects.create(input());
    const firstSeq = (await log.revision(first.project_id, 1))!.seq;
    // As an earlier version left them: a position given up (void), then one never filled.
    const voided = await db.ids.next(POSITIONS);
    await db.models.ProjectChange.collection.insertOne({ _id: `void:${voided}`, seq: voided, void: true } as never);
    await db.ids.next(POSITIONS);
    const after = await services.projects.create(input());
    const cursorAtVoid = Buffer.from(`v1:${voided}`).toString("base64url");

    const fromFirst = await f.subscribeAll(
      { after: Buffer.from(`v1:${firstSeq}`).toString("base64url") },
      { onOverflow: () => {} },
    );
    const fromVoid = await f.subscribeAll({ after: cursorAtVoid }, { onOverflow: () => {} });

    for (const events of [fromFirst, fromVoid]) {
      const next = (await events.next()).value as ProjectChangeEvent;
      expect(next).toMatchObject({ project_id: after.project_id, change: { revision: 1 } });
      expect(next.seq).toBe(voided + 2);
    }
    expect(await log.at(voided)).toEqual({ seq: voided });
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
      // The projects of the earlier version get the flag every list filters on (not archived), once.
      "Marked 2 projects stored before archiving as not archived",
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
      // Every position up to the last holds a change: readers never meet a hole.
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
