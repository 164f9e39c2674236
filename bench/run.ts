// npm run bench: latency, throughput and server CPU per request of the main operations over HTTP, on the embedded
// database (or MONGODB_URI), against a fresh database of its own. Prints one table; no pass/fail — numbers for the
// notes. The HTTP client runs in a child process of its own (this file, forked with --client), so the CPU time this
// process spends per request is the service's alone (the embedded database is a process of its own too).
import "reflect-metadata";
import { fork, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import pino from "pino";
import { createApp } from "../src/app";
import { openDatabase } from "../src/db/database";
import { startEmbeddedDatabase, type EmbeddedDatabase } from "../src/db/embedded";

const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 10);
const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 400);
const TEACHERS = 20;

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

type Gql = (query: string, variables: object, role?: string) => Promise<{ data?: Record<string, { success?: boolean }>; errors?: unknown[] }>;

/** The scenarios, in order: how many requests and what one request (number i) sends. */
const SCENARIOS: { name: string; total: number; call: (gql: Gql, i: number) => Promise<boolean> }[] = [
  {
    name: "createProject",
    total: REQUESTS,
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
    name: "assignTeacher",
    total: REQUESTS,
    call: async (gql, i) => {
      const r = await gql(
        "mutation($p:Int!,$t:Int!){assignTeacher(projectId:$p,input:{new_teacher_id:$t}){success}}",
        { p: i + 1, t: 1 + (i % TEACHERS) },
        "teacher",
      );
      return r.data?.assignTeacher?.success === true;
    },
  },
  {
    name: "project (by id)",
    total: REQUESTS,
    call: async (gql, i) => {
      const r = await gql("query($p:Int!){project(projectId:$p){project_id teacher{teacher_name}}}", { p: 1 + (i % REQUESTS) });
      return !r.errors;
    },
  },
  {
    name: "projects page of 100 + teacher + teacher.projects",
    total: Math.ceil(REQUESTS / 4),
    call: async (gql) => {
      const r = await gql("{projects(limit:100){total items{project_id teacher{teacher_name projects{project_id}}}}}", {});
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
  process.on("message", async (index: number) => {
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

function ask(child: ChildProcess, index: number): Promise<ClientRun> {
  return new Promise((resolve) => {
    child.once("message", (run) => resolve(run as ClientRun));
    child.send(index);
  });
}

async function main(): Promise<void> {
  let embedded: EmbeddedDatabase | undefined;
  let dataDir: string | undefined;
  let uri = process.env.MONGODB_URI;
  if (!uri) {
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "project-service-bench-"));
    embedded = await startEmbeddedDatabase({
      mode: (process.env.EMBEDDED_DB as "auto" | "mongod" | "ferretdb") ?? "auto",
      dataDir,
      progress: (m) => process.stderr.write(`${m}\n`),
    });
    uri = embedded.uri;
  }
  // As the service opens it (command monitoring feeds GET /metrics).
  const db = await openDatabase(uri, { dbName: `bench_${Date.now()}`, monitorCommands: true });
  const startCpu = process.cpuUsage();
  const startAt = performance.now();
  const app = await createApp({ config: { auth: { mode: "header" }, production: false }, logger: pino({ level: "silent" }), db });
  await app.listen({ port: 0, host: "127.0.0.1" });
  const startMs = performance.now() - startAt;
  const startUsed = process.cpuUsage(startCpu);
  const startCpuMs = (startUsed.user + startUsed.system) / 1000;
  const address = app.server.address();
  const url = `http://127.0.0.1:${typeof address === "object" && address ? address.port : 0}/graphql`;

  const child = fork(__filename, ["--client", url], { stdio: "inherit" });
  await ask(child, -1);
  const results: Result[] = [];
  for (const [index, scenario] of SCENARIOS.entries()) {
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
    `\nDatabase: ${embedded ? embedded.description : "MONGODB_URI"}; concurrency ${CONCURRENCY}; node ${process.version}; ${os.cpus().length} cores; NODE_ENV=${process.env.NODE_ENV ?? "(unset)"}\n`,
  );
  process.stdout.write(`createApp + listen: ${startMs.toFixed(0)} ms wall, ${startCpuMs.toFixed(0)} ms CPU\n\n`);
  process.stdout.write("| operation | requests | req/s | p50 ms | p95 ms | p99 ms | service CPU ms/req | failures |\n|---|---|---|---|---|---|---|---|\n");
  for (const r of results) {
    process.stdout.write(
      `| ${r.name} | ${r.requests} | ${(r.requests / r.seconds).toFixed(0)} | ${r.p50.toFixed(1)} | ${r.p95.toFixed(1)} | ${r.p99.toFixed(1)} | ${r.cpuMs.toFixed(2)} | ${r.failures} |\n`,
    );
  }
  process.stdout.write(`\nService process RSS after the run: ${rssMb} MB\n`);

  await app.close();
  await db.connection.dropDatabase();
  await db.close();
  await embedded?.stop();
  if (dataDir) fs.rmSync(dataDir, { recursive: true, force: true });
}

if (process.argv[2] === "--client") client(process.argv[3]);
else void main();
