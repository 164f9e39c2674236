// Under concurrency: exactly one of several identical creations or assignments succeeds (the others are CONFLICT),
// concurrent status changes form one valid chain of allowed transitions, distinct creations all succeed with
// distinct ids, ids start at 1 and increase, also across two service instances.
// Every test runs on a fresh database of its own, so ids are predictable.
import { parseStatusWorkflow } from "../../src/components/projects";
import {
  AssignTeacherDocument,
  CreateProjectDocument,
  CreateStudentDocument,
  CreateTeacherDocument,
  ProjectHistoryDocument,
  UpdateProjectStatusDocument,
} from "../generated/graphql";
import { EMBEDDED_FERRETDB_POOL_SIZE } from "../../src/db/configured-database";
import type { Database } from "../../src/persistence";
import { startTestApp, type TestApp } from "../helpers/app";
import { dropTestDatabase, openTestDatabase } from "../helpers/database";
import {
  ADMIN,
  createProject,
  createTeacher,
  payloadOf,
  projectInput,
  STUDENT,
  studentInput,
  TEACHER,
  unique,
} from "./support";

const N = 20;

async function withFreshApp(run: (t: TestApp) => Promise<void>, db?: Database): Promise<void> {
  const t = await startTestApp({ db });
  try {
    await run(t);
  } finally {
    await t.close();
  }
}

function tally(payloads: { success: boolean; code?: string | null }[]) {
  const result: Record<string, number> = {};
  for (const p of payloads) {
    const key = p.success ? "success" : String(p.code);
    result[key] = (result[key] ?? 0) + 1;
  }
  return result;
}

describe("concurrency", () => {
  it("when projects are created one after another on a fresh database, then their ids are 1, 2, 3", () =>
    withFreshApp(async (t) => {
      const ids: number[] = [];

      for (let i = 0; i < 3; i++) ids.push((await createProject(t)).project_id);

      expect(ids).toEqual([1, 2, 3]);
      const stored = await t.db.models.Project.find().sort({ project_id: 1 }).lean();
      expect(stored.map((p) => p.project_id)).toEqual([1, 2, 3]);
    }));

  it(`when ${N} identical createProject calls run at once, then exactly one succeeds, ${N - 1} are CONFLICT and one project is stored`, () =>
    withFreshApp(async (t) => {
      const input = projectInput({ project_name: unique("Same Project"), company_id: 3 });

      const responses = await Promise.all(
        Array.from({ length: N }, () => t.gql(CreateProjectDocument, { input }, STUDENT)),
      );

      const payloads = responses.map(payloadOf);
      expect(tally(payloads)).toEqual({ success: 1, CONFLICT: N - 1 });
      for (const p of payloads.filter((p) => !p.success)) {
        expect(p.data).toBeNull();
        expect(p.message).toMatch(/project_name/);
      }
      const winner = payloads.find((p) => p.success)!.data as { project_id: number };
      const stored = await t.db.models.Project.find().lean();
      expect(stored).toHaveLength(1);
      expect(stored[0]).toMatchObject({
        project_id: winner.project_id,
        project_name: input.project_name,
        company_id: 3,
      });
      expect(winner.project_id).toBeGreaterThanOrEqual(1);
    }));

  it(`when ${N} identical names differing only in case and spaces are created at once, then exactly one succeeds`, () =>
    withFreshApp(async (t) => {
      const base = unique("Case Race");
      const variants = Array.from({ length: N }, (_, i) => (i % 2 ? ` ${base.toUpperCase()} ` : base.toLowerCase()));

      const responses = await Promise.all(
        variants.map((name) =>
          t.gql(CreateProjectDocument, { input: projectInput({ project_name: name, company_id: 4 }) }, STUDENT),
        ),
      );

      expect(tally(responses.map(payloadOf))).toEqual({ success: 1, CONFLICT: N - 1 });
      expect(await t.db.models.Project.countDocuments()).toBe(1);
    }));

  it(`when ${N} changes run at once on the embedded database's pool of ${EMBEDDED_FERRETDB_POOL_SIZE} connections, then every one succeeds`, async () => {
    // As npm start opens the embedded FerretDB: a small pool (configured-database.ts), and on FerretDB one write of
    // the process at a time (database.ts). Transactions waiting inside the database would hold every connection.
    const db = await openTestDatabase(undefined, { maxPoolSize: EMBEDDED_FERRETDB_POOL_SIZE });
    try {
      await withFreshApp(async (t) => {
        const created = await Promise.all(
          Array.from({ length: N }, () => t.gql(CreateProjectDocument, { input: projectInput() }, STUDENT)),
        );
        expect(tally(created.map(payloadOf))).toEqual({ success: N });
        const ids = created.map((r) => (payloadOf(r).data as { project_id: number }).project_id);
        const changed = await Promise.all(
          ids.map((projectId) =>
            t.gql(UpdateProjectStatusDocument, { projectId, input: { project_status: "in_progress" } }, ADMIN),
          ),
        );
        expect(tally(changed.map(payloadOf))).toEqual({ success: N });
        expect(await t.db.models.Project.countDocuments({ revision: 2 })).toBe(N);
      }, db);
    } finally {
      await dropTestDatabase(db);
    }
  });

  it(`when ${N} distinct createProject calls run at once, then all succeed with ${N} distinct ids from 1`, () =>
    withFreshApp(async (t) => {
      const inputs = Array.from({ length: N }, () => projectInput());

      const responses = await Promise.all(inputs.map((input) => t.gql(CreateProjectDocument, { input }, STUDENT)));

      const payloads = responses.map(payloadOf);
      expect(tally(payloads)).toEqual({ success: N });
      const ids = payloads.map((p) => (p.data as { project_id: number }).project_id);
      expect(new Set(ids).size).toBe(N);
      expect(Math.min(...ids)).toBe(1);
      for (const id of ids) expect(Number.isInteger(id)).toBe(true);
      const stored = await t.db.models.Project.find().lean();
      expect(stored).toHaveLength(N);
      expect(new Set(stored.map((p) => p.project_id))).toEqual(new Set(ids));
      expect(new Set(stored.map((p) => p.project_name))).toEqual(new Set(inputs.map((i) => i.project_name)));
      // The next id after the burst is larger than every id handed out during it.
      expect((await createProject(t)).project_id).toBeGreaterThan(Math.max(...ids));
    }));

  it(`when ${N} distinct projects are created at once through two service instances on one database, then the ids are all distinct`, () =>
    withFreshApp(async (t) => {
      const other = await startTestApp({ db: t.db });
      try {
        const responses = await Promise.all(
          Array.from({ length: N }, (_, i) =>
            (i % 2 ? other : t).gql(CreateProjectDocument, { input: projectInput() }, ADMIN),
          ),
        );

        const payloads = responses.map(payloadOf);
        expect(tally(payloads)).toEqual({ success: N });
        const ids = payloads.map((p) => (p.data as { project_id: number }).project_id);
        expect(new Set(ids).size).toBe(N);
        expect(Math.min(...ids)).toBe(1);
        expect(await t.db.models.Project.countDocuments()).toBe(N);
      } finally {
        await other.app.close();
      }
    }));

  it(`when ${N} createStudent calls with the same email (in varying case) run at once, then exactly one succeeds and one student is stored`, () =>
    withFreshApp(async (t) => {
      const email = `${unique("race")}@example.com`;
      const inputs = Array.from({ length: N }, (_, i) => studentInput({ email: i % 2 ? email.toUpperCase() : email }));

      const responses = await Promise.all(inputs.map((input) => t.gql(CreateStudentDocument, { input }, TEACHER)));

      const payloads = responses.map(payloadOf);
      expect(tally(payloads)).toEqual({ success: 1, CONFLICT: N - 1 });
      for (const p of payloads.filter((p) => !p.success)) expect(p.message).toMatch(/email/);
      const stored = await t.db.models.Student.find().lean();
      expect(stored).toHaveLength(1);
      expect(stored[0].email).toBe(email);
    }));

  it(`when ${N} distinct teachers are created at once, then all succeed with distinct ids from 1`, () =>
    withFreshApp(async (t) => {
      const responses = await Promise.all(
        Array.from({ length: N }, () => t.gql(CreateTeacherDocument, { input: { teacher_name: unique("T") } }, ADMIN)),
      );

      const payloads = responses.map(payloadOf);
      expect(tally(payloads)).toEqual({ success: N });
      const ids = payloads.map((p) => (p.data as { teacher_id: number }).teacher_id);
      expect(new Set(ids).size).toBe(N);
      expect(Math.min(...ids)).toBe(1);
      expect(await t.db.models.Teacher.countDocuments()).toBe(N);
    }));

  // Every change is one conditional update (atomic on MongoDB and on the patched embedded FerretDB), so identical
  // changes have exactly one winner; the others find the condition false and are told why.
  const CALLERS = 50;
  const ROUNDS = 20;

  it(`when the same teacher is assigned to one project by ${CALLERS} calls at once, ${ROUNDS} rounds in a row, then each round exactly one succeeds and ${CALLERS - 1} are CONFLICT`, () =>
    withFreshApp(async (t) => {
      const teacher = await createTeacher(t);
      for (let round = 0; round < ROUNDS; round++) {
        const project = await createProject(t);
        const variables = { projectId: project.project_id, input: { new_teacher_id: teacher.teacher_id } };

        const responses = await Promise.all(
          Array.from({ length: CALLERS }, () => t.gql(AssignTeacherDocument, variables, TEACHER)),
        );

        expect({ round, outcome: tally(responses.map(payloadOf)) }).toEqual({
          round,
          outcome: { success: 1, CONFLICT: CALLERS - 1 },
        });
        const stored = await t.db.models.Project.findOne({ project_id: project.project_id }).lean();
        expect(stored).toMatchObject({ teacher_id: teacher.teacher_id, revision: 2 });
        expect(await t.db.models.ProjectChange.countDocuments({ project_id: project.project_id })).toBe(2);
      }
    }));

  it(`when two service instances on one database each get ${CALLERS / 2} identical assignTeacher calls at once, then exactly one succeeds`, () =>
    withFreshApp(async (t) => {
      const other = await startTestApp({ db: t.db });
      try {
        const project = await createProject(t);
        const teacher = await createTeacher(t);
        const variables = { projectId: project.project_id, input: { new_teacher_id: teacher.teacher_id } };

        const responses = await Promise.all(
          Array.from({ length: CALLERS }, (_, i) => (i % 2 ? other : t).gql(AssignTeacherDocument, variables, TEACHER)),
        );

        expect(tally(responses.map(payloadOf))).toEqual({ success: 1, CONFLICT: CALLERS - 1 });
        expect(await t.db.models.Project.findOne({ project_id: project.project_id }).lean()).toMatchObject({
          teacher_id: teacher.teacher_id,
          revision: 2,
        });
      } finally {
        await other.app.close();
      }
    }));

  it(`when ${CALLERS} status changes with different statuses and no expected_revision run at once through two instances (REST and GraphQL), then all succeed with ${CALLERS} revisions in one order and the project ends with the newest one's status`, () =>
    withFreshApp(async (t) => {
      const other = await startTestApp({ db: t.db });
      try {
        const project = await createProject(t, { project_status: "planned" });
        const statuses = Array.from({ length: CALLERS }, (_, i) => `status-${i}`);

        const outcomes = await Promise.all(
          statuses.map(async (project_status, i) => {
            if (i % 2 === 0) {
              const res = await t.http("PUT", `/projects/${project.project_id}/updateStatus`, {
                body: { project_status },
                headers: TEACHER,
              });
              const body = res.body as { success: boolean; code?: string; data?: { revision: number } };
              return { success: body.success, code: body.code, revision: body.data?.revision, project_status };
            }
            const res = await other.gql(
              UpdateProjectStatusDocument,
              { projectId: project.project_id, input: { project_status } },
              TEACHER,
            );
            const payload = payloadOf(res);
            const data = payload.data as { revision: number } | null;
            return { success: payload.success, code: payload.code, revision: data?.revision, project_status };
          }),
        );

        expect(tally(outcomes)).toEqual({ success: CALLERS });
        const revisions = outcomes.map((o) => o.revision!).sort((a, b) => a - b);
        expect(revisions).toEqual(Array.from({ length: CALLERS }, (_, i) => i + 2));
        const newest = outcomes.find((o) => o.revision === CALLERS + 1)!;
        const stored = await t.db.models.Project.findOne({ project_id: project.project_id }).lean();
        expect(stored).toMatchObject({ revision: CALLERS + 1, project_status: newest.project_status });
        // The history is one chain: each change starts from the status the previous one left, as its caller was told.
        const history = await t.gql(ProjectHistoryDocument, { projectId: project.project_id, limit: 100 }, TEACHER);
        const items = [...history.data!.project!.history.items].reverse();
        expect(items.map((item) => item.revision)).toEqual(Array.from({ length: CALLERS + 1 }, (_, i) => i + 1));
        let status = "planned";
        for (const item of items.slice(1)) {
          expect(item.changes[0]).toMatchObject({ field: "project_status", from: status });
          expect(item.changes[0].to).toBe(outcomes.find((o) => o.revision === item.revision)!.project_status);
          status = item.changes[0].to!;
        }
        // The log holds them in revision order.
        const logged = await t.db.models.ProjectChange.find({ project_id: project.project_id }).sort({ seq: 1 }).lean();
        expect(logged.map((entry) => entry.revision)).toEqual(items.map((item) => item.revision));
      } finally {
        await other.app.close();
      }
    }));

  it(`when ${CALLERS} changes name the same expected_revision through two instances at once, then exactly one succeeds and the others are CONFLICT`, () =>
    withFreshApp(async (t) => {
      const other = await startTestApp({ db: t.db });
      try {
        const project = await createProject(t, { project_status: "planned" });

        const responses = await Promise.all(
          Array.from({ length: CALLERS }, (_, i) =>
            (i % 2 ? other : t).gql(
              UpdateProjectStatusDocument,
              { projectId: project.project_id, input: { project_status: `s-${i}`, expected_revision: 1 } },
              TEACHER,
            ),
          ),
        );

        expect(tally(responses.map(payloadOf))).toEqual({ success: 1, CONFLICT: CALLERS - 1 });
        expect(await t.db.models.Project.findOne({ project_id: project.project_id }).lean()).toMatchObject({
          revision: 2,
        });
        expect(await t.db.models.ProjectChange.countDocuments({ project_id: project.project_id })).toBe(2);
      } finally {
        await other.app.close();
      }
    }));

  it(`when ${N} identical createProject calls run at once through two instances, then exactly one succeeds`, () =>
    withFreshApp(async (t) => {
      const other = await startTestApp({ db: t.db });
      try {
        const input = projectInput({ project_name: unique("Twin") });

        const responses = await Promise.all(
          Array.from({ length: N }, (_, i) => (i % 2 ? other : t).gql(CreateProjectDocument, { input }, STUDENT)),
        );

        expect(tally(responses.map(payloadOf))).toEqual({ success: 1, CONFLICT: N - 1 });
        expect(await t.db.models.Project.countDocuments({ project_name: input.project_name })).toBe(1);
        expect(await t.db.models.ProjectChange.countDocuments({ operation: "createProject" })).toBe(1);
      } finally {
        await other.app.close();
      }
    }));

  it(`when ${CALLERS} status changes run at once under a workflow, then each success is a transition allowed from the status it replaced and the history is one valid chain`, async () => {
    const workflow = parseStatusWorkflow(
      JSON.stringify({
        initial: ["proposed"],
        transitions: {
          proposed: ["in_progress", "cancelled"],
          in_progress: ["review", "cancelled"],
          review: ["in_progress", "completed"],
          completed: [],
          cancelled: [],
        },
      }),
    );
    const t = await startTestApp({ statusWorkflow: workflow });
    try {
      const project = await createProject(t, { project_status: "proposed" });
      const targets = ["in_progress", "review", "completed", "cancelled", "in_progress"];

      const responses = await Promise.all(
        Array.from({ length: CALLERS }, (_, i) =>
          t.gql(
            UpdateProjectStatusDocument,
            { projectId: project.project_id, input: { project_status: targets[i % targets.length] } },
            TEACHER,
          ),
        ),
      );

      const payloads = responses.map(payloadOf);
      const outcome = tally(payloads);
      expect(Object.keys(outcome).filter((k) => !["success", "CONFLICT", "BAD_REQUEST"].includes(k))).toEqual([]);
      expect(outcome.success).toBeGreaterThanOrEqual(1);
      const history = await t.gql(ProjectHistoryDocument, { projectId: project.project_id, limit: 100 }, TEACHER);
      const items = [...history.data!.project!.history.items].reverse(); // oldest first
      expect(items[0].operation).toBe("createProject");
      // One entry per revision, each status change starting from the status the previous revision left.
      let status = "proposed";
      items.forEach((item, index) => expect(item.revision).toBe(index + 1));
      for (const item of items.slice(1)) {
        const [change] = item.changes;
        expect(change.field).toBe("project_status");
        expect(change.from).toBe(status);
        expect(workflow.transitions.get(status)!.has(change.to!)).toBe(true);
        status = change.to!;
      }
      // Every success is one of those revisions (setting the current status again records nothing).
      const recorded = new Map(items.map((i) => [i.revision, i]));
      for (const p of payloads.filter((p) => p.success)) {
        const data = p.data as { revision: number; project_status: string };
        const entry = recorded.get(data.revision)!;
        expect(entry).toBeDefined();
        if (data.revision > 1) expect(entry.changes[0].to).toBe(data.project_status);
      }
      expect(await t.db.models.Project.findOne({ project_id: project.project_id }).lean()).toMatchObject({
        project_status: status,
        revision: items.length,
      });
    } finally {
      await t.close();
    }
  });
});
