// npm run bench:limits: the query limits under attack and at their maximum, measured against the real service
// (`node dist/src/index.js` in a child process, so /healthz is polled from outside its event loop) on the seed
// data plus one teacher with 150 projects. Prints one table; the README's "Query limits" figures come from it.
import "reflect-metadata";
import { spawn, type ChildProcess } from "node:child_process";
import os from "node:os";
import path from "node:path";
import { parse } from "graphql";
import { openDatabase } from "../src/persistence";
import { loadBenchConfig } from "./bench-config";
import { databaseUri, startBenchServer } from "./bench-database";
import { MAX_QUERY_COST, queryCost } from "../src/graphql/query-cost";
import { getSchema } from "../src/graphql/schema";
import { seedDatabase } from "../src/seed/seed";
import pino from "pino";
import { createServices } from "../src/services";
import { freePort } from "./free-port";

const BENCH = loadBenchConfig();
const RUNS = BENCH.runs;
const IDLE_MS = 2000;
const HEAVY_PROJECTS = 150;

const PROJECT_FIELDS =
  "project_id project_name project_desc company_id project_status project_url start_date end_date teacher_id created_at updated_at";
const REPORTED_SELECTION =
  "items { teacher { projects { project_id project_name project_desc start_date end_date teacher { projects { project_id project_name project_desc start_date end_date } } } } }";

interface Case {
  name: string;
  /** Empty: no query, /healthz alone for IDLE_MS (the machine's own noise, as a baseline). */
  query: string;
  expectStatus: number;
  runs: number;
  concurrency?: number;
}

function cases(heavyTeacher: number): Case[] {
  const reported = `projects(filter: { teacher_id: ${heavyTeacher} }, limit: 100) { ${REPORTED_SELECTION} }`;
  return [
    { name: "no query: /healthz alone (baseline)", query: "", expectStatus: 200, runs: 0 },
    { name: "reported query (refused)", query: `{ ${reported} }`, expectStatus: 400, runs: 3 * RUNS },
    {
      name: "reported query, three aliases (refused)",
      query: `{ a: ${reported} b: ${reported} c: ${reported} }`,
      expectStatus: 400,
      runs: 3 * RUNS,
    },
    {
      name: "100 projects with their teacher, every field",
      query: `{ projects(limit: 100) { total offset limit has_more items { ${PROJECT_FIELDS} teacher { teacher_id teacher_name } } } }`,
      expectStatus: 200,
      runs: RUNS,
    },
    {
      name: "20 teachers with 20 projects each, every field",
      query: `{ teachers(limit: 20) { total offset limit has_more items { teacher_id teacher_name projects(limit: 20) { ${PROJECT_FIELDS} } } } }`,
      expectStatus: 200,
      runs: RUNS,
    },
    {
      name: "100 teachers with 95 projects each (ids)",
      query: "{ teachers(limit: 100) { items { projects(limit: 95) { project_id } } } }",
      expectStatus: 200,
      runs: RUNS,
    },
    {
      name: "100 projects, every field, each with 7 of its teacher's projects, every field",
      query: `{ projects(filter: { teacher_id: ${heavyTeacher} }, limit: 100) { items { ${PROJECT_FIELDS} teacher { projects(limit: 7) { ${PROJECT_FIELDS} } } } } }`,
      expectStatus: 200,
      runs: RUNS,
    },
    {
      name: "100 projects, each with 95 of its teacher's projects (ids)",
      query: `{ projects(filter: { teacher_id: ${heavyTeacher} }, limit: 100) { items { project_id teacher { projects(limit: 95) { project_id } } } } }`,
      expectStatus: 200,
      runs: RUNS,
    },
    {
      name: "the same, 4 at a time",
      query: `{ projects(filter: { teacher_id: ${heavyTeacher} }, limit: 100) { items { project_id teacher { projects(limit: 95) { project_id } } } } }`,
      expectStatus: 200,
      runs: 4 * RUNS,
      concurrency: 4,
    },
  ];
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** The service as `npm start` runs it, on the bench's database, header auth, no rate limit. */
async function startService(uri: string): Promise<{ base: string; child: ChildProcess }> {
  const port = await freePort();
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (!/^(AUTH_|NODE_ENV$|PORT$|HOST$|MONGODB_URI$|PROJECT_STATUS_WORKFLOW$|LOG_LEVEL$|RATE_LIMIT)/.test(key))
      env[key] = value;
  }
  Object.assign(env, {
    PORT: String(port),
    HOST: "127.0.0.1",
    MONGODB_URI: uri,
    LOG_LEVEL: "error",
    RATE_LIMIT_PER_MINUTE: "0",
  });
  const child = spawn(process.execPath, [path.join(__dirname, "..", "src", "index.js")], {
    env,
    stdio: ["ignore", "ignore", "inherit"],
  });
  const base = `http://127.0.0.1:${port}`;
  for (let i = 0; i < 300; i++) {
    if (child.exitCode !== null) throw new Error(`the service exited with code ${child.exitCode}`);
    const ok = await fetch(`${base}/readyz`).then(
      (r) => r.ok,
      () => false,
    );
    if (ok) return { base, child };
    await sleep(100);
  }
  throw new Error("the service did not become ready in 30 s");
}

interface Measured {
  name: string;
  cost: number;
  statuses: Set<number>;
  runs: number;
  p50: number;
  max: number;
  bytes: number;
  healthP50: number;
  healthP95: number;
  healthMax: number;
  healthPolls: number;
}

const percentile = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0;

async function measure(base: string, c: Case): Promise<Measured> {
  const post = async () => {
    const t0 = performance.now();
    const res = await fetch(`${base}/graphql`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-user-role": "admin" },
      body: JSON.stringify({ query: c.query }),
    });
    const body = await res.arrayBuffer();
    return { ms: performance.now() - t0, status: res.status, bytes: body.byteLength };
  };
  if (c.query) await post(); // warm-up: loaders, JIT, SQLite pages

  // /healthz polled back to back, every 5 ms, for as long as the queries run.
  const health: number[] = [];
  let polling = true;
  const poller = (async () => {
    while (polling) {
      const t0 = performance.now();
      await fetch(`${base}/healthz`).then((r) => r.arrayBuffer());
      health.push(performance.now() - t0);
      await sleep(5);
    }
  })();

  const latencies: number[] = [];
  const statuses = new Set<number>();
  let bytes = 0;
  let next = 0;
  if (!c.query) {
    await sleep(IDLE_MS);
    statuses.add(200);
  }
  await Promise.all(
    Array.from({ length: c.concurrency ?? 1 }, async () => {
      while (next < c.runs) {
        next++;
        const r = await post();
        latencies.push(r.ms);
        statuses.add(r.status);
        bytes = Math.max(bytes, r.bytes);
      }
    }),
  );
  polling = false;
  await poller;
  latencies.sort((a, b) => a - b);
  health.sort((a, b) => a - b);
  return {
    name: c.name,
    cost: c.query ? queryCost(getSchema(), parse(c.query)) : 0,
    statuses,
    runs: c.runs,
    p50: percentile(latencies, 50),
    max: latencies[latencies.length - 1] ?? 0,
    bytes,
    healthP50: percentile(health, 50),
    healthP95: percentile(health, 95),
    healthMax: health[health.length - 1] ?? 0,
    healthPolls: health.length,
  };
}

async function main(): Promise<void> {
  const server = await startBenchServer("limits");
  const dbUri = databaseUri(server, `bench_limits_${Date.now()}`);

  // Seed data, then one teacher with 150 projects, all through the domain services.
  const db = await openDatabase(dbUri);
  const services = createServices(db, undefined, pino({ level: "warn" }));
  process.stderr.write("Seeding, then 150 projects for one teacher...\n");
  await seedDatabase(services);
  const heavy = await services.teachers.create({ teacher_name: "Teacher With 150 Projects" });
  for (let i = 0; i < HEAVY_PROJECTS; i += 10) {
    await Promise.all(
      Array.from({ length: Math.min(10, HEAVY_PROJECTS - i) }, async (_, k) => {
        const project = await services.projects.create({
          project_name: `Bench limits project ${i + k + 1}`,
          project_desc: "One of many projects of one teacher, for the query-limit benchmark",
          company_id: 1,
          project_status: "proposed",
          start_date: "2026-01-01",
          end_date: "2026-06-30",
        });
        await services.projects.assignTeacher(project.project_id, { new_teacher_id: heavy.teacher_id });
      }),
    );
  }
  const [projects, teachers] = await Promise.all([
    db.models.Project.countDocuments(),
    db.models.Teacher.countDocuments(),
  ]);

  const { base, child } = await startService(dbUri);
  const results: Measured[] = [];
  try {
    for (const c of cases(heavy.teacher_id)) {
      process.stderr.write(`  ${c.name}\n`);
      const m = await measure(base, c);
      if (!m.statuses.has(c.expectStatus) || m.statuses.size !== 1) {
        throw new Error(`${c.name}: expected HTTP ${c.expectStatus}, got ${[...m.statuses].join(", ")}`);
      }
      results.push(m);
    }
  } finally {
    child.kill("SIGTERM");
    await new Promise((resolve) => (child.exitCode !== null ? resolve(null) : child.once("exit", resolve)));
  }

  process.stdout.write(
    `\nDatabase: ${server.description}; ${projects} projects, ${teachers} teachers ` +
      `(seed + one teacher with ${HEAVY_PROJECTS}); max cost ${MAX_QUERY_COST}; node ${process.version}; ${os.cpus().length} cores; ` +
      `load average ${os
        .loadavg()
        .map((l) => l.toFixed(1))
        .join(" ")}\n\n`,
  );
  process.stdout.write(
    "| query | cost | HTTP | runs | p50 ms | max ms | answer bytes | /healthz p50 / p95 / max ms (polls) |\n|---|---|---|---|---|---|---|---|\n",
  );
  for (const r of results) {
    process.stdout.write(
      `| ${r.name} | ${r.cost} | ${[...r.statuses].join(",")} | ${r.runs} | ${r.p50.toFixed(1)} | ${r.max.toFixed(1)} | ` +
        `${r.bytes} | ${r.healthP50.toFixed(1)} / ${r.healthP95.toFixed(1)} / ${r.healthMax.toFixed(1)} (${r.healthPolls}) |\n`,
    );
  }

  await db.connection.dropDatabase();
  await db.close();
  await server.stop();
}

main().catch((err) => {
  process.stderr.write(`${(err as Error).stack ?? err}\n`);
  process.exit(1);
});
