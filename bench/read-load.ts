// What the read benches share (npm run bench:cpu, npm run bench:peer): the service of a checkout started as
// `npm start` starts it on an embedded FerretDB of its own, seeded with that checkout's code; any HTTP server process
// started and stopped; closed-loop load over keep-alive connections; and CPU time per request of the server's
// process and of its database's, from /proc.
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
import { startNodeArgs } from "./service-process";
import { type SeedSpread, type seedProjects } from "./bench-database";

/** This checkout (dist/bench/… is two folders below it). */
export const HERE = path.join(__dirname, "..", "..");

/** The data the read benches serve: 200 teachers ("Teacher 1" …) and their projects, spread as bench:cpu spreads them. */
export const READ_SEED: SeedSpread & { teachers: number } = {
  companies: 50,
  statuses: ["active", "planned", "done"],
  teachers: 200,
};

/** The name of teacher `t` (1 … READ_SEED.teachers), as the benches create it. */
export const teacherName = (t: number) => `Teacher ${t}`;

/** CPU time (user + system) a process has used so far, in ms (Linux /proc; 100 clock ticks a second). */
export function cpuMs(pid: number): number {
  const fields = fs.readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1].split(" ");
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

/**
 * CPU time of a process and of everything it started: its own, its children's that have ended (cutime + cstime,
 * once reaped) and that of its children still running (PostgreSQL's backends, one per connection), in ms.
 */
export function treeCpuMs(pid: number): number {
  const stat = (p: number | string) => fs.readFileSync(`/proc/${p}/stat`, "utf8").split(") ")[1].split(" ");
  const own = stat(pid);
  let ticks = Number(own[11]) + Number(own[12]) + Number(own[13]) + Number(own[14]);
  for (const entry of fs.readdirSync("/proc")) {
    if (!/^\d+$/.test(entry) || Number(entry) === pid) continue;
    let fields: string[];
    try {
      fields = stat(entry);
    } catch {
      continue; // ended meanwhile
    }
    // fields[1] is the parent's pid (the fourth field of /proc/<pid>/stat).
    if (Number(fields[1]) === pid) ticks += Number(fields[11]) + Number(fields[12]);
  }
  return ticks * 10;
}

/** A client of keep-alive connections, at most `connections` at once. */
export function httpClient(connections: number) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: connections });
  return {
    post(url: URL, body: string, headers: Record<string, string> = {}): Promise<{ status: number; text: string }> {
      return new Promise((resolve, reject) => {
        const req = http.request(
          url,
          {
            method: "POST",
            agent,
            headers: { "content-type": "application/json", "content-length": Buffer.byteLength(body), ...headers },
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
    },
    destroy: () => agent.destroy(),
  };
}

export type HttpClient = ReturnType<typeof httpClient>;

/** A started HTTP server process. */
export interface Server {
  /** Its GraphQL endpoint. */
  url: URL;
  child: ChildProcess;
}

/**
 * Starts `node [nodeArgs] script` and resolves with its GraphQL endpoint once it prints "Ready: http://host:port"
 * (the service's start line, and the bench servers'); `graphqlPath` is appended to that address.
 */
export async function startServer(
  script: string,
  env: NodeJS.ProcessEnv,
  options: { nodeArgs?: string[]; node?: string; cwd?: string; graphqlPath?: string } = {},
): Promise<Server> {
  const child = spawn(options.node ?? process.execPath, [...(options.nodeArgs ?? []), script], {
    env,
    cwd: options.cwd,
    stdio: ["ignore", "pipe", "inherit"],
  });
  const url = await new Promise<string>((resolve, reject) => {
    readline.createInterface({ input: child.stdout! }).on("line", (line) => {
      const match = /Ready: (http:\/\/[^\s/|]+)/.exec(line);
      if (match) resolve(match[1].replace("localhost", "127.0.0.1"));
    });
    child.once("exit", (code) => reject(new Error(`${script} exited with ${code}`)));
  });
  return { url: new URL(`${url}${options.graphqlPath ?? "/graphql"}`), child };
}

export async function stopServer(server: Server): Promise<void> {
  if (server.child.exitCode !== null || server.child.signalCode !== null) return;
  const exited = new Promise((resolve) => server.child.once("exit", resolve));
  server.child.kill("SIGTERM");
  await exited;
}

/** The service of one checkout, on an embedded FerretDB of its own (its own program, built from its tools/ferretdb). */
export interface ServiceOnFerretDb {
  ferretdb: EmbeddedDatabase;
  dataDir: string;
  /** MONGODB_URI of its database (other servers on the same data use it too). */
  uri: string;
  /** The environment the service was started with. */
  env: NodeJS.ProcessEnv;
  service: Server;
  stop(): Promise<void>;
}

/**
 * Starts FerretDB, seeds `projects` projects with the checkout's own code (its schema, its indexes, its checks of the
 * database: a newer checkout refuses an older FerretDB program that lacks what it needs), starts the checkout's
 * service (`node dist/src/index.js` with its `npm start`'s node options: from its bundle, as `npm start` runs it;
 * its defaults, rate limit off), and creates READ_SEED.teachers teachers through it.
 */
export async function startServiceOnFerretDb(options: {
  name: string;
  root: string;
  projects: number;
  /** Variables for this FerretDB only (BENCH_FERRETDB_ENV). */
  ferretdbEnv?: Record<string, string>;
  nodeArgs?: string[];
  /** The node binary of the service (default: this process's). */
  node?: string;
  nodeEnv?: string;
}): Promise<ServiceOnFerretDb> {
  const { name, root } = options;
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { startFerretDb } = require(path.join(root, "dist", "src", "db", "ferretdb.js")) as {
    startFerretDb: (dir: string, progress: (m: string) => void, options?: FerretDbOptions) => Promise<EmbeddedDatabase>;
  };
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), `project-service-bench-${name}-`));
  const extraEnv = options.ferretdbEnv ?? {};
  const saved = { ...process.env };
  Object.assign(process.env, extraEnv);
  let ferretdb: EmbeddedDatabase;
  try {
    ferretdb = await startFerretDb(dataDir, (m) => process.stderr.write(`[${name}] ${m}\n`));
  } catch (err) {
    fs.rmSync(dataDir, { recursive: true, force: true });
    throw err;
  } finally {
    for (const key of Object.keys(extraEnv)) {
      if (key in saved) process.env[key] = saved[key];
      else delete process.env[key];
    }
  }
  let service: Server | undefined;
  const stop = async () => {
    if (service) await stopServer(service);
    await ferretdb.stop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  };
  try {
    const uri = new URL(ferretdb.uri);
    uri.pathname = "/bench_reads";
    // The pool the service chooses on its embedded FerretDB (MONGODB_URI's maxPoolSize wins over its default of 100).
    uri.searchParams.set("maxPoolSize", String(EMBEDDED_FERRETDB_POOL_SIZE));
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
      await seedBuildProjects(db, options.projects, READ_SEED);
    } finally {
      await db.close();
    }
    const env = {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      MONGODB_URI: uri.toString(),
      PORT: "0",
      RATE_LIMIT_PER_MINUTE: "0",
      NODE_ENV: options.nodeEnv,
    };
    service = await startServer(path.join(root, "dist", "src", "index.js"), env, {
      nodeArgs: [...startNodeArgs(root), ...(options.nodeArgs ?? [])],
      node: options.node,
    });
    const client = httpClient(1);
    try {
      for (let t = 1; t <= READ_SEED.teachers; t++) {
        const res = await client.post(
          service.url,
          JSON.stringify({
            query: "mutation($n:String!){createTeacher(input:{teacher_name:$n}){success data{teacher_id}}}",
            variables: { n: teacherName(t) },
          }),
          { "x-user-role": "admin" },
        );
        if (!res.text.includes(`"teacher_id":${t}}`))
          throw new Error(`[${name}] createTeacher ${t} failed: ${res.text}`);
      }
    } finally {
      client.destroy();
    }
    return { ferretdb, dataDir, uri: uri.toString(), env, service, stop };
  } catch (err) {
    await stop();
    throw err;
  }
}

/** One measured cell: closed-loop load on one server. */
export interface Cell {
  requests: number;
  seconds: number;
  p50: number;
  p99: number;
  /** CPU ms per request of the HTTP server's process and of its database's. */
  nodeCpu: number;
  dbCpu: number;
  failures: number;
}

/**
 * Closed-loop load: `connections` connections each sending the next request (`body(i)`) when its answer arrives, for
 * `seconds`; CPU of the server's process and of the database (`dbCpu()`, ms so far) read before and after. An answer
 * that is not 200, or holds "errors", is a failure.
 */
export async function load(options: {
  client: HttpClient;
  server: Server;
  body: (i: number) => string;
  headers?: Record<string, string>;
  connections: number;
  seconds: number;
  dbCpu: () => number;
}): Promise<Cell> {
  const { client, server, body, headers, connections, seconds, dbCpu } = options;
  const latencies: number[] = [];
  let failures = 0;
  let i = 0;
  const node0 = cpuMs(server.child.pid!);
  const db0 = dbCpu();
  const started = performance.now();
  const until = started + seconds * 1000;
  await Promise.all(
    Array.from({ length: connections }, async () => {
      while (performance.now() < until) {
        const t0 = performance.now();
        const res = await client.post(server.url, body(i++), headers);
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
    p50: latencies[Math.min(n - 1, Math.floor(0.5 * n))],
    p99: latencies[Math.min(n - 1, Math.floor(0.99 * n))],
    nodeCpu: (cpuMs(server.child.pid!) - node0) / n,
    dbCpu: (dbCpu() - db0) / n,
    failures,
  };
}

export const median = (values: number[]) => {
  const s = [...values].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
