// The seed (npm run seed): a small realistic data set written through the domain services, and safe to run again.
import { parseStatusWorkflow } from "../../src/components/projects";
import type { Database } from "../../src/persistence";
import { seedDatabase, statusPath } from "../../src/seed/seed";
import { createServices } from "../../src/services";
import { dropTestDatabase, openTestDatabase } from "../helpers/database";
import { silentLogger } from "../helpers/fixtures";

const WORKFLOW = parseStatusWorkflow(
  JSON.stringify({
    initial: ["draft"],
    transitions: {
      draft: ["approved", "rejected"],
      approved: ["active"],
      active: ["done", "paused"],
      paused: ["active"],
      done: [],
      rejected: [],
    },
  }),
);

async function contents(db: Database) {
  const [projects, teachers, students] = await Promise.all([
    db.models.Project.find().sort({ project_id: 1 }).lean(),
    db.models.Teacher.find().sort({ teacher_id: 1 }).lean(),
    db.models.Student.find().sort({ student_id: 1 }).lean(),
  ]);
  const counters = await db.models.Counter.find().sort({ _id: 1 }).lean();
  return { projects, teachers, students, counters };
}

describe("seedDatabase", () => {
  let db: Database;
  beforeEach(async () => {
    db = await openTestDatabase();
  });
  afterEach(async () => {
    await dropTestDatabase(db);
  });

  it("when run on an empty database, then it creates 10 teachers, 50 students and 30 projects with counter ids", async () => {
    const summary = await seedDatabase(createServices(db, undefined, silentLogger));
    expect(summary.teachers).toEqual({ created: 10, present: 0 });
    expect(summary.students).toEqual({ created: 50, present: 0 });
    expect(summary.projects).toEqual({ created: 30, present: 0 });

    const { projects, teachers, students } = await contents(db);
    expect(teachers.map((t) => t.teacher_id)).toEqual(Array.from({ length: 10 }, (_, i) => i + 1));
    expect(students.map((s) => s.student_id)).toEqual(Array.from({ length: 50 }, (_, i) => i + 1));
    expect(projects.map((p) => p.project_id)).toEqual(Array.from({ length: 30 }, (_, i) => i + 1));
    expect(new Set(students.map((s) => s.email)).size).toBe(50);
    expect(new Set(students.map((s) => s.class_code)).size).toBeGreaterThanOrEqual(3);
  });

  it("when run, then projects span several companies and statuses and most have a teacher, every teacher some", async () => {
    const summary = await seedDatabase(createServices(db, undefined, silentLogger));
    const { projects } = await contents(db);
    expect(new Set(projects.map((p) => p.company_id)).size).toBeGreaterThanOrEqual(3);
    expect(new Set(projects.map((p) => p.project_status)).size).toBeGreaterThanOrEqual(4);
    const assigned = projects.filter((p) => p.teacher_id !== null);
    expect(assigned.length).toBe(summary.assigned);
    expect(assigned.length).toBeGreaterThan(projects.length / 2);
    expect(assigned.length).toBeLessThan(projects.length);
    expect(new Set(assigned.map((p) => p.teacher_id)).size).toBe(10);
    for (const p of projects) expect(p.end_date >= p.start_date).toBe(true);
  });

  it("when run a second time, then it adds nothing, changes nothing and takes no new ids", async () => {
    const services = createServices(db, undefined, silentLogger);
    await seedDatabase(services);
    const before = await contents(db);
    const again = await seedDatabase(services);
    expect(again).toMatchObject({
      teachers: { created: 0, present: 10 },
      students: { created: 0, present: 50 },
      projects: { created: 0, present: 30 },
      assigned: 0,
    });
    expect(await contents(db)).toEqual(before);
  });

  it("when some seed entities already exist, then only the missing ones are created", async () => {
    const services = createServices(db, undefined, silentLogger);
    await services.teachers.create({ teacher_name: "Grace Hopper" });
    await services.students.create({
      student_name: "Liam N.",
      email: "LIAM.NGUYEN@students.example.edu",
      class_code: "X",
    });
    await services.projects.create({
      project_name: "  warehouse route PLANNER ",
      project_desc: "Made by hand before seeding",
      company_id: 1,
      project_status: "proposed",
      start_date: "2025-01-01",
      end_date: "2025-02-01",
    });
    const summary = await seedDatabase(services);
    expect(summary.teachers).toEqual({ created: 9, present: 1 });
    expect(summary.students).toEqual({ created: 49, present: 1 });
    expect(summary.projects).toEqual({ created: 29, present: 1 });
    const { teachers, projects } = await contents(db);
    expect(teachers.filter((t) => t.teacher_name === "Grace Hopper")).toHaveLength(1);
    expect(projects).toHaveLength(30);
  });

  it("when a status workflow is in force, then projects start in an initial status and reach varied allowed ones", async () => {
    const summary = await seedDatabase(createServices(db, WORKFLOW, silentLogger), { workflow: WORKFLOW });
    expect(summary.projects.created).toBe(30);
    const { projects } = await contents(db);
    const statuses = new Set(projects.map((p) => p.project_status));
    for (const s of statuses) expect(WORKFLOW.statuses).toContain(s);
    expect([...statuses].sort()).toEqual([...WORKFLOW.statuses].sort());
  });

  it("when a status is reachable only through others, then statusPath walks the workflow from an initial status", () => {
    expect(statusPath(undefined, "anything")).toEqual(["anything"]);
    expect(statusPath(WORKFLOW, "draft")).toEqual(["draft"]);
    expect(statusPath(WORKFLOW, "paused")).toEqual(["draft", "approved", "active", "paused"]);
    expect(statusPath(WORKFLOW, "rejected")).toEqual(["draft", "rejected"]);
  });
});
