// npm run bench:redis: what sharing through Redis (REDIS_URL) adds to a request. Starts a redis-server of its own
// (Debian's, on a free loopback port, no persistence) and two service processes on one database (`node
// dist/src/index.js`, the rate limit on: 1,000,000 a minute, so nothing is refused), one with REDIS_URL and one
// without, then sends the same request to each in alternating rounds (so both see the same load of the machine):
// a project by id, named by its automatic-persisted-query hash, from 16 clients (BENCH_CONCURRENCY) with a caller id
// each. Prints p50/p99 per variant (the median of the rounds' p50s, the p99 of all requests), the difference and the
// services' CPU per request. On a loaded machine that difference drowns in noise, so it also measures, in this
// process, what a request waits for on Redis alone: the rate-limit count through the service's own store, against
// the in-memory store (alternating rounds, 16 callers at once). Then the service with Redis stalled (SIGSTOP: the
// first requests wait for the 90 ms deadline) and killed (SIGKILL), and what Redis held (memory per rate-limit key
// and per document). No pass/fail: numbers for docs/performance.md.
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { createHash } from "node:crypto";
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";
import LocalStore from "@fastify/rate-limit/store/LocalStore";
import { Redis } from "ioredis";
import pino from "pino";
import { sharedRateLimitStore } from "../src/redis/rate-limit-store";
import { RedisConnection } from "../src/redis/redis-connection";
import { loadBenchConfig } from "./bench-config";
import { databaseUri, startBenchServer } from "./bench-database";
import { freePort } from "./free-port";

const BENCH = loadBenchConfig();
const CONCURRENCY = process.env.BENCH_CONCURRENCY ? BENCH.concurrency : 16;
const ROUNDS = process.env.BENCH_RUNS ? BENCH.runs : 40;
const REQUESTS = process.env.BENCH_REQUESTS ? BENCH.requests : 300;
const REPO = path.resolve(__dirname, "../..");
const QUERY = "query ProjectById { project(projectId: 1) { project_id project_name project_status } }";
const HASH = createHash("sha256").update(QUERY).digest("hex");

async function waitFor(check: () => Promise<boolean>, what: string): Promise<void> {
  for (const deadline = Date.now() + 30_000; !(await check().catch(() => false));) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** PING over a raw socket: whether +PONG comes back. */
function answersPing(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect(port, "127.0.0.1");
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(500, () => done(false));
    socket.once("error", () => done(false));
    socket.once("connect", () => socket.write("PING\r\n"));
    socket.once("data", (data) => done(data.toString().startsWith("+PONG")));
  });
}

interface RedisServer {
  url: string;
  process: ChildProcess;
  dir: string;
}

async function startRedis(port: number, dir: string): Promise<RedisServer> {
  if (spawnSync("redis-server", ["--version"]).status !== 0) {
    throw new Error("redis-server is not installed: apt-get install -y redis-server");
  }
  const args = ["--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--dir", dir];
  const child = spawn("redis-server", args, { stdio: "ignore" });
  await waitFor(() => answersPing(port), "redis-server");
  return { url: `redis://127.0.0.1:${port}`, process: child, dir };
}

interface Service {
  name: string;
  url: string;
  child: ChildProcess;
}

async function startService(name: string, mongodbUri: string, redisUrl?: string): Promise<Service> {
  const port = await freePort();
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    PORT: String(port),
    MONGODB_URI: mongodbUri,
    RATE_LIMIT_PER_MINUTE: "1000000",
    LOG_LEVEL: "warn",
    ...(redisUrl ? { REDIS_URL: redisUrl } : {}),
  };
  if (!redisUrl) delete env.REDIS_URL;
  const child = spawn(process.execPath, [path.join(REPO, "dist/src/index.js")], {
    env,
    stdio: ["ignore", "ignore", "inherit"],
  });
  const url = `http://127.0.0.1:${port}`;
  await waitFor(async () => (await fetch(`${url}/readyz`)).ok, `the service (${name})`);
  return { name, url, child };
}

async function graphql(service: Service, caller: string, body: unknown): Promise<void> {
  const response = await fetch(`${service.url}/graphql`, {
    method: "POST",
    headers: { "content-type": "application/json", "x-user-role": "admin", "x-user-id": caller },
    body: JSON.stringify(body),
  });
  const answer = (await response.json()) as { data?: unknown; errors?: unknown };
  if (response.status !== 200 || answer.errors) {
    throw new Error(`${service.name}: ${response.status} ${JSON.stringify(answer.errors)}`);
  }
}

/** `count` requests from CONCURRENCY clients; the latency of each, in ms. */
async function round(service: Service, count: number): Promise<number[]> {
  const latencies: number[] = [];
  let next = 0;
  const body = { extensions: { persistedQuery: { version: 1, sha256Hash: HASH } } };
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async (_, client) => {
      while (next++ < count) {
        const started = performance.now();
        await graphql(service, `bench-${client}`, body);
        latencies.push(performance.now() - started);
      }
    }),
  );
  return latencies;
}

/** CPU time (user + system) a process has used so far, from /proc (Linux), in seconds. */
function cpuSeconds(pid: number): number {
  const fields = fs.readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1].split(" ");
  return (Number(fields[11]) + Number(fields[12])) / 100; // utime, stime: clock ticks of 1/100 s
}

interface Counter {
  incr(key: string, callback: (error: Error | null) => void, timeWindow: number, max: number): void;
}

/** `count` rate-limit counts from CONCURRENCY callers through `store`, as a request makes them: the wait of each (ms) and this process's CPU (s). */
async function countRound(store: Counter, count: number): Promise<{ waits: number[]; cpu: number }> {
  const waits: number[] = [];
  let next = 0;
  const cpuBefore = process.cpuUsage();
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async (_, caller) => {
      while (next++ < count) {
        const started = performance.now();
        await new Promise<void>((resolve, reject) =>
          store.incr(`caller:bench-${caller}`, (err) => (err ? reject(err) : resolve()), 60_000, 1_000_000),
        );
        waits.push(performance.now() - started);
      }
    }),
  );
  const cpu = process.cpuUsage(cpuBefore);
  return { waits, cpu: (cpu.user + cpu.system) / 1e6 };
}

/**
 * The wait a request makes on Redis, alone: the rate-limit count through the service's own store (a request whose
 * persisted document this instance knows makes no other Redis call), against the in-memory store, in this process.
 */
async function measureCounts(url: string): Promise<string> {
  const connection = new RedisConnection(url, { logger: pino({ level: "silent" }), onError: () => undefined });
  await waitFor(async () => connection.available, "the bench's own connection");
  const Shared = sharedRateLimitStore(connection, "bench:rate-limit:");
  const stores: [string, Counter][] = [
    ["in memory (no Redis)", new LocalStore(false, false)],
    ["Redis (REDIS_URL)", new Shared({ continueExceeding: false, exponentialBackoff: false })],
  ];
  const results = new Map(stores.map(([name]) => [name, { waits: [] as number[], cpu: 0 }]));
  for (let r = 0; r < ROUNDS; r++) {
    for (const [name, store] of r % 2 === 0 ? stores : [...stores].reverse()) {
      const { waits, cpu } = await countRound(store, REQUESTS * 4);
      results.get(name)!.waits.push(...waits);
      results.get(name)!.cpu += cpu;
    }
  }
  await connection.close();
  const calls = ROUNDS * REQUESTS * 4;
  let table =
    "| rate-limit count, 16 callers at once | p50 ms | p99 ms | CPU per count (this process) |\n|---|---|---|---|\n";
  for (const [name, v] of results) {
    table += `| ${name} | ${percentile(v.waits, 50).toFixed(3)} | ${percentile(v.waits, 99).toFixed(3)} | ${((v.cpu / calls) * 1e6).toFixed(1)} µs |\n`;
  }
  return table;
}

const percentile = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
};
const median = (values: number[]) => percentile(values, 50);
const ms = (value: number) => value.toFixed(2);

async function main(): Promise<void> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "project-service-bench-redis-"));
  const database = await startBenchServer("redis", { quiet: true });
  const redis = await startRedis(await freePort(), dir);
  const uri = databaseUri(database, `bench_redis_${Date.now()}`);
  const shared = await startService("REDIS_URL", uri, redis.url);
  const memory = await startService("no Redis", uri);
  const services = [shared, memory];
  try {
    await graphql(memory, "setup", {
      query: `mutation { createProject(input: { project_name: "Bench", project_desc: "d", company_id: 1,
        project_status: "active", start_date: "2026-01-01", end_date: "2026-12-31" }) { success } }`,
    });
    for (const service of services) {
      await graphql(service, "setup", {
        query: QUERY,
        extensions: { persistedQuery: { version: 1, sha256Hash: HASH } },
      });
      await round(service, 200); // warm-up
    }

    const load = [os.loadavg()[0]];
    const rounds = new Map(services.map((s) => [s.name, { p50s: [] as number[], all: [] as number[], cpu: 0 }]));
    let redisCpu = 0;
    for (let r = 0; r < ROUNDS; r++) {
      for (const service of r % 2 === 0 ? services : [...services].reverse()) {
        const [cpuBefore, redisBefore] = [cpuSeconds(service.child.pid!), cpuSeconds(redis.process.pid!)];
        const latencies = await round(service, REQUESTS);
        const measured = rounds.get(service.name)!;
        measured.cpu += cpuSeconds(service.child.pid!) - cpuBefore;
        if (service === shared) redisCpu += cpuSeconds(redis.process.pid!) - redisBefore;
        measured.p50s.push(median(latencies));
        measured.all.push(...latencies);
      }
      if ((r + 1) % 10 === 0) process.stderr.write(`round ${r + 1}/${ROUNDS} done\n`);
    }
    load.push(os.loadavg()[0]);

    const client = new Redis(redis.url);
    const info = await client.info("memory");
    const used = Number(/used_memory:(\d+)/.exec(info)![1]);
    const keyBytes = await client.memory("USAGE", "project-service:rate-limit:caller:bench-0");
    const documentKeys = await client.keys("project-service:documents:*");
    const documentBytes = documentKeys.length > 0 ? await client.memory("USAGE", documentKeys[0]) : 0;
    const keys = await client.dbsize();
    client.disconnect();

    const counts = await measureCounts(redis.url);

    // An outage, on the REDIS_URL service alone: stalled, then gone.
    redis.process.kill("SIGSTOP");
    const stalled = await round(shared, REQUESTS);
    redis.process.kill("SIGCONT");
    await new Promise((resolve) => setTimeout(resolve, 1000)); // the probe finds it back
    const resumed = await round(shared, REQUESTS);
    redis.process.kill("SIGKILL");
    const killed = await round(shared, REQUESTS);

    const a = rounds.get(shared.name)!;
    const b = rounds.get(memory.name)!;
    process.stdout.write(
      `\n${ROUNDS} alternating rounds of ${REQUESTS} requests per variant, ${CONCURRENCY} clients; database: ` +
        `${database.description}; node ${process.version}; ${os.cpus().length} cores; load average ` +
        `${load.map((l) => l.toFixed(1)).join(" → ")}\n\n`,
    );
    const perRequest = (seconds: number) => `${((seconds / (ROUNDS * REQUESTS)) * 1e6).toFixed(0)} µs`;
    process.stdout.write(
      "| variant | p50 ms (median of rounds) | p99 ms (all requests) | max ms | service CPU per request |\n" +
        "|---|---|---|---|---|\n",
    );
    for (const [name, v] of [
      ["no Redis (each instance its own)", b],
      ["REDIS_URL (shared)", a],
    ] as const) {
      process.stdout.write(
        `| ${name} | ${ms(median(v.p50s))} | ${ms(percentile(v.all, 99))} | ${ms(Math.max(...v.all))} | ${perRequest(v.cpu)} |\n`,
      );
    }
    process.stdout.write(
      `| added by Redis | ${ms(median(a.p50s) - median(b.p50s))} | ${ms(percentile(a.all, 99) - percentile(b.all, 99))} | | ` +
        `${perRequest(a.cpu - b.cpu)} (and redis-server ${perRequest(redisCpu)}) |\n`,
    );
    const paired = a.p50s.map((p50, i) => p50 - b.p50s[i]);
    process.stdout.write(
      `\nRound p50s, no Redis: ${b.p50s.map(ms).join(" ")}\nRound p50s, REDIS_URL: ${a.p50s.map(ms).join(" ")}\n` +
        `Median of the rounds' differences (REDIS_URL − no Redis, p50): ${ms(median(paired))} ms\n`,
    );
    process.stdout.write(`\n${counts}`);
    process.stdout.write("\n| REDIS_URL service, one round each | p50 ms | p99 ms | max ms |\n|---|---|---|---|\n");
    for (const [name, v] of [
      ["Redis stalled (SIGSTOP)", stalled],
      ["Redis resumed", resumed],
      ["Redis killed (SIGKILL)", killed],
    ] as const) {
      process.stdout.write(`| ${name} | ${ms(median(v))} | ${ms(percentile(v, 99))} | ${ms(Math.max(...v))} |\n`);
    }
    process.stdout.write(
      `\nRedis held ${keys} keys in ${(used / 1024 / 1024).toFixed(2)} MiB (used_memory, an empty Redis is about 0.9 MiB); ` +
        `one caller's rate-limit key ${keyBytes} bytes, one document key ${documentBytes} bytes (MEMORY USAGE)\n`,
    );
  } finally {
    for (const service of services) service.child.kill("SIGTERM");
    await Promise.all(services.map((s) => new Promise((resolve) => s.child.once("exit", resolve))));
    redis.process.kill("SIGKILL");
    await database.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

void main();
