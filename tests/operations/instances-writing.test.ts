// Several instances writing at once on one database (contract: "Several instances writing at once"): real service
// processes (dist/src/index.js) on the run's embedded FerretDB by MONGODB_URI, as a deployment runs them. Every one of
// many concurrent distinct changes sent to every instance at once succeeds, and the change log's positions stay whole:
// 1, 2, 3 … with no gap. A change that truly cannot get its turn (the queue of waiting writes over its bound) is shed
// with 503 and Retry-After (REST's envelope; GraphQL's error with extensions.code SERVICE_UNAVAILABLE), counted in
// GET /metrics, and nothing of it is stored.
import { CreateProjectDocument } from "../generated/graphql";
import { startTestApp } from "../helpers/app";
import { startServiceProcess, type ServiceProcess } from "../helpers/service-process";
import { dropTestDatabase, openTestDatabase, testDbName, testMongoUri } from "../helpers/database";
import { projectInput, STUDENT, studentInput } from "./support";

/** Concurrent changes sent to each instance at once, of each kind (bounded for CI's time). */
const PER_INSTANCE = 25;
/**
 * The instances' DB_TIMEOUT_MS: the suite runs test files side by side on the same cores, which can slow a burst far
 * below what the service takes alone; every change must still succeed, within this budget.
 */
const BUDGET_MS = "20000";

/** An instance of the service on the database `uri`, as a real process. */
const startInstance = (uri: string) =>
  startServiceProcess({ MONGODB_URI: uri, LOG_LEVEL: "info", DB_TIMEOUT_MS: BUDGET_MS });

const HEADERS = { "content-type": "application/json", "x-user-role": "admin", "x-user-id": "a-1" };

async function call(url: string, method: string, body: unknown): Promise<{ status: number; body: unknown }> {
  const response = await fetch(url, { method, headers: HEADERS, body: JSON.stringify(body) });
  return { status: response.status, body: await response.json() };
}

const tally = (statuses: number[]) =>
  statuses.reduce<Record<number, number>>((counts, s) => ({ ...counts, [s]: (counts[s] ?? 0) + 1 }), {});

describe.each([2, 3])("%i service instances writing at once on one database", (count) => {
  const dbName = testDbName();
  let instances: ServiceProcess[] = [];
  beforeAll(async () => {
    const uri = `${testMongoUri().replace(/\/$/, "")}/${dbName}`;
    // The first creates the database's collections and indexes; the others open it as it is.
    instances = [await startInstance(uri)];
    instances.push(...(await Promise.all(Array.from({ length: count - 1 }, () => startInstance(uri)))));
  }, 120_000);
  afterAll(async () => {
    await Promise.all(instances.map((instance) => instance.stop()));
    const db = await openTestDatabase(dbName);
    await dropTestDatabase(db);
  });

  it(`when each of ${count} instances gets ${PER_INSTANCE} creations, status changes and assignments at once, then every change succeeds and the log's positions have no gap`, async () => {
    const [first] = instances;
    const teacher = await call(`${first.url}/graphql`, "POST", {
      query: "mutation ($n: String!) { createTeacher(input: { teacher_name: $n }) { data { teacher_id } } }",
      variables: { n: `Teacher ${count}` },
    });
    const teacherId = (teacher.body as { data: { createTeacher: { data: { teacher_id: number } } } }).data.createTeacher
      .data.teacher_id;
    // Projects to change: two distinct ones per change, made beforehand through the first instance.
    const targets: number[] = [];
    for (let i = 0; i < 2 * PER_INSTANCE * count; i++) {
      const made = await call(`${first.url}/projects`, "POST", projectInput());
      expect(made.status).toBe(201);
      targets.push((made.body as { data: { project_id: number } }).data.project_id);
    }
    const created = projectInput;
    const changes = instances.flatMap((instance, i) =>
      Array.from({ length: PER_INSTANCE }, (_, k) => {
        const statusOf = targets[(i * PER_INSTANCE + k) * 2];
        const assignTo = targets[(i * PER_INSTANCE + k) * 2 + 1];
        return [
          call(`${instance.url}/projects`, "POST", created()),
          call(`${instance.url}/projects/${statusOf}/updateStatus`, "PUT", { project_status: `s-${i}-${k}` }),
          call(`${instance.url}/projects/${assignTo}/teacher`, "PUT", { new_teacher_id: teacherId }),
          // A single write outside transactions (its id's counter, then the insert), beside them.
          call(`${instance.url}/graphql`, "POST", {
            query: "mutation ($input: CreateStudentInput!) { createStudent(input: $input) { success code } }",
            variables: { input: studentInput() },
          }),
        ];
      }).flat(),
    );

    const answers = await Promise.all(changes);

    expect(tally(answers.map((a) => a.status))).toEqual({
      201: PER_INSTANCE * count,
      200: 3 * PER_INSTANCE * count,
    });
    const students = answers.filter((a) => JSON.stringify(a.body).includes('"createStudent"'));
    expect(students.map((a) => a.body)).toEqual(
      Array.from({ length: PER_INSTANCE * count }, () => ({ data: { createStudent: { success: true, code: null } } })),
    );
    // What is stored: every creation, every status and every assignment, each one revision more.
    const db = await openTestDatabase(dbName);
    try {
      const projects = await db.models.Project.find().lean();
      expect(projects).toHaveLength(targets.length + PER_INSTANCE * count);
      const byId = new Map(projects.map((p) => [p.project_id, p]));
      instances.forEach((_, i) => {
        for (let k = 0; k < PER_INSTANCE; k++) {
          expect(byId.get(targets[(i * PER_INSTANCE + k) * 2])).toMatchObject({
            project_status: `s-${i}-${k}`,
            revision: 2,
          });
          expect(byId.get(targets[(i * PER_INSTANCE + k) * 2 + 1])).toMatchObject({
            teacher_id: teacherId,
            revision: 2,
          });
        }
      });
      // The log: one entry per change, at positions 1 … n with no gap.
      const positions = (await db.models.ProjectChange.find({}, { seq: 1 }).lean()).map((e) => e.seq);
      const changesMade = targets.length + 3 * PER_INSTANCE * count;
      expect(positions.sort((a, b) => a - b)).toEqual(Array.from({ length: changesMade }, (_, i) => i + 1));
      expect(await db.models.Student.countDocuments()).toBe(PER_INSTANCE * count);
    } finally {
      await db.close();
    }
  }, 120_000);
});

describe("a change that cannot get its turn", () => {
  it("when more changes arrive than may wait, then the rest are shed with 503 and Retry-After on REST and GraphQL, counted, and none of them is stored", async () => {
    // One write at a time and at most 2 waiting: a burst of 30 cannot all wait.
    const db = await openTestDatabase(undefined, { writesAtOnce: 1, writesWaitingAtMost: 2 });
    const t = await startTestApp({ db, config: { rateLimitPerMinute: 0 } });
    try {
      const inputs = Array.from({ length: 30 }, () => projectInput());
      const answers = await Promise.all(
        inputs.map(async (input, i) => {
          if (i % 2 === 0) {
            const res = await fetch(`${t.url}/projects`, {
              method: "POST",
              headers: { "content-type": "application/json", ...STUDENT },
              body: JSON.stringify(input),
            });
            return { input, status: res.status, retryAfter: res.headers.get("retry-after"), body: await res.json() };
          }
          const res = await fetch(`${t.url}/graphql`, {
            method: "POST",
            headers: { "content-type": "application/json", ...STUDENT },
            body: JSON.stringify({
              query: "mutation ($input: CreateProjectInput!) { createProject(input: $input) { success code } }",
              variables: { input },
            }),
          });
          return { input, status: res.status, retryAfter: res.headers.get("retry-after"), body: await res.json() };
        }),
      );

      const shed = answers.filter((a) => a.status === 503);
      const done = answers.filter((a) => a.status !== 503);
      expect(shed.length).toBeGreaterThan(0);
      for (const a of shed) {
        expect(a.retryAfter).toBe("1");
        const errors = (a.body as { errors: { code?: string; reason?: string; extensions?: { code: string } }[] })
          .errors;
        // REST's envelope names the code in each entry; GraphQL's error in extensions.code.
        expect(errors[0].code ?? errors[0].extensions?.code).toBe("SERVICE_UNAVAILABLE");
      }
      for (const a of done) {
        expect(a.status === 201 || (a.status === 200 && JSON.stringify(a.body).includes('"success":true'))).toBe(true);
      }
      const stored = await db.models.Project.find().lean();
      expect(new Set(stored.map((p) => p.project_name))).toEqual(new Set(done.map((a) => a.input.project_name)));
      const metrics = await t.http<string>("GET", "/metrics");
      expect(metrics.body).toContain(`db_writes_shed_total{reason="queue_full"} ${shed.length}`);
    } finally {
      await t.app.close();
      await dropTestDatabase(db);
    }
  });

  it("when the queue has room, then a burst of changes through GraphQL all succeed", async () => {
    const db = await openTestDatabase(undefined, { writesAtOnce: 1 });
    const t = await startTestApp({ db, config: { rateLimitPerMinute: 0 } });
    try {
      const answers = await Promise.all(
        Array.from({ length: 30 }, () => t.gql(CreateProjectDocument, { input: projectInput() }, STUDENT)),
      );
      expect(answers.map((a) => a.data?.createProject.success)).toEqual(Array.from({ length: 30 }, () => true));
      expect(await db.models.Project.countDocuments()).toBe(30);
    } finally {
      await t.app.close();
      await dropTestDatabase(db);
    }
  });
});
