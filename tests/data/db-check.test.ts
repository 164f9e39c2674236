// npm run db:check: lists every stored document that breaks the contract's rules, by collection, id and field, and
// exits non-zero when it finds one. Run as the real script (compiled by npm test's tsc) against a database of its own.
import { spawn } from "node:child_process";
import path from "node:path";
import type { Database } from "../../src/persistence";
import { createServices } from "../../src/services";
import { dropTestDatabase, openTestDatabase, testMongoUri } from "../helpers/database";
import { silentLogger } from "../helpers/fixtures";
import { insertProjects, insertStudents, insertTeachers } from "../lists/support";

const REPO = path.resolve(__dirname, "../..");

async function dbCheck(db: Database): Promise<{ code: number | null; stdout: string[]; stderr: string }> {
  const uri = new URL(testMongoUri());
  uri.pathname = `/${db.connection.name}`;
  const child = spawn(process.execPath, [path.join(REPO, "dist/scripts/db-check.js")], {
    cwd: REPO,
    env: { PATH: process.env.PATH, HOME: process.env.HOME, MONGODB_URI: uri.toString() },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  const code = await new Promise<number | null>((resolve) => child.on("exit", resolve));
  return { code, stdout: stdout.split("\n").filter(Boolean), stderr };
}

describe("npm run db:check", () => {
  let clean: Database;
  let broken: Database;
  beforeAll(async () => {
    clean = await openTestDatabase();
    broken = await openTestDatabase(`${clean.connection.name}_b`);
  });
  afterAll(async () => {
    await dropTestDatabase(clean);
    await dropTestDatabase(broken);
  });

  it("when every document was written by the service, then it finds nothing and exits 0", async () => {
    const services = createServices(clean, undefined, silentLogger);
    const teacher = await services.teachers.create({ teacher_name: "Ada" });
    const project = await services.projects.create({
      project_name: "Solar car",
      project_desc: "Build it\nin two lines",
      company_id: 2_147_483_647,
      project_status: "proposed",
      start_date: "2026-01-01",
      end_date: "2026-02-01",
    });
    await services.projects.assignTeacher(project.project_id, { new_teacher_id: teacher.teacher_id });
    await services.students.create({ student_name: "Lin", email: "Lin@Example.com", class_code: "B2" });

    const { code, stdout, stderr } = await dbCheck(clean);

    expect(stdout).toEqual([]);
    expect(stderr).toMatch(/No problems in 5 documents\./);
    expect(code).toBe(0);
  });

  it("when documents break the rules, then it lists each by collection, id, field and rule, and exits 1", async () => {
    await insertTeachers(broken, [1]);
    await insertProjects(broken, [
      { project_id: 1, company_id: 2_147_483_648 },
      { project_id: 2, project_name: "Bell\u0007" },
      { project_id: 3, teacher_id: 424_242 },
      { project_id: 4, teacher_id: 1, end_date: "2024-01-01" },
    ]);
    await broken.models.Teacher.collection.insertOne({
      _id: "2",
      teacher_id: 2,
      teacher_name: 42,
      created_at: new Date(),
      updated_at: new Date(),
    } as never);
    await insertStudents(broken, [{ student_id: 9_007_199_254_740_992, class_code: "B2" }]);
    await broken.models.Student.collection.insertOne({
      _id: "5",
      student_id: 5,
      student_name: "Upper",
      name_folded: "upper",
      email: "UPPER@EXAMPLE.ORG",
      class_code: "B2",
      created_at: new Date(),
      updated_at: new Date(),
    } as never);

    const now = new Date();
    await broken.models.ProjectChange.collection.insertMany([
      { _id: "void:9", seq: 8, void: true },
      {
        _id: "77:1",
        seq: 10,
        project_id: 77,
        revision: 1,
        operation: "createProject",
        actor_id: null,
        actor_role: "janitor",
        at: now,
        set: {},
        changes: [],
        project: {
          project_id: 77,
          project_name: "Gone",
          project_desc: "d",
          company_id: 2_147_483_648,
          project_status: "active",
          project_url: null,
          start_date: "2026-01-01",
          end_date: "2026-02-01",
          teacher_id: null,
          revision: 1,
          created_by: null,
          created_at: now,
          updated_at: now,
        },
      },
    ] as never[]);

    const { code, stdout } = await dbCheck(broken);

    expect(stdout).toEqual(
      expect.arrayContaining([
        "projects 1 company_id: must be a whole number from 1 to 2147483647 (stored: 2147483648)",
        expect.stringMatching(/^projects 2 project_name: must not contain control characters \(found U\+0007\)/),
        'projects 4 end_date: 2024-01-01 is before start_date 2025-01-01 (stored: "2024-01-01")',
        "projects 3 teacher_id: names teachers 424242, which does not exist",
        "teachers 2 teacher_name: must be a string (got integer) (stored: 42)",
        "students 9007199254740992 student_id: must be a whole number from 1 to 9007199254740991 (stored: 9007199254740992)",
        expect.stringMatching(
          /^students 5 email: is not stored in the form the service writes \("upper@example\.org"\)/,
        ),
      ]),
    );
    expect(stdout).toEqual(
      expect.arrayContaining([
        'project_changes void:9 _id: must be "void:8" (stored: "void:9")',
        'project_changes 77:1 actor_role: must be one of student, teacher, admin, none, system (stored: "janitor")',
        "project_changes 77:1 project.company_id: must be a whole number from 1 to 2147483647 (stored: 2147483648)",
        "project_changes 77:1 project_id: names projects 77, which does not exist",
      ]),
    );
    expect(stdout).toHaveLength(11);
    expect(code).toBe(1);
  });
});
