// npm run bench:cpu: what one read request costs, in CPU of the service's process and of the embedded FerretDB's
// process separately (utime + stime from /proc/<pid>/stat before and after each measurement), with requests/s and
// p99, at BENCH_CONCURRENCY connections (default 16 here), on 200 teachers and 20,000 projects (BENCH_PROJECTS), for:
//   - a project by id with its teacher,
//   - a page of 100 projects, each with its teacher,
//   - a page of 100 projects, each with its teacher and the teacher's first 5 projects,
// against the service (`node dist/src/index.js` with the service's defaults, rate limit off) and against a bare
// graphql-js server on the same data (bench/bare-read-server.ts), whose first answers must equal the service's.
//
// Comparing two builds in one run (the machine is shared, so only interleaved rounds compare fairly): with
// BENCH_BASELINE=<another checkout of this repository, compiled (npx tsc -p tsconfig.build.json)> each round
// measures the baseline and this checkout in turn, each with its own service AND its own FerretDB program (built
// from that checkout's tools/ferretdb). BENCH_FERRETDB_ENV="NAME=value ..." adds variables to this checkout's
// FerretDB only (e.g. GOGC=100 to compare a collector setting). BENCH_ROUNDS rounds (default 2), BENCH_SECONDS of
// load per cell (default 8) after BENCH_WARMUP_SECONDS (default 3); BENCH_ONLY=<part of a scenario's name> runs only
// the matching scenarios. Prints the load average at each round's start and the medians over rounds. (To profile
// FerretDB under one scenario: BENCH_FERRETDB_ENV=FERRETDB_EMBEDDED_PPROF=127.0.0.1:6060, and take the profile once
// stderr says "measuring" for it.) BENCH_SERVICE_NODE_ARGS are node's arguments for the services (e.g. "--cpu-prof
// --cpu-prof-dir=/tmp/prof": a V8 profile of each service process, written when it stops); BENCH_THIS_NODE_ARGS are
// added for this checkout's service only (to compare a flag against the same build as BENCH_BASELINE).
import { spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import http from "node:http";
import os from "node:os";
import path from "node:path";
import readline from "node:readline";
import type { EmbeddedDatabase } from "../src/db/embedded-server";
import type { FerretDbOptions } from "../src/db/ferretdb";
import { type openDatabase } from "../src/persistence";
import { EMBEDDED_FERRETDB_POOL_SIZE } from "../src/db/configured-database";
import { loadBenchConfig } from "./bench-config";
import { type seedProjects } from "./bench-database";

const BENCH = loadBenchConfig();
/** 16 connections, as the issue measured, unless BENCH_CONCURRENCY says otherwise. */
const CONCURRENCY = process.env.BENCH_CONCURRENCY ? BENCH.concurrency : 16;
const PROJECTS = BENCH.projects || 20_000;
const TEACHERS = 200;
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 2);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 8);
const WARMUP_SECONDS = Number(process.env.BENCH_WARMUP_SECONDS ?? 3);
const BASELINE = process.env.BENCH_BASELINE ? path.resolve(process.env.BENCH_BASELINE) : undefined;
const FERRETDB_ENV = Object.fromEntries(
  (process.env.BENCH_FERRETDB_ENV ?? "")
    .split(/\s+/)
    .filter(Boolean)
    .map((pair) => [pair.slice(0, pair.indexOf("=")), pair.slice(pair.indexOf("=") + 1)]),
);
const HERE = path.join(__dirname, "..", "..");
const SERVICE_NODE_ARGS = (process.env.BENCH_SERVICE_NODE_ARGS ?? "").split(/\s+/).filter(Boolean);
/** Node's arguments for this checkout's service only (e.g. a heap flag to compare against the same build). */
const THIS_NODE_ARGS = (process.env.BENCH_THIS_NODE_ARGS ?? "").split(/\s+/).filter(Boolean);

interface Scenario {
  name: string;
  body: (i: number) => string;
}

const PAGE_FIELDS = "project_id project_name project_status start_date end_date";
const ALL_SCENARIOS: Scenario[] = [
  {
    name: "project by id, with its teacher",
    body: (i) =>
      JSON.stringify({
        query: `query($p:Int!){project(projectId:$p){${PAGE_FIELDS} teacher{teacher_id teacher_name}}}`,
        variables: { p: 1 + ((i * 7919) % PROJECTS) },
      }),
  },
  {
    name: "page of 100, each with its teacher",
    body: () =>
      JSON.stringify({ query: `{projects(limit:100){items{${PAGE_FIELDS} teacher{teacher_id teacher_name}}}}` }),
  },
  {
    name: "page of 100, teacher and the teacher's 5 projects",
    body: () =>
      JSON.stringify({
        query: `{projects(limit:100){items{${PAGE_FIELDS} teacher{teacher_id teacher_name projects(limit:5){project_id project_name}}}}}`,
      }),
  },
];

const SCENARIOS = ALL_SCENARIOS.filter((s) => s.name.includes(process.env.BENCH_ONLY ?? ""));

/** CPU time (user + system) a process has used so far, in ms (Linux /proc; 100 clock ticks a second). */
function cpuMs(pid: number): number {
  const fields = fs.readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1].split(" ");
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

const agent = new http.Agent({ keepAlive: true, maxSockets: CONCURRENCY });

function post(url: URL, body: string): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      url,
      {
        method: "POST",
        agent,
        headers: {
          "content-type": "application/json",
          "content-length": Buffer.byteLength(body),
          "x-user-role": "admin",
        },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (c: Buffer) => chunks.push(c));
        res.on("end", () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString() }));
        res.on("error", reject);
      },
    );
    req.on("error", reject);
    req.end(body);
  });
}

/** A started HTTP server process (the service or the bare one). */
interface Server {
  url: URL;
  child: ChildProcess;
}

async function startServer(script: string, env: NodeJS.ProcessEnv, nodeArgs: string[] = []): Promise<Server> {
  const child = spawn(process.execPath, [...nodeArgs, script], { env, stdio: ["ignore", "pipe", "inherit"] });
  const url = await new Promise<string>((resolve, reject) => {
    readline.createInterface({ input: child.stdout! }).on("line", (line) => {
      const match = /Ready: (http:\/\/[^\s/|]+)/.exec(line);
      if (match) resolve(match[1].replace("localhost", "127.0.0.1"));
    });
    child.once("exit", (code) => reject(new Error(`${script} exited with ${code}`)));
  });
  return { url: new URL(`${url}/graphql`), child };
}

async function stopServer(server: Server): Promise<void> {
  if (server.child.exitCode !== null) return;
  const exited = new Promise((resolve) => server.child.once("exit", resolve));
  server.child.kill("SIGTERM");
  await exited;
}

/** One build: a checkout with its service, its FerretDB program and the bare server on that FerretDB. */
interface Build {
  name: string;
  root: string;
  ferretdb: EmbeddedDatabase;
  dataDir: string;
  service: Server;
  bare: Server;
}

async function startBuild(name: string, root: string, extraEnv: Record<string, string>): Promise<Build> {
  // That checkout's own FerretDB program (built from its tools/ferretdb into the shared cache if need be).
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { startFerretDb } = require(path.join(root, "dist", "src", "db", "ferretdb.js")) as {
    startFerretDb: (dir: string, progress: (m: string) => void, options?: FerretDbOptions) => Promise<EmbeddedDatabase>;
  };
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), `project-service-bench-cpu-${name}-`));
  const saved = { ...process.env };
  Object.assign(process.env, extraEnv);
  let ferretdb: EmbeddedDatabase;
  try {
    ferretdb = await startFerretDb(dataDir, (m) => process.stderr.write(`[${name}] ${m}\n`));
  } finally {
    for (const key of Object.keys(extraEnv)) {
      if (key in saved) process.env[key] = saved[key];
      else delete process.env[key];
    }
  }
  // What was started so far, stopped again if a later step fails (FerretDB would otherwise keep this process alive).
  let service: Server | undefined;
  let bare: Server | undefined;
  try {
    const uri = new URL(ferretdb.uri);
    uri.pathname = "/bench_cpu";
    // The pool the service chooses on its embedded FerretDB (MONGODB_URI's maxPoolSize wins over its default of 100).
    uri.searchParams.set("maxPoolSize", String(EMBEDDED_FERRETDB_POOL_SIZE));
    // Seeded by that checkout's own code too: its schema, its indexes, and its own checks of the database (a newer
    // checkout refuses an older FerretDB program that lacks what it needs).
    /* eslint-disable @typescript-eslint/no-require-imports */
    const { openDatabase: openBuildDatabase } = require(path.join(root, "dist", "src", "persistence.js")) as {
      openDatabase: typeof openDatabase;
    };
    const { seedProjects: seedBuildProjects } = require(path.join(root, "dist", "bench", "bench-database.js")) as {
      seedProjects: typeof seedProjects;
    };
    /* eslint-enable @typescript-eslint/no-require-imports */
    const db = await openBuildDatabase(uri.toString(), {});
    try {
      await seedBuildProjects(db, PROJECTS, {
        companies: 50,
        statuses: ["active", "planned", "done"],
        teachers: TEACHERS,
      });
    } finally {
      await db.close();
    }
    const env = {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      MONGODB_URI: uri.toString(),
      PORT: "0",
      RATE_LIMIT_PER_MINUTE: "0",
      NODE_ENV: BENCH.nodeEnv,
    };
    const nodeArgs = root === HERE ? [...SERVICE_NODE_ARGS, ...THIS_NODE_ARGS] : SERVICE_NODE_ARGS;
    service = await startServer(path.join(root, "dist", "src", "index.js"), env, nodeArgs);
    for (let t = 1; t <= TEACHERS; t++) {
      const res = await post(
        service.url,
        JSON.stringify({
          query: "mutation($n:String!){createTeacher(input:{teacher_name:$n}){success}}",
          variables: { n: `Teacher ${t}` },
        }),
      );
      if (!res.text.includes('"success":true')) throw new Error(`[${name}] createTeacher failed: ${res.text}`);
    }
    bare = await startServer(path.join(HERE, "dist", "bench", "bare-read-server.js"), env);
    return { name, root, ferretdb, dataDir, service, bare };
  } catch (err) {
    if (service) await stopServer(service);
    if (bare) await stopServer(bare);
    await ferretdb.stop();
    fs.rmSync(dataDir, { recursive: true, force: true });
    throw err;
  }
}

interface Cell {
  requests: number;
  seconds: number;
  p99: number;
  /** CPU ms per request of the HTTP server's process and of FerretDB's. */
  nodeCpu: number;
  dbCpu: number;
  failures: number;
}

/** Closed-loop load: CONCURRENCY connections each sending the next request when its answer arrives. */
async function load(server: Server, scenario: Scenario, seconds: number, ferretPid: number): Promise<Cell> {
  const latencies: number[] = [];
  let failures = 0;
  let i = 0;
  const node0 = cpuMs(server.child.pid!);
  const db0 = cpuMs(ferretPid);
  const started = performance.now();
  const until = started + seconds * 1000;
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (performance.now() < until) {
        const t0 = performance.now();
        const res = await post(server.url, scenario.body(i++));
        latencies.push(performance.now() - t0);
        if (res.status !== 200 || res.text.includes('"errors"')) failures++;
      }
    }),
  );
  const elapsed = (performance.now() - started) / 1000;
  const n = latencies.length;
  latencies.sort((a, b) => a - b);
  return {
    requests: n,
    seconds: elapsed,
    p99: latencies[Math.min(n - 1, Math.floor(0.99 * n))],
    nodeCpu: (cpuMs(server.child.pid!) - node0) / n,
    dbCpu: (cpuMs(ferretPid) - db0) / n,
    failures,
  };
}

/** The answers of both servers of a build to the same requests must be equal (and free of errors). */
async function checkAnswers(build: Build): Promise<void> {
  for (const scenario of SCENARIOS) {
    for (const i of [0, 1, 2]) {
      const [a, b] = await Promise.all([
        post(build.service.url, scenario.body(i)),
        post(build.bare.url, scenario.body(i)),
      ]);
      const service = JSON.parse(a.text) as unknown;
      const bare = JSON.parse(b.text) as unknown;
      if (a.text.includes('"errors"') || JSON.stringify(service) !== JSON.stringify(bare)) {
        throw new Error(
          `[${build.name}] ${scenario.name}: the service and the bare server answer differently:\n${a.text.slice(0, 500)}\n${b.text.slice(0, 500)}`,
        );
      }
    }
  }
}

const median = (values: number[]) => {
  const s = [...values].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

async function main(): Promise<void> {
  const builds: Build[] = [];
  try {
    if (BASELINE) builds.push(await startBuild("baseline", BASELINE, {}));
    builds.push(await startBuild("this", HERE, FERRETDB_ENV));
    for (const build of builds) await checkAnswers(build);
    const cells = new Map<string, Cell[]>();
    const loads: string[] = [];
    for (let round = 1; round <= ROUNDS; round++) {
      loads.push(os.loadavg()[0].toFixed(2));
      for (const scenario of SCENARIOS) {
        for (const build of builds) {
          for (const kind of ["service", "bare"] as const) {
            const server = build[kind];
            await load(server, scenario, WARMUP_SECONDS, build.ferretdb.pid!);
            process.stderr.write(`measuring ${scenario.name}|${build.name}|${kind}\n`);
            const cell = await load(server, scenario, SECONDS, build.ferretdb.pid!);
            const key = `${scenario.name}|${build.name}|${kind}`;
            cells.set(key, [...(cells.get(key) ?? []), cell]);
            process.stderr.write(
              `round ${round} ${key}: ${(cell.requests / cell.seconds).toFixed(0)} req/s, p99 ${cell.p99.toFixed(1)} ms, CPU ${cell.nodeCpu.toFixed(2)} + ${cell.dbCpu.toFixed(2)} ms/req, ${cell.failures} failures\n`,
            );
          }
        }
      }
    }
    loads.push(os.loadavg()[0].toFixed(2));
    process.stdout.write(
      `\n${PROJECTS} projects, ${TEACHERS} teachers; ${CONCURRENCY} connections; ${ROUNDS} interleaved rounds of ${SECONDS} s (after ${WARMUP_SECONDS} s warm-up) per cell; node ${process.version}; ${os.cpus().length} cores\n`,
    );
    process.stdout.write(`Load average (1 min) at each round's start and at the end: ${loads.join(", ")}\n`);
    for (const build of builds) process.stdout.write(`${build.name}: ${build.root}\n`);
    process.stdout.write(
      "\nMedians over rounds. CPU per request in ms: the HTTP server's process + FerretDB's.\n\n| scenario | build | server | req/s | p99 ms | Node CPU | FerretDB CPU | total CPU | failures |\n|---|---|---|---|---|---|---|---|---|\n",
    );
    for (const scenario of SCENARIOS) {
      for (const build of builds) {
        for (const kind of ["service", "bare"] as const) {
          const runs = cells.get(`${scenario.name}|${build.name}|${kind}`)!;
          const rps = median(runs.map((c) => c.requests / c.seconds));
          const node = median(runs.map((c) => c.nodeCpu));
          const db = median(runs.map((c) => c.dbCpu));
          process.stdout.write(
            `| ${scenario.name} | ${build.name} | ${kind} | ${rps.toFixed(0)} | ${median(runs.map((c) => c.p99)).toFixed(1)} | ${node.toFixed(2)} | ${db.toFixed(2)} | ${(node + db).toFixed(2)} | ${runs.reduce((s, c) => s + c.failures, 0)} |\n`,
          );
        }
      }
      for (const build of builds) {
        const service = median(cells.get(`${scenario.name}|${build.name}|service`)!.map((c) => c.nodeCpu));
        const bare = median(cells.get(`${scenario.name}|${build.name}|bare`)!.map((c) => c.nodeCpu));
        process.stdout.write(
          `| ${scenario.name} | ${build.name} | service Node CPU / bare | ${(service / bare).toFixed(2)}× | | | | | |\n`,
        );
      }
    }
  } finally {
    agent.destroy();
    for (const build of builds) {
      await stopServer(build.service);
      await stopServer(build.bare);
      await build.ferretdb.stop();
      fs.rmSync(build.dataDir, { recursive: true, force: true });
    }
  }
}

void main().catch((err: unknown) => {
  process.stderr.write(`${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exitCode = 1;
});
