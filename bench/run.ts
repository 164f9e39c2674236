// npm run bench: latency and throughput of the main operations over HTTP, on the embedded database (or
// MONGODB_URI), against a fresh database of its own. Prints one table; no pass/fail — numbers for the notes.
import "reflect-metadata";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import pino from "pino";
import { createApp } from "../src/app";
import { openDatabase } from "../src/db/database";
import { startEmbeddedDatabase, type EmbeddedDatabase } from "../src/db/embedded";

const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 10);
const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 400);

interface Result {
  name: string;
  requests: number;
  seconds: number;
  p50: number;
  p95: number;
  p99: number;
  failures: number;
  /** CPU time (user + system) of this whole process per request, in ms: server and benchmark client together. */
  cpuMs: number;
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

async function run(name: string, total: number, call: (i: number) => Promise<boolean>): Promise<Result> {
  const latencies: number[] = [];
  let next = 0;
  let failures = 0;
  const cpu = process.cpuUsage();
  const started = performance.now();
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < total) {
        const i = next++;
        const t0 = performance.now();
        if (!(await call(i))) failures++;
        latencies.push(performance.now() - t0);
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  const used = process.cpuUsage(cpu);
  const cpuMs = (used.user + used.system) / 1000 / total;
  latencies.sort((a, b) => a - b);
  return { name, requests: total, seconds, p50: percentile(latencies, 50), p95: percentile(latencies, 95), p99: percentile(latencies, 99), failures, cpuMs };
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

  const gql = async (query: string, variables: object, role = "admin") => {
    const res = await fetch(url, {
      method: "POST",
      headers: { "content-type": "application/json", "x-user-role": role },
      body: JSON.stringify({ query, variables }),
    });
    return (await res.json()) as { data?: Record<string, { success?: boolean }>; errors?: unknown[] };
  };

  const results: Result[] = [];
  const teachers = 20;
  for (let i = 0; i < teachers; i++) {
    await gql("mutation($n:String!){createTeacher(input:{teacher_name:$n}){success}}", { n: `Teacher ${i}` });
  }
  results.push(
    await run("createProject", REQUESTS, async (i) => {
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
    }),
  );
  results.push(
    await run("assignTeacher", REQUESTS, async (i) => {
      const r = await gql(
        "mutation($p:Int!,$t:Int!){assignTeacher(projectId:$p,input:{new_teacher_id:$t}){success}}",
        { p: i + 1, t: 1 + (i % teachers) },
        "teacher",
      );
      return r.data?.assignTeacher?.success === true;
    }),
  );
  results.push(
    await run("project (by id)", REQUESTS, async (i) => {
      const r = await gql("query($p:Int!){project(projectId:$p){project_id teacher{teacher_name}}}", { p: 1 + (i % REQUESTS) });
      return !r.errors;
    }),
  );
  results.push(
    await run("projects page of 100 + teacher + teacher.projects", Math.ceil(REQUESTS / 4), async () => {
      const r = await gql("{projects(limit:100){total items{project_id teacher{teacher_name projects{project_id}}}}}", {});
      return !r.errors;
    }),
  );

  const rssMb = Math.round(process.memoryUsage().rss / 1024 / 1024);
  process.stdout.write(
    `\nDatabase: ${embedded ? embedded.description : "MONGODB_URI"}; concurrency ${CONCURRENCY}; node ${process.version}; ${os.cpus().length} cores; NODE_ENV=${process.env.NODE_ENV ?? "(unset)"}\n`,
  );
  process.stdout.write(`createApp + listen: ${startMs.toFixed(0)} ms wall, ${startCpuMs.toFixed(0)} ms CPU\n\n`);
  process.stdout.write("| operation | requests | req/s | p50 ms | p95 ms | p99 ms | CPU ms/req | failures |\n|---|---|---|---|---|---|---|---|\n");
  for (const r of results) {
    process.stdout.write(
      `| ${r.name} | ${r.requests} | ${(r.requests / r.seconds).toFixed(0)} | ${r.p50.toFixed(1)} | ${r.p95.toFixed(1)} | ${r.p99.toFixed(1)} | ${r.cpuMs.toFixed(2)} | ${r.failures} |\n`,
    );
  }
  process.stdout.write(`\nProcess RSS after the run (app + benchmark client): ${rssMb} MB\n`);

  await app.close();
  await db.connection.dropDatabase();
  await db.close();
  await embedded?.stop();
  if (dataDir) fs.rmSync(dataDir, { recursive: true, force: true });
}

void main();
