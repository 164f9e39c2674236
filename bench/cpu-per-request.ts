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
import os from "node:os";
import path from "node:path";
import { loadBenchConfig } from "./bench-config";
import {
  cpuMs,
  HERE,
  httpClient,
  load,
  median,
  startServer,
  startServiceOnFerretDb,
  stopServer,
  type Cell,
  type Server,
  READ_SEED,
  type ServiceOnFerretDb,
} from "./read-load";

const BENCH = loadBenchConfig();
/** 16 connections, as the issue measured, unless BENCH_CONCURRENCY says otherwise. */
const CONCURRENCY = process.env.BENCH_CONCURRENCY ? BENCH.concurrency : 16;
const PROJECTS = BENCH.projects || 20_000;
const TEACHERS = READ_SEED.teachers;
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

const client = httpClient(CONCURRENCY);
const ADMIN = { "x-user-role": "admin" };

/** One build: a checkout's service on its own FerretDB, and the bare server on that FerretDB. */
interface Build extends ServiceOnFerretDb {
  name: string;
  root: string;
  bare: Server;
}

async function startBuild(name: string, root: string, ferretdbEnv: Record<string, string>): Promise<Build> {
  const started = await startServiceOnFerretDb({
    name,
    root,
    projects: PROJECTS,
    ferretdbEnv,
    nodeArgs: root === HERE ? [...SERVICE_NODE_ARGS, ...THIS_NODE_ARGS] : SERVICE_NODE_ARGS,
    nodeEnv: BENCH.nodeEnv,
  });
  try {
    const bare = await startServer(path.join(HERE, "dist", "bench", "bare-read-server.js"), started.env);
    return {
      ...started,
      name,
      root,
      bare,
      async stop() {
        await stopServer(bare);
        await started.stop();
      },
    };
  } catch (err) {
    await started.stop();
    throw err;
  }
}

/** The answers of both servers of a build to the same requests must be equal (and free of errors). */
async function checkAnswers(build: Build): Promise<void> {
  for (const scenario of SCENARIOS) {
    for (const i of [0, 1, 2]) {
      const [a, b] = await Promise.all([
        client.post(build.service.url, scenario.body(i), ADMIN),
        client.post(build.bare.url, scenario.body(i), ADMIN),
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
            const measure = (seconds: number) =>
              load({
                client,
                server,
                body: scenario.body,
                headers: ADMIN,
                connections: CONCURRENCY,
                seconds,
                dbCpu: () => cpuMs(build.ferretdb.pid!),
              });
            await measure(WARMUP_SECONDS);
            process.stderr.write(`measuring ${scenario.name}|${build.name}|${kind}\n`);
            const cell = await measure(SECONDS);
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
    client.destroy();
    for (const build of builds) await build.stop();
  }
}

void main().catch((err: unknown) => {
  process.stderr.write(`${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exitCode = 1;
});
