// npm run db:backup and db:restore through MONGODB_URI: a backup restores into another database as an exact copy
// (documents with their BSON types, indexes), answering the same; and every damaged backup or occupied target is
// refused with one line, exit 1, before anything is written.
import fs from "node:fs";
import path from "node:path";
import { mongo } from "mongoose";
import type { Database } from "../../src/persistence";
import { createServices } from "../../src/services";
import { startTestApp } from "../helpers/app";
import { dropTestDatabase, openTestDatabase } from "../helpers/database";
import { ADMIN, silentLogger } from "../helpers/fixtures";
import { ANSWERS, contentsOf, createProject, indexesOf, runScript, tempDir, uriOf } from "./support";

describe("npm run db:backup and db:restore (MONGODB_URI)", () => {
  let source: Database;
  const targets: Database[] = [];
  let work: string;
  let backup: string;

  async function target(): Promise<Database> {
    const db = await openTestDatabase(`${source.connection.name}_${targets.length}`);
    // Empty, as a new deployment's database is before its first start (openTestDatabase created the indexes).
    await db.connection.dropDatabase();
    targets.push(db);
    return db;
  }

  /** A copy of the backup to damage. */
  function copyOfBackup(): string {
    const copy = path.join(work, `copy-${Date.now()}-${Math.random().toString(16).slice(2)}`);
    fs.cpSync(backup, copy, { recursive: true });
    return copy;
  }

  beforeAll(async () => {
    source = await openTestDatabase();
    const services = createServices(source, undefined, silentLogger);
    const teachers = [];
    for (let i = 1; i <= 3; i++) teachers.push(await services.teachers.create({ teacher_name: `Teacher ${i}` }));
    for (let i = 1; i <= 12; i++) {
      const project = await createProject(services, {
        project_name: `Project ${i}`,
        project_desc: i % 2 ? "Line one\nline two" : "One line",
        company_id: 1 + (i % 3),
      });
      if (i % 3 !== 0) {
        await services.projects.assignTeacher(project.project_id, { new_teacher_id: teachers[i % 3].teacher_id });
      }
      if (i % 4 === 0) await services.projects.updateStatus(project.project_id, { project_status: "in_progress" });
    }
    for (let i = 1; i <= 5; i++) {
      await services.students.create({ student_name: `Student ${i}`, email: `S${i}@Example.com`, class_code: "B2" });
    }
    work = tempDir("backup-restore");
    backup = path.join(work, "backup");
    const run = await runScript("db-backup", [backup], { MONGODB_URI: uriOf(source.connection.name) });
    expect(run).toMatchObject({ code: 0 });
  });

  afterAll(async () => {
    await dropTestDatabase(source);
    for (const db of targets) await dropTestDatabase(db);
    if (work) fs.rmSync(work, { recursive: true, force: true });
  });

  it("writes mongodump's layout with a manifest of every collection's count and SHA-256", async () => {
    const manifest = JSON.parse(fs.readFileSync(path.join(backup, "manifest.json"), "utf8"));
    const database = source.connection.name;
    expect(manifest.database).toBe(database);
    expect(new Date(manifest.created_at).toISOString()).toBe(manifest.created_at);
    expect(manifest.collections.projects).toEqual({ count: 12, sha256: expect.stringMatching(/^[0-9a-f]{64}$/) });
    expect(manifest.collections.teachers.count).toBe(3);
    expect(manifest.collections.students.count).toBe(5);
    // 12 creations, 8 assignments, 3 status changes.
    expect(manifest.collections.project_changes.count).toBe(23);
    const files = fs.readdirSync(path.join(backup, database)).sort();
    expect(files).toEqual(
      Object.keys(manifest.collections)
        .flatMap((name) => [`${name}.bson`, `${name}.metadata.json`])
        .sort(),
    );
    const metadata = mongo.BSON.EJSON.parse(
      fs.readFileSync(path.join(backup, database, "projects.metadata.json"), "utf8"),
    ) as { collectionName: string; indexes: { name: string; unique?: boolean }[] };
    expect(metadata.collectionName).toBe("projects");
    expect(metadata.indexes).toEqual(
      expect.arrayContaining([expect.objectContaining({ name: "project_id_1", unique: true })]),
    );
    expect(fs.readdirSync(work).filter((entry) => entry.includes(".partial-"))).toEqual([]);
  });

  it("restores into an empty database as an exact copy, indexes included, and the service answers the same", async () => {
    const db = await target();
    const run = await runScript("db-restore", [backup], { MONGODB_URI: uriOf(db.connection.name) });
    expect(run.code).toBe(0);
    expect(run.lines.at(-1)).toMatch(/^Restored \d+ documents in \d+ collections\.$/);

    expect(await contentsOf(db.connection.db!)).toEqual(await contentsOf(source.connection.db!));
    expect(await indexesOf(db.connection.db!)).toEqual(await indexesOf(source.connection.db!));
    const check = await runScript("db-check", [], { MONGODB_URI: uriOf(db.connection.name) });
    expect(check.code).toBe(0);

    const before = await startTestApp({ db: source });
    const after = await startTestApp({ db });
    try {
      const asked = { body: { query: ANSWERS }, headers: ADMIN };
      const [original, restored] = [
        await before.http("POST", "/graphql", asked),
        await after.http("POST", "/graphql", asked),
      ];
      expect(original).toMatchObject({ status: 200 });
      expect((original.body as { errors?: unknown }).errors).toBeUndefined();
      expect(restored).toEqual(original);
    } finally {
      await before.app.close();
      await after.app.close();
    }
  });

  it("refuses a database that holds data, writing nothing; --replace replaces it", async () => {
    const db = await target();
    await db.connection.db!.collection("projects").insertOne({ _id: "someone else's" as never, project_id: 1 });
    const refused = await runScript("db-restore", [backup], { MONGODB_URI: uriOf(db.connection.name) });
    expect(refused.code).toBe(1);
    expect(refused.lines.at(-1)).toMatch(
      /^db:restore refused: the database ".*" holds data \(collection projects\);.*--replace/,
    );
    expect(await db.connection.db!.collection("projects").find().toArray()).toEqual([
      { _id: "someone else's", project_id: 1 },
    ]);
    expect(await db.connection.db!.collection("project_changes").countDocuments()).toBe(0);

    const replaced = await runScript("db-restore", [backup, "--replace"], { MONGODB_URI: uriOf(db.connection.name) });
    expect(replaced).toMatchObject({ code: 0 });
    expect(await contentsOf(db.connection.db!)).toEqual(await contentsOf(source.connection.db!));
  });

  const damages: [string, (dir: string, database: string) => void, RegExp][] = [
    [
      "a file with a changed byte",
      (dir, database) => {
        const file = path.join(dir, database, "projects.bson");
        const bytes = fs.readFileSync(file);
        bytes[bytes.length - 20] ^= 0x01;
        fs.writeFileSync(file, bytes);
      },
      /projects\.bson: its SHA-256 is not the one in manifest\.json/,
    ],
    [
      "a truncated file",
      (dir, database) => {
        const file = path.join(dir, database, "project_changes.bson");
        fs.truncateSync(file, fs.statSync(file).size - 7);
      },
      /project_changes\.bson: ends inside document \d+ \(the file is truncated\)/,
    ],
    [
      "a manifest whose count is not its file's",
      (dir) => {
        const manifest = JSON.parse(fs.readFileSync(path.join(dir, "manifest.json"), "utf8"));
        manifest.collections.teachers.count = 4;
        fs.writeFileSync(path.join(dir, "manifest.json"), JSON.stringify(manifest));
      },
      /teachers\.bson holds 3 documents; manifest\.json says 4/,
    ],
    [
      "a file the manifest does not name",
      (dir, database) => fs.writeFileSync(path.join(dir, database, "extra.bson"), Buffer.alloc(0)),
      /extra\.bson is not in manifest\.json/,
    ],
    [
      "a file the manifest names that is missing",
      (dir, database) => fs.rmSync(path.join(dir, database, "students.bson")),
      /students\.bson is missing \(manifest\.json lists it\)/,
    ],
    [
      "no manifest",
      (dir) => fs.rmSync(path.join(dir, "manifest.json")),
      /has no manifest\.json: it is not a complete backup/,
    ],
  ];

  it.each(damages)("refuses %s with one line, exit 1, writing nothing", async (_name, damage, reason) => {
    const dir = copyOfBackup();
    damage(dir, source.connection.name);
    const db = await target();
    const run = await runScript("db-restore", [dir], { MONGODB_URI: uriOf(db.connection.name) });
    expect(run.code).toBe(1);
    const refusals = run.lines.filter((line) => line.startsWith("db:restore"));
    expect(refusals).toHaveLength(1);
    expect(refusals[0]).toMatch(/^db:restore refused: /);
    expect(refusals[0]).toMatch(reason);
    expect(await db.connection.db!.listCollections().toArray()).toEqual([]);
  });

  it("restores a backup whose projects were read before changes in its log: every project at its newest revision", async () => {
    // What db:backup through MONGODB_URI reads while writes go on: the projects first, the log later. Made here
    // exactly: a backup's projects from before some changes, with the log and counters of a backup after them.
    const db = await openTestDatabase(`${source.connection.name}_moving`);
    targets.push(db);
    const services = createServices(db, undefined, silentLogger);
    const teacher = await services.teachers.create({ teacher_name: "Moving" });
    const before: number[] = [];
    for (let i = 1; i <= 5; i++) {
      const project = await createProject(services, {
        project_name: `Moving ${i}`,
        project_desc: "Changed while backed up",
        company_id: 9,
      });
      before.push(project.project_id);
    }
    const early = path.join(work, "moving-early");
    expect(await runScript("db-backup", [early], { MONGODB_URI: uriOf(db.connection.name) })).toMatchObject({
      code: 0,
    });
    await services.projects.updateStatus(before[0], { project_status: "in_progress" });
    await services.projects.updateStatus(before[0], { project_status: "review" });
    await services.projects.assignTeacher(before[1], { new_teacher_id: teacher.teacher_id });
    const created = await createProject(services, {
      project_name: "Created meanwhile",
      project_desc: "Only in the log of the backup",
      company_id: 9,
    });
    const late = path.join(work, "moving-late");
    expect(await runScript("db-backup", [late], { MONGODB_URI: uriOf(db.connection.name) })).toMatchObject({ code: 0 });
    const name = db.connection.name;
    fs.copyFileSync(path.join(early, name, "projects.bson"), path.join(late, name, "projects.bson"));
    const manifestFile = path.join(late, "manifest.json");
    const manifest = JSON.parse(fs.readFileSync(manifestFile, "utf8"));
    manifest.collections.projects = JSON.parse(
      fs.readFileSync(path.join(early, "manifest.json"), "utf8"),
    ).collections.projects;
    fs.writeFileSync(manifestFile, JSON.stringify(manifest));

    const restored = await target();
    const run = await runScript("db-restore", [late], { MONGODB_URI: uriOf(restored.connection.name) });
    expect(run).toMatchObject({ code: 0 });
    expect(run.lines).toContainEqual("Projects: 3 brought up to their newest revision in the change log");
    // What a change moves, per project (every field is compared just below): a readable diff when one lags.
    const projects = async (db: Database) =>
      (await db.connection.db!.collection("projects").find().sort({ _id: 1 }).toArray()).map(
        ({ _id, revision, project_status, teacher_id, project_name, project_id }) => ({
          _id,
          project_id,
          revision,
          project_status,
          teacher_id,
          project_name,
        }),
      );
    const now = await projects(db);
    expect(now.map((p) => p.project_id)).toContain(created.project_id);
    expect(await projects(restored)).toEqual(now);
    expect(await contentsOf(restored.connection.db!)).toEqual(await contentsOf(db.connection.db!));
    expect(await runScript("db-check", [], { MONGODB_URI: uriOf(restored.connection.name) })).toMatchObject({
      code: 0,
    });
  });

  it("refuses to write a backup into a directory that exists", async () => {
    const run = await runScript("db-backup", [backup], { MONGODB_URI: uriOf(source.connection.name) });
    expect(run.code).toBe(1);
    expect(run.lines.at(-1)).toMatch(/^db:backup refused: .* exists already/);
  });

  it("exits 2 when it cannot reach the database", async () => {
    const run = await runScript("db-backup", [path.join(work, "unreachable")], {
      MONGODB_URI: "mongodb://127.0.0.1:9/none",
      DB_TIMEOUT_MS: "500",
    });
    expect(run.code).toBe(2);
    expect(run.lines.at(-1)).toMatch(/^db:backup failed: /);
    expect(fs.existsSync(path.join(work, "unreachable"))).toBe(false);
    expect(fs.readdirSync(work).filter((entry) => entry.includes(".partial-"))).toEqual([]);
  });
});
