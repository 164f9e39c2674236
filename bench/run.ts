// npm run bench: latency, throughput and server CPU per request of the main operations over HTTP, on the embedded
// database (or MONGODB_URI), against a fresh database of its own. Prints one table; no pass/fail — numbers for the
// notes. The HTTP client runs in a child process of its own (this file, forked with --client), so the CPU time this
// process spends per request is the service's alone (the embedded database is a process of its own too).
// BENCH_PROJECTS=20000 measures reads and changes among that many projects: all but the BENCH_REQUESTS created over
// HTTP are first written straight to the collections (spread over the bench's 20 teachers, 50 companies and 3
// statuses); BENCH_POOL_SIZE overrides the driver's connection pool size; BENCH_PUSHDOWN=off runs the embedded
// FerretDB without its pushdown to SQLite (as FerretDB 1.24 itself), for comparison. Each read scenario first runs
// a few unmeasured requests (warm-up).
import "reflect-metadata";
import { fork, type ChildProcess } from "node:child_process";
import os from "node:os";
import pino from "pino";
import { createApp } from "../src/app";
import { EMBEDDED_FERRETDB_POOL_SIZE } from "../src/db/configured-database";
import { openDatabase } from "../src/persistence";
import { loadBenchConfig } from "./bench-config";
import { BENCH_APP_CONFIG } from "./app-config";
import { seedProjects, startBenchServer } from "./bench-database";

const BENCH = loadBenchConfig();
const CONCURRENCY = BENCH.concurrency;
const REQUESTS = BENCH.requests;
const TEACHERS = 20;
/** Seeded projects belong to companies 100…149 and have these statuses (createProject uses companies 1…5). */
const COMPANIES = 50;
const STATUSES = ["active", "planned", "done"];
/** Tells this run's student emails from earlier runs' (the database is fresh, but to be safe). */
const RUN = Date.now().toString(36);
const PROJECTS = BENCH.projects;
const POOL_SIZE_OVERRIDE = BENCH.poolSize;
/** Projects stored when the scenarios after createProject run (seeded + created); the client learns it from argv. */
let stored = REQUESTS;
/** Spread over every stored project (a fixed stride, so runs are comparable), each project once. */
const spread = (i: number) => 1 + ((i * 7919) % stored);
const PAGES = Math.max(10, Math.ceil(REQUESTS / 20));
const PAGE_ITEMS = "has_more items{project_id project_status}";

interface Result {
  name: string;
  requests: number;
  seconds: number;
  p50: number;
  p95: number;
  p99: number;
  failures: number;
  /** CPU time (user + system) of the service process per request, in ms (the client is another process). */
  cpuMs: number;
}

/** What the client reports for one scenario. */
interface ClientRun {
  latencies: number[];
  failures: number;
  seconds: number;
}

type Gql = (
  query: string,
  variables: object,
  role?: string,
) => Promise<{ data?: Record<string, { success?: boolean }>; errors?: unknown[] }>;

/** The scenarios, in order: how many requests and what one request (number i) sends. */
/** Reads are first run WARMUP times unmeasured (the service's code paths and FerretDB's caches warm up); writes not,
 * so that they change exactly what the reads after them see. */
const WARMUP = 5;

const SCENARIOS: {
  name: string;
  total: number;
  write?: true;
  call: (gql: Gql, i: number) => Promise<boolean>;
}[] = [
  {
    name: "createProject",
    total: REQUESTS,
    write: true,
    call: async (gql, i) => {
      const r = await gql(
        "mutation($i:CreateProjectInput!){createProject(input:$i){success}}",
        {
          i: {
            project_name: `Bench project ${i}`,
            project_desc: "Benchmark project",
            company_id: 1 + (i % 5),
            project_status: "active",
            start_date: "2026-01-01",
            end_date: "2026-06-30",
          },
        },
        "student",
      );
      return r.data?.createProject?.success === true;
    },
  },
  {
    name: "createStudent",
    total: REQUESTS,
    write: true,
    call: async (gql, i) => {
      const r = await gql(
        "mutation($i:CreateStudentInput!){createStudent(input:$i){success}}",
        { i: { student_name: `Bench student ${i}`, email: `bench.${RUN}.${i}@school.test`, class_code: `C${i % 8}` } },
        "admin",
      );
      return r.data?.createStudent?.success === true;
    },
  },
  {
    name: "assignTeacher",
    total: REQUESTS,
    write: true,
    call: async (gql, i) => {
      const r = await gql(
        "mutation($p:Int!,$t:Int!){assignTeacher(projectId:$p,input:{new_teacher_id:$t}){success}}",
        { p: spread(i), t: 1 + (i % TEACHERS) },
        "teacher",
      );
      return r.data?.assignTeacher?.success === true;
    },
  },
  {
    name: "project (by id)",
    total: REQUESTS,
    call: async (gql, i) => {
      const r = await gql("query($p:Int!){project(projectId:$p){project_id teacher{teacher_name}}}", {
        p: spread(i + 1),
      });
      return !r.errors && r.data?.project != null;
    },
  },
  {
    name: "projects page of 100 (items only)",
    total: PAGES,
    call: async (gql) => {
      const r = await gql("{projects(limit:100){has_more items{project_id project_status}}}", {});
      return !r.errors;
    },
  },
  {
    name: "projects page of 100 + total",
    total: PAGES,
    call: async (gql) => {
      const r = await gql("{projects(limit:100){total has_more items{project_id project_status}}}", {});
      return !r.errors;
    },
  },
  {
    name: "projects page of 100 by teacher_id",
    total: PAGES,
    call: async (gql, i) => {
      const r = await gql(`query($t:Int!){projects(filter:{teacher_id:$t},limit:100){${PAGE_ITEMS}}}`, {
        t: 1 + (i % TEACHERS),
      });
      return !r.errors;
    },
  },
  {
    name: "projects page of 100 by company_id",
    total: PAGES,
    call: async (gql, i) => {
      const r = await gql(`query($c:Int!){projects(filter:{company_id:$c},limit:100){${PAGE_ITEMS}}}`, {
        c: 100 + (i % COMPANIES),
      });
      return !r.errors;
    },
  },
  {
    name: "projects page of 100 by project_status",
    total: PAGES,
    call: async (gql, i) => {
      const r = await gql(`query($s:String!){projects(filter:{project_status:$s},limit:100){${PAGE_ITEMS}}}`, {
        s: STATUSES[i % STATUSES.length],
      });
      return !r.errors;
    },
  },
  {
    name: "teachers(limit: 20) { projects(limit: 20) }",
    total: PAGES,
    call: async (gql) => {
      const r = await gql("{teachers(limit:20){items{teacher_id projects(limit:20){project_id}}}}", {});
      return !r.errors;
    },
  },
  {
    name: "projects page of 100 at the last offset",
    total: PAGES,
    call: async (gql) => {
      const r = await gql(`query($o:Int!){projects(offset:$o,limit:100){${PAGE_ITEMS}}}`, {
        o: Math.max(0, stored - 100),
      });
      return !r.errors;
    },
  },
  {
    name: "projects page of 100 + total + teacher + teacher.projects",
    total: PAGES,
    call: async (gql) => {
      const r = await gql(
        "{projects(limit:100){total items{project_id teacher{teacher_name projects{project_id}}}}}",
        {},
      );
      return !r.errors;
    },
  },
];

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

/** The client process: runs the scenario it is told (by index; -1 = setup) against the URL it was given. */
function client(url: string): void {
  const gql: Gql = async (query, variables, role = "admin") => {
    const res = await fetch(url, {
      method: "POST",
      headers: { "content-type": "application/json", "x-user-role": role },
      body: JSON.stringify({ query, variables }),
    });
    return (await res.json()) as Awaited<ReturnType<Gql>>;
  };
  process.on("message", async ({ index, warmup }: { index: number; warmup?: boolean }) => {
    if (warmup) {
      for (let k = 0; k < WARMUP; k++) await SCENARIOS[index].call(gql, SCENARIOS[index].total + k);
      process.send!({ latencies: [], failures: 0, seconds: 0 } satisfies ClientRun);
      return;
    }
    if (index === -1) {
      for (let i = 0; i < TEACHERS; i++) {
        await gql("mutation($n:String!){createTeacher(input:{teacher_name:$n}){success}}", { n: `Teacher ${i}` });
      }
      process.send!({ latencies: [], failures: 0, seconds: 0 } satisfies ClientRun);
      return;
    }
    const { total, call } = SCENARIOS[index];
    const latencies: number[] = [];
    let next = 0;
    let failures = 0;
    const started = performance.now();
    await Promise.all(
      Array.from({ length: CONCURRENCY }, async () => {
        while (next < total) {
          const i = next++;
          const t0 = performance.now();
          if (!(await call(gql, i))) failures++;
          latencies.push(performance.now() - t0);
        }
      }),
    );
    process.send!({ latencies, failures, seconds: (performance.now() - started) / 1000 } satisfies ClientRun);
  });
}

function ask(child: ChildProcess, index: number, warmup = false): Promise<ClientRun> {
  return new Promise((resolve) => {
    child.once("message", (run) => resolve(run as ClientRun));
    child.send({ index, warmup });
  });
}

async function main(): Promise<void> {
  const server = await startBenchServer("run", { ferretdb: { pushdown: BENCH.ferretdbPushdown } });
  const { embedded } = server;
  // As the service opens it (the pool configured-database.ts chooses), unless BENCH_POOL_SIZE says otherwise.
  const poolSize = POOL_SIZE_OVERRIDE ?? (embedded?.kind === "ferretdb" ? EMBEDDED_FERRETDB_POOL_SIZE : undefined);
  const db = await openDatabase(server.uri, {
    dbName: `bench_${Date.now()}`,
    ...(poolSize ? { maxPoolSize: poolSize } : {}),
  });
  const seeded = await seedProjects(db, Math.max(0, PROJECTS - REQUESTS), {
    companies: COMPANIES,
    statuses: STATUSES,
    teachers: TEACHERS,
  });
  const startCpu = process.cpuUsage();
  const startAt = performance.now();
  const app = await createApp({
    config: BENCH_APP_CONFIG,
    logger: pino({ level: "silent" }),
    db,
  });
  await app.listen({ port: 0, host: "127.0.0.1" });
  const startMs = performance.now() - startAt;
  const startUsed = process.cpuUsage(startCpu);
  const startCpuMs = (startUsed.user + startUsed.system) / 1000;
  const address = app.server.address();
  const url = `http://127.0.0.1:${typeof address === "object" && address ? address.port : 0}/graphql`;

  const loadAtStart = os.loadavg()[0].toFixed(2);
  const child = fork(__filename, ["--client", url, String(seeded + REQUESTS)], { stdio: "inherit" });
  await ask(child, -1);
  const results: Result[] = [];
  for (const [index, scenario] of SCENARIOS.entries()) {
    if (!scenario.write) await ask(child, index, true);
    const cpu = process.cpuUsage();
    const run = await ask(child, index);
    const used = process.cpuUsage(cpu);
    const latencies = run.latencies.sort((a, b) => a - b);
    results.push({
      name: scenario.name,
      requests: scenario.total,
      seconds: run.seconds,
      p50: percentile(latencies, 50),
      p95: percentile(latencies, 95),
      p99: percentile(latencies, 99),
      failures: run.failures,
      cpuMs: (used.user + used.system) / 1000 / scenario.total,
    });
  }
  child.kill();

  const rssMb = Math.round(process.memoryUsage().rss / 1024 / 1024);
  process.stdout.write(
    `\nDatabase: ${embedded ? embedded.description : "MONGODB_URI"}${embedded?.kind === "ferretdb" ? `, pushdown ${BENCH.ferretdbPushdown ? "on" : "off"}` : ""}; ${seeded + REQUESTS} projects; concurrency ${CONCURRENCY}; pool ${poolSize ?? "default"}; node ${process.version}; ${os.cpus().length} cores; NODE_ENV=${BENCH.nodeEnv ?? "(unset)"}\n`,
  );
  process.stdout.write(`createApp + listen: ${startMs.toFixed(0)} ms wall, ${startCpuMs.toFixed(0)} ms CPU\n`);
  process.stdout.write(
    `Load average (1 min) at the start and end of the scenarios: ${loadAtStart} and ${os.loadavg()[0].toFixed(2)}\n\n`,
  );
  process.stdout.write(
    "| operation | requests | req/s | p50 ms | p95 ms | p99 ms | service CPU ms/req | failures |\n|---|---|---|---|---|---|---|---|\n",
  );
  for (const r of results) {
    process.stdout.write(
      `| ${r.name} | ${r.requests} | ${(r.requests / r.seconds).toFixed(0)} | ${r.p50.toFixed(1)} | ${r.p95.toFixed(1)} | ${r.p99.toFixed(1)} | ${r.cpuMs.toFixed(2)} | ${r.failures} |\n`,
    );
  }
  process.stdout.write(`\nService process RSS after the run: ${rssMb} MB\n`);

  await app.close();
  await db.connection.dropDatabase();
  await db.close();
  await server.stop();
}

if (process.argv[2] === "--client") {
  stored = Number(process.argv[4]);
  client(process.argv[3]);
} else void main();
