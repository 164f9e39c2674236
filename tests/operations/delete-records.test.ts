// Deleting a teacher and erasing a student (contract, sixth revision: "A project's whole life, and a person's right
// to be forgotten"), on GraphQL and REST, against the embedded database: admin only; a teacher any project has is
// CONFLICT (IN_USE, with the count); a deleted record is gone from every read and deleting it again is NOT_FOUND; an
// erased student's name and email are in none of the database's files, in no backup taken afterwards, and in no line
// the service logged at LOG_LEVEL trace; the id is never given again.
import crypto from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import pino from "pino";
import { dumpDatabase } from "../../src/backup/backup";
import { startTestApp, type TestApp } from "../helpers/app";
import { testDbName, dropTestDatabase, openTestDatabase } from "../helpers/database";
import { ADMIN, createProject, createTeacher, TEACHER } from "./support";
import { filesHolding } from "../helpers/files";

const gql = async (t: TestApp, query: string, variables: Record<string, unknown>, headers = ADMIN) => {
  const res = await t.http<{ data?: Record<string, Record<string, unknown>>; errors?: unknown[] }>("POST", "/graphql", {
    body: { query, variables },
    headers,
  });
  return res.body;
};

const DELETE_TEACHER =
  "mutation ($id: Int!) { deleteTeacher(teacherId: $id) { success code message errors { reason } data { id } } }";
const DELETE_STUDENT =
  "mutation ($id: SafeInt!) { deleteStudent(studentId: $id) { success code message errors { reason } data { id } } }";
const globalId = (type: string, id: number) => Buffer.from(`${type}:${id}`).toString("base64url");

describe("deleting a teacher", () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(() => t.close());

  it("when a project has the teacher, then deleteTeacher is CONFLICT naming the count; once reassigned, the teacher is gone and deleting again is NOT_FOUND", async () => {
    const teacher = await createTeacher(t);
    const other = await createTeacher(t);
    const project = await createProject(t);
    const assign = (teacherId: number) =>
      t.http("PUT", `/projects/${project.project_id}/teacher`, { body: { new_teacher_id: teacherId }, headers: ADMIN });
    expect((await assign(teacher.teacher_id)).status).toBe(200);

    const refused = await gql(t, DELETE_TEACHER, { id: teacher.teacher_id });
    expect(refused.data?.deleteTeacher).toMatchObject({
      success: false,
      code: "CONFLICT",
      errors: [{ reason: "IN_USE" }],
      data: null,
    });
    expect(String(refused.data?.deleteTeacher.message)).toContain("1 project");
    expect(await t.db.models.Teacher.countDocuments({ teacher_id: teacher.teacher_id })).toBe(1);

    expect((await assign(other.teacher_id)).status).toBe(200);
    const deleted = await gql(t, DELETE_TEACHER, { id: teacher.teacher_id });
    expect(deleted.data?.deleteTeacher).toEqual({
      success: true,
      code: null,
      message: "Teacher deleted",
      errors: [],
      data: { id: globalId("Teacher", teacher.teacher_id) },
    });
    const read = await gql(t, "query ($id: Int!) { teacher(teacherId: $id) { teacher_id } }", {
      id: teacher.teacher_id,
    });
    expect(read.data?.teacher).toBeNull();
    const again = await gql(t, DELETE_TEACHER, { id: teacher.teacher_id });
    expect(again.data?.deleteTeacher).toMatchObject({ success: false, code: "NOT_FOUND" });
  });

  it("when assignments of a teacher race its deletion, then no project is left with a teacher that is gone", async () => {
    for (let round = 0; round < 3; round++) {
      const teacher = await createTeacher(t);
      const projects = await Promise.all(Array.from({ length: 8 }, () => createProject(t)));
      const assign = (projectId: number) =>
        gql(
          t,
          "mutation ($p: Int!, $t: Int!) { assignTeacher(projectId: $p, input: { new_teacher_id: $t }) { success code } }",
          { p: projectId, t: teacher.teacher_id },
        );

      const [deleted, ...assigned] = await Promise.all([
        gql(t, DELETE_TEACHER, { id: teacher.teacher_id }),
        ...projects.map((p) => assign(p.project_id)),
      ]);

      const stillThere = await t.db.models.Teacher.countDocuments({ teacher_id: teacher.teacher_id });
      const theirs = await t.db.models.Project.countDocuments({ teacher_id: teacher.teacher_id });
      const succeeded = assigned.filter((a) => a.data?.assignTeacher.success).length;
      expect(theirs).toBe(succeeded);
      if (deleted.data?.deleteTeacher.success) {
        // Deleted: every assignment came after it (NOT_FOUND), none before it.
        expect(stillThere).toBe(0);
        expect(theirs).toBe(0);
        for (const a of assigned) expect(a.data?.assignTeacher.code).toBe("NOT_FOUND");
      } else {
        // Refused: an assignment committed first.
        expect(deleted.data?.deleteTeacher).toMatchObject({ code: "CONFLICT", errors: [{ reason: "IN_USE" }] });
        expect(stillThere).toBe(1);
        expect(theirs).toBeGreaterThan(0);
      }
    }
  });

  it("when REST deletes a teacher, then it answers the envelope: 409 while in use, 200 with the global id, then 404; a teacher role is 403", async () => {
    const teacher = await createTeacher(t);
    const project = await createProject(t);
    await t.http("PUT", `/projects/${project.project_id}/teacher`, {
      body: { new_teacher_id: teacher.teacher_id },
      headers: ADMIN,
    });
    const other = await createTeacher(t);

    expect((await t.http("DELETE", `/teachers/${other.teacher_id}`, { headers: TEACHER })).status).toBe(403);
    const inUse = await t.http("DELETE", `/teachers/${teacher.teacher_id}`, { headers: ADMIN });
    expect(inUse).toMatchObject({ status: 409, body: { success: false, code: "CONFLICT" } });
    const done = await t.http("DELETE", `/teachers/${other.teacher_id}`, { headers: ADMIN });
    expect(done).toEqual({
      status: 200,
      body: { success: true, message: "Teacher deleted", data: { id: globalId("Teacher", other.teacher_id) } },
    });
    expect((await t.http("DELETE", `/teachers/${other.teacher_id}`, { headers: ADMIN })).status).toBe(404);
  });
});

describe("erasing a student", () => {
  const dbName = testDbName();
  const lines: string[] = [];
  let t: TestApp;
  beforeAll(async () => {
    const db = await openTestDatabase(dbName);
    // Everything the service logs, at its most detailed level.
    const logger = pino({ level: "trace" }, { write: (line: string) => void lines.push(line) });
    t = await startTestApp({ db, logger });
  });
  afterAll(async () => {
    await t.app.close();
    await dropTestDatabase(t.db);
  });

  async function createStudent(email: string, name: string): Promise<number> {
    const res = await gql(
      t,
      "mutation ($input: CreateStudentInput!) { createStudent(input: $input) { data { student_id } } }",
      { input: { student_name: name, email, class_code: "E1" } },
    );
    return (res.data?.createStudent.data as { student_id: number }).student_id;
  }

  it("when a student is erased, then the name and email are in no database file, no later backup and no log line, and the id is never given again", async () => {
    const secret = crypto.randomBytes(6).toString("hex");
    const email = `erase.${secret}@example.org`;
    const name = `Zoë Erasable ${secret}`;
    await createStudent(`kept.${crypto.randomBytes(6).toString("hex")}@example.org`, "Kept Student");
    const id = await createStudent(email, name);
    // A change of the record before the erasure leaves an older version of it behind too.
    await gql(
      t,
      'mutation ($id: SafeInt!) { updateStudent(studentId: $id, input: { class_code: "E2" }) { success } }',
      {
        id,
      },
    );
    const dataDir = process.env.TEST_FERRETDB_DIR;
    const files = () => (dataDir ? filesHolding(dataDir, secret).filter((f) => f.includes(dbName)) : []);
    if (dataDir) expect(files().length).toBeGreaterThan(0);

    const erased = await gql(t, DELETE_STUDENT, { id });

    expect(erased.data?.deleteStudent).toMatchObject({
      success: true,
      code: null,
      data: { id: globalId("Student", id) },
    });
    const read = await gql(t, "query ($id: SafeInt!) { student(studentId: $id) { student_id } }", { id });
    expect(read.data?.student).toBeNull();
    expect(await t.db.models.Student.countDocuments()).toBe(1);
    // The database's own files (the embedded one's SQLite file and its write-ahead log).
    expect(files()).toEqual([]);
    // A backup taken afterwards.
    const backup = fs.mkdtempSync(path.join(os.tmpdir(), "erase-backup-"));
    try {
      await dumpDatabase(t.db.connection.db!, backup, () => undefined);
      expect(filesHolding(backup, secret)).toEqual([]);
      expect(filesHolding(backup, "Kept Student").length).toBeGreaterThan(0);
    } finally {
      fs.rmSync(backup, { recursive: true, force: true });
    }
    // Whatever the service logged, from the creation on.
    expect(lines.length).toBeGreaterThan(0);
    expect(lines.filter((line) => line.includes(secret))).toEqual([]);
    // Deleting again: NOT_FOUND; the next student gets a new id.
    expect((await gql(t, DELETE_STUDENT, { id })).data?.deleteStudent).toMatchObject({ code: "NOT_FOUND" });
    expect(await createStudent(`next.${secret}@example.org`, "Next")).toBeGreaterThan(id);
  });

  it("when REST erases a student, then 200 with the global id, then 404; a teacher role is 403", async () => {
    const id = await createStudent(`rest.${crypto.randomBytes(4).toString("hex")}@example.org`, "Rest Student");

    expect((await t.http("DELETE", `/students/${id}`, { headers: TEACHER })).status).toBe(403);
    expect(await t.http("DELETE", `/students/${id}`, { headers: ADMIN })).toEqual({
      status: 200,
      body: {
        success: true,
        message: "Student erased: no copy of their name or email is kept",
        data: { id: globalId("Student", id) },
      },
    });
    expect((await t.http("DELETE", `/students/${id}`, { headers: ADMIN })).status).toBe(404);
  });
});
