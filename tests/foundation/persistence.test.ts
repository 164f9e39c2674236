// When a document is written through Mongoose, then it is stored on the real server and reads back the same;
// when the embedded database restarts on the same DATA_DIR, then the data is still there.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { openDatabase, type Database } from "../../src/persistence";
import { startEmbeddedDatabase } from "../../src/db/embedded";
import { dropTestDatabase, openTestDatabase } from "../helpers/database";

describe("persistence through Mongoose", () => {
  let db: Database;
  beforeAll(async () => {
    db = await openTestDatabase();
  });
  afterAll(async () => {
    await dropTestDatabase(db);
  });

  it("when a teacher is written, then a fresh query reads it back from the server", async () => {
    await db.models.Teacher.create({ teacher_id: 7, teacher_name: "Grace Hopper" });
    const stored = await db.models.Teacher.findOne({ teacher_id: 7 }).lean();
    expect(stored).toMatchObject({ teacher_id: 7, teacher_name: "Grace Hopper" });
    expect(stored!.created_at).toBeInstanceOf(Date);
    const raw = await db.connection.db!.collection("teachers").findOne({ teacher_id: 7 });
    expect(raw?.teacher_name).toBe("Grace Hopper");
  });

  it("when documents are created, then _id is their numeric id as a string, so point reads use the primary key", async () => {
    await db.models.Project.create({
      project_id: 41,
      project_name: "P",
      name_key: "p",
      project_desc: "d",
      company_id: 1,
      project_status: "new",
      start_date: "2026-01-01",
      end_date: "2026-01-02",
    });
    await db.models.Student.create({ student_id: 42, student_name: "S", email: "s@example.com", class_code: "A" });
    await db.models.Teacher.create({ teacher_id: 43, teacher_name: "T" });
    const raw = db.connection.db!;
    expect(await raw.collection("projects").findOne({ _id: "41" as never })).toMatchObject({ project_id: 41 });
    expect(await raw.collection("students").findOne({ _id: "42" as never })).toMatchObject({ student_id: 42 });
    expect(await raw.collection("teachers").findOne({ _id: "43" as never })).toMatchObject({ teacher_id: 43 });
  });

  it("when a second document repeats a unique id, then the server rejects it with a duplicate-key error", async () => {
    await db.models.Teacher.create({ teacher_id: 8, teacher_name: "A" });
    await expect(db.models.Teacher.create({ teacher_id: 8, teacher_name: "B" })).rejects.toMatchObject({ code: 11000 });
    expect(await db.models.Teacher.countDocuments({ teacher_id: 8 })).toBe(1);
  });

  it("when the embedded database restarts on the same data directory, then stored data survives", async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "project-service-restart-"));
    const mode = (process.env.TEST_DATABASE_KIND ?? "auto") as "auto" | "mongod" | "ferretdb";
    try {
      const first = await startEmbeddedDatabase({ mode, dataDir, progress: () => undefined });
      const before = await openDatabase(first.uri, { dbName: "restart_check" });
      await before.models.Student.create({
        student_id: 1,
        student_name: "Lin",
        email: "lin@example.com",
        class_code: "A1",
      });
      await before.close();
      await first.stop();

      const second = await startEmbeddedDatabase({ mode, dataDir, progress: () => undefined });
      const after = await openDatabase(second.uri, { dbName: "restart_check" });
      const student = await after.models.Student.findOne({ student_id: 1 }).lean();
      await after.close();
      await second.stop();
      expect(student).toMatchObject({ student_name: "Lin", email: "lin@example.com" });
    } finally {
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
