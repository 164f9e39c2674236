// npm run db:backup on the embedded FerretDB while writes keep coming: the backup is read from a snapshot, so every
// write acknowledged before it began is in it; a writer caught between its update and its log entry is settled;
// restored, it passes db:check, every project equals its newest revision, the log has no empty position, and a
// subscriber resuming with a cursor from before the backup gets every change after it. A backup killed midway
// leaves no backup behind, and the next one clears what it left.
import fs from "node:fs";
import path from "node:path";
import { revisionKey } from "../../src/components/projects/persistence";
import { DEFAULT_DB_NAME } from "../../src/db/database";
import type { EmbeddedDatabase } from "../../src/db/embedded-server";
import { startFerretDb } from "../../src/db/ferretdb";
import { openDatabase, type Database } from "../../src/persistence";
import { createServices, type Services } from "../../src/services";
import { ProjectChangesDocument } from "../generated/graphql";
import { startTestApp } from "../helpers/app";
import { dropTestDatabase, openTestDatabase } from "../helpers/database";
import { silentLogger } from "../helpers/fixtures";
import { liveClient, subscribe } from "../helpers/live";
import { ANSWERS, createProject, runScript, startScript, tempDir, uriOf } from "./support";

interface Acknowledged {
  project_id: number;
  revision: number;
}

/** A cursor of the log's position `seq`, as docs/live.md gives its encoding today (base64url of "v1:<seq>"). */
const encodeCursor = (seq: number) => Buffer.from(`v1:${seq}`).toString("base64url");

const STATUSES = ["proposed", "in_progress", "review", "done"];

describe("npm run db:backup on the embedded FerretDB, while the service writes", () => {
  let work: string;
  let server: EmbeddedDatabase;
  let source: Database;
  let services: Services;
  const restored: Database[] = [];

  /** DATA_DIR of the embedded database the writes go to (its FerretDB files are in <DATA_DIR>/ferretdb). */
  const dataDir = () => path.join(work, "data");
  const embedded = () => ({ DATA_DIR: dataDir(), EMBEDDED_DB: "ferretdb" });

  async function restoreInto(backup: string): Promise<Database> {
    const db = await openTestDatabase();
    await db.connection.dropDatabase();
    restored.push(db);
    const run = await runScript("db-restore", [backup], { MONGODB_URI: uriOf(db.connection.name) });
    expect(run).toMatchObject({ code: 0 });
    return db;
  }

  beforeAll(async () => {
    work = tempDir("backup-online");
    server = await startFerretDb(path.join(dataDir(), "ferretdb"), () => {});
    source = await openDatabase(server.uri, { dbName: DEFAULT_DB_NAME });
    services = createServices(source, undefined, silentLogger);
  });

  afterAll(async () => {
    await source?.close();
    await server?.stop();
    for (const db of restored) await dropTestDatabase(db);
    if (work) fs.rmSync(work, { recursive: true, force: true });
  });

  it("holds every write acknowledged before it began; restored, it is consistent and resumable", async () => {
    const teachers = [
      await services.teachers.create({ teacher_name: "Ada" }),
      await services.teachers.create({ teacher_name: "Grace" }),
    ];
    const projects: number[] = [];
    for (let i = 1; i <= 20; i++) {
      const project = await createProject(services, {
        project_name: `Project ${i}`,
        project_desc: "Online backup",
        company_id: 7,
      });
      projects.push(project.project_id);
    }

    // Writers: status changes (no expected_revision), assignments and creations, from 6 concurrent loops.
    const before: Acknowledged[] = [];
    let started = false;
    let stop = false;
    let n = 0;
    const writer = async (loop: number) => {
      while (!stop) {
        const i = n++;
        const project_id = projects[1 + (i % (projects.length - 1))];
        let done: Acknowledged;
        if (loop === 0 && i % 5 === 0) {
          const created = await createProject(services, {
            project_name: `Created while backing up ${i}`,
            project_desc: "Online backup",
            company_id: 7,
          });
          done = created;
        } else if (loop === 1) {
          // The teacher the project does not have yet (an assignment of its own teacher is a CONFLICT).
          const current = await services.projects.get(project_id);
          const other = teachers.find((t) => t.teacher_id !== current?.teacher_id)!;
          done = await services.projects.assignTeacher(project_id, { new_teacher_id: other.teacher_id });
        } else {
          done = await services.projects.updateStatus(project_id, { project_status: STATUSES[i % STATUSES.length] });
        }
        if (!started) before.push({ project_id: done.project_id, revision: done.revision });
      }
    };
    const writers = Promise.all([0, 1, 2, 3, 4, 5].map(writer));
    while (before.length < 60) await new Promise((resolve) => setTimeout(resolve, 20));

    started = true;
    const backup = path.join(work, "online");
    const run = await runScript("db-backup", [backup], embedded());
    stop = true;
    await writers;
    expect(run).toMatchObject({ code: 0 });

    const db = await restoreInto(backup);
    const check = await runScript("db-check", [], { MONGODB_URI: uriOf(db.connection.name) });
    expect(check).toMatchObject({ code: 0 });

    const { Project, ProjectChange } = db.models;
    // Every project equals its newest revision in the log.
    const stored = await Project.find().lean();
    expect(stored.length).toBeGreaterThanOrEqual(20);
    for (const project of stored) {
      const entry = await ProjectChange.findOne({ _id: revisionKey(project.project_id, project.revision) }).lean();
      expect(entry).not.toBeNull();
      const { project_status, teacher_id, revision } = (entry as unknown as { project: Record<string, unknown> })
        .project;
      expect({ project_status, teacher_id: teacher_id ?? null, revision }).toEqual({
        project_status: project.project_status,
        teacher_id: project.teacher_id ?? null,
        revision: project.revision,
      });
    }
    // Every write acknowledged before the backup began: in the project, and in the log at the position it had.
    for (const ack of before) {
      const project = stored.find((p) => p.project_id === ack.project_id);
      expect(project?.revision).toBeGreaterThanOrEqual(ack.revision);
      const original = await source.models.ProjectChange.findOne({
        _id: revisionKey(ack.project_id, ack.revision),
      }).lean();
      const copy = await ProjectChange.findOne({ _id: revisionKey(ack.project_id, ack.revision) }).lean();
      expect(copy).toEqual(original);
    }

    // No empty position: positions 1…last are all held (each change committed with its entry).
    const seqs = (await ProjectChange.find({}, { seq: 1 }).sort({ seq: 1 }).lean()).map((e) => e.seq);
    expect(seqs).toEqual(seqs.map((_, i) => i + 1));

    // A subscriber resuming from a cursor of before the backup gets every change after it, in order.
    const from = (await source.models.ProjectChange.findOne({
      _id: revisionKey(before[0].project_id, before[0].revision),
    }).lean())!.seq;
    const expected = (
      await ProjectChange.find({ seq: { $gt: from }, void: { $ne: true } })
        .sort({ seq: 1 })
        .lean()
    ).map((e) => ({ cursor: encodeCursor(e.seq), project_id: e.project_id, revision: e.revision }));
    const app = await startTestApp({ db });
    const live = liveClient(app, { "x-user-role": "admin" });
    try {
      const sub = subscribe(live, ProjectChangesDocument, { after: encodeCursor(from) });
      const events = await sub.received(expected.length);
      expect(
        events.map((e) => ({
          cursor: e.projectChanges.cursor,
          project_id: e.projectChanges.project_id,
          revision: e.projectChanges.change.revision,
        })),
      ).toEqual(expected);
      sub.stop();
    } finally {
      await live.dispose();
      await app.app.close();
    }
  });

  it("restored into another embedded FerretDB, a backup taken at rest answers as the original", async () => {
    // At rest: no writer.
    const backup = path.join(work, "at-rest");
    expect(await runScript("db-backup", [backup], embedded())).toMatchObject({ code: 0 });
    const restoredDir = path.join(work, "restored");
    const restore = await runScript("db-restore", [backup], { DATA_DIR: restoredDir, EMBEDDED_DB: "ferretdb" });
    expect(restore).toMatchObject({ code: 0 });

    const other = await startFerretDb(path.join(restoredDir, "ferretdb"), () => {});
    const copy = await openDatabase(other.uri, { dbName: DEFAULT_DB_NAME });
    const before = await startTestApp({ db: source });
    const after = await startTestApp({ db: copy });
    try {
      const asked = { body: { query: ANSWERS }, headers: { "x-user-role": "admin" } };
      const original = await before.http("POST", "/graphql", asked);
      expect(original.status).toBe(200);
      expect((original.body as { errors?: unknown }).errors).toBeUndefined();
      expect(
        (original.body as unknown as { data: { projects: { total: number } } }).data.projects.total,
      ).toBeGreaterThan(20);
      expect(await after.http("POST", "/graphql", asked)).toEqual(original);
    } finally {
      await before.app.close();
      await after.app.close();
      await copy.close();
      await other.stop();
    }
  });

  it("killed midway, leaves no backup behind; the next backup clears what it left and succeeds", async () => {
    const backup = path.join(work, "killed");
    const { done } = startScript("db-backup", [backup], embedded(), (line, child) => {
      if (line.startsWith("Snapshot taken")) child.kill("SIGKILL");
    });
    const killed = await done;
    expect(killed.code).toBeNull();
    expect(fs.existsSync(backup)).toBe(false);
    const left = fs.readdirSync(work).filter((entry) => entry.startsWith("killed.partial-"));
    expect(left).toHaveLength(1);
    const refused = await runScript("db-restore", [backup], { MONGODB_URI: uriOf("never_written") });
    expect(refused.code).toBe(1);

    const again = await runScript("db-backup", [backup], embedded());
    expect(again).toMatchObject({ code: 0 });
    expect(again.lines).toContainEqual(
      expect.stringMatching(/^Removing .*killed\.partial-\d+, left by a backup that did not finish$/),
    );
    expect(fs.readdirSync(work).filter((entry) => entry.startsWith("killed."))).toEqual([]);
    expect(JSON.parse(fs.readFileSync(path.join(backup, "manifest.json"), "utf8")).database).toBe(DEFAULT_DB_NAME);
  });

  it("stopped by SIGTERM, removes what it wrote and says so", async () => {
    const backup = path.join(work, "stopped");
    const { done } = startScript("db-backup", [backup], embedded(), (line, child) => {
      if (line.startsWith("Snapshot taken")) child.kill("SIGTERM");
    });
    const stopped = await done;
    expect(stopped.code).toBe(1);
    expect(stopped.lines.at(-1)).toMatch(/^db:backup: stopped by SIGTERM; nothing was written to /);
    expect(fs.readdirSync(work).filter((entry) => entry.startsWith("stopped"))).toEqual([]);
  });
});
