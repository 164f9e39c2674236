// npm run bench: latency and throughput of the main operations over HTTP, on the embedded database (or
// MONGODB_URI), against a fresh database of its own. Prints one table; no pass/fail — numbers for the notes.
// BENCH_PROJECTS=20000 measures reads and changes among that many projects: all but the BENCH_REQUESTS created over
// HTTP are first written straight to the collections; BENCH_POOL_SIZE overrides the driver's connection pool size.
import "reflect-metadata";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import pino from "pino";
import { createApp } from "../src/app";
import { openDatabase, type Database } from "../src/db/database";
import { EMBEDDED_FERRETDB_POOL_SIZE } from "../src/db/configured-database";
import { startEmbeddedDatabase, type EmbeddedDatabase } from "../src/db/embedded";

const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 10);
const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 400);
const PROJECTS = Number(process.env.BENCH_PROJECTS ?? 0);
const POOL_SIZE_OVERRIDE = process.env.BENCH_POOL_SIZE ? Number(process.env.BENCH_POOL_SIZE) : undefined;

interface Result {
  name: string;
  requests: number;
  seconds: number;
  p50: number;
  p95: number;
  p99: number;
  failures: number;
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

async function run(name: string, total: number, call: (i: number) => Promise<boolean>): Promise<Result> {
  const latencies: number[] = [];
  let next = 0;
  let failures = 0;
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
  latencies.sort((a, b) => a - b);
  return { name, requests: total, seconds, p50: percentile(latencies, 50), p95: percentile(latencies, 95), p99: percentile(latencies, 99), failures };
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
  // The pool the service itself would use (see configured-database.ts), unless BENCH_POOL_SIZE says otherwise.
  const POOL_SIZE = POOL_SIZE_OVERRIDE ?? (embedded?.kind === "ferretdb" ? EMBEDDED_FERRETDB_POOL_SIZE : undefined);
  const db = await openDatabase(uri, { dbName: `bench_${Date.now()}`, ...(POOL_SIZE ? { maxPoolSize: POOL_SIZE } : {}) });
  const seeded = await seedProjects(db, Math.max(0, PROJECTS - REQUESTS));
  const app = await createApp({ config: { auth: { mode: "header" }, production: false }, logger: pino({ level: "silent" }), db });
  await app.listen({ port: 0, host: "127.0.0.1" });
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
  // Spread over every stored project (a fixed stride, so runs are comparable), each project once.
  const stored = seeded + REQUESTS;
  const spread = (i: number) => 1 + ((i * 7919) % stored);
  results.push(
    await run("assignTeacher", REQUESTS, async (i) => {
      const r = await gql(
        "mutation($p:Int!,$t:Int!){assignTeacher(projectId:$p,input:{new_teacher_id:$t}){success}}",
        { p: spread(i), t: 1 + (i % teachers) },
        "teacher",
      );
      return r.data?.assignTeacher?.success === true;
    }),
  );
  results.push(
    await run("project (by id)", REQUESTS, async (i) => {
      const r = await gql("query($p:Int!){project(projectId:$p){project_id teacher{teacher_name}}}", { p: spread(i + 1) });
      return !r.errors && r.data?.project != null;
    }),
  );
  const pages = Math.max(10, Math.ceil(REQUESTS / 20));
  results.push(
    await run("projects page of 100 (items only)", pages, async () => {
      const r = await gql("{projects(limit:100){has_more items{project_id project_status}}}", {});
      return !r.errors;
    }),
  );
  results.push(
    await run("projects page of 100 + total", pages, async () => {
      const r = await gql("{projects(limit:100){total has_more items{project_id project_status}}}", {});
      return !r.errors;
    }),
  );
  results.push(
    await run("projects page of 100 + total + teacher + teacher.projects", pages, async () => {
      const r = await gql("{projects(limit:100){total items{project_id teacher{teacher_name projects{project_id}}}}}", {});
      return !r.errors;
    }),
  );

  const rssMb = Math.round(process.memoryUsage().rss / 1024 / 1024);
  process.stdout.write(`\nDatabase: ${embedded ? embedded.description : "MONGODB_URI"}; ${seeded + REQUESTS} projects; concurrency ${CONCURRENCY}; pool ${POOL_SIZE ?? "default"}; node ${process.version}; ${os.cpus().length} cores\n\n`);
  process.stdout.write("| operation | requests | req/s | p50 ms | p95 ms | p99 ms | failures |\n|---|---|---|---|---|---|---|\n");
  for (const r of results) {
    process.stdout.write(
      `| ${r.name} | ${r.requests} | ${(r.requests / r.seconds).toFixed(0)} | ${r.p50.toFixed(1)} | ${r.p95.toFixed(1)} | ${r.p99.toFixed(1)} | ${r.failures} |\n`,
    );
  }
  process.stdout.write(`\nProcess RSS after the run (app + benchmark client): ${rssMb} MB\n`);

  await app.close();
  await db.connection.dropDatabase();
  await db.close();
  await embedded?.stop();
  if (dataDir) fs.rmSync(dataDir, { recursive: true, force: true });
}

/**
 * Stores `count` projects (ids 1…count) straight through the driver, in batches, with the documents the service
 * itself would write (including the first revision when the revisions collection exists), and moves the id counter
 * past them so createProject continues at count + 1.
 */
async function seedProjects(db: Database, count: number): Promise<number> {
  if (count <= 0) return 0;
  const started = performance.now();
  const models = db.models as unknown as Record<string, { collection: { insertMany(docs: object[], o: object): Promise<unknown> } }>;
  const at = new Date("2026-01-01T00:00:00Z");
  const statuses = ["active", "planned", "done"];
  for (let from = 1; from <= count; from += 1000) {
    const ids = Array.from({ length: Math.min(1000, count - from + 1) }, (_, k) => from + k);
    const projects = ids.map((id) => ({
      _id: String(id),
      project_id: id,
      project_name: `Seeded project ${id}`,
      name_key: `seeded project ${id}`,
      project_desc: "Seeded for the benchmark",
      company_id: 100 + (id % 50),
      project_status: statuses[id % statuses.length],
      project_url: null,
      start_date: "2026-01-01",
      end_date: "2026-06-30",
      teacher_id: null,
      revision: 1,
      created_by: "bench",
      created_at: at,
      updated_at: at,
    }));
    await models.Project.collection.insertMany(projects, { ordered: false });
    if (models.ProjectRevision) {
      await models.ProjectRevision.collection.insertMany(
        projects.map((p) => ({
          _id: `${p.project_id}:1`,
          project_id: p.project_id,
          revision: 1,
          operation: "createProject",
          actor_id: "bench",
          actor_role: "admin",
          at,
          set: {},
          changes: [{ field: "project_name", from: null, to: p.project_name }],
        })),
        { ordered: false },
      );
    }
  }
  await db.models.Counter.updateOne({ _id: "projects" }, { $set: { seq: count } }, { upsert: true });
  process.stderr.write(`Stored ${count} projects in ${((performance.now() - started) / 1000).toFixed(1)}s\n`);
  return count;
}

void main();
