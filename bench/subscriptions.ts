// npm run bench:live: live updates measured against two real service instances (`node dist/src/index.js` in child
// processes, as `npm start` runs them) on one database (the embedded one, or MONGODB_URI):
//
// 1. latency from a mutation's HTTP answer to its event at a subscriber, on the same instance and on the other one
//    (p50/p99 over LATENCY_SAMPLES changes, each sent after a random pause of up to one poll interval, so the samples
//    fall anywhere in the other instance's polling cycle; negative: the event came before the answer);
// 2. the cost of SUBSCRIBERS idle subscribers (one WebSocket each) on one instance: its RSS and CPU with and without;
// 3. fan-out of one change to those subscribers: from the mutation's answer to the last subscriber's event.
//
// Prints a table; docs/incoming/live.md's figures come from it.
import { spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { createClient, type Client } from "graphql-ws";
import WebSocket from "ws";
import { databaseUri, startBenchServer } from "./bench-database";
import { freePort } from "./free-port";

const LATENCY_SAMPLES = 100;
const SUBSCRIBERS = 1000;
const FANOUT_ROUNDS = 5;
const POLL_MS = 250;
const IDLE_WINDOW_MS = 10_000;

/** Preloaded into the services: a full GC and a memory report on SIGUSR2 (run from dist/bench, so two levels up). */
const GC_PRELOAD = path.join(__dirname, "..", "..", "bench", "gc-on-signal.cjs");
const MEMORY_DIR = fs.mkdtempSync(path.join(os.tmpdir(), "project-service-bench-live-memory-"));

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const ROLE = { "x-user-role": "admin" };

interface Service {
  base: string;
  child: ChildProcess;
  memoryFile: string;
}

/** The service's memory right after a full garbage collection (bench/gc-on-signal.cjs). */
async function collectedMemory(service: Service): Promise<NodeJS.MemoryUsage> {
  fs.rmSync(service.memoryFile, { force: true });
  service.child.kill("SIGUSR2");
  for (let i = 0; i < 100 && !fs.existsSync(service.memoryFile); i++) await sleep(50);
  await sleep(50);
  return JSON.parse(fs.readFileSync(service.memoryFile, "utf8")) as NodeJS.MemoryUsage;
}

/** The service as `npm start` runs it, header auth, no rate limit, room for the subscribers. */
async function startService(uri: string): Promise<Service> {
  const port = await freePort();
  const env: NodeJS.ProcessEnv = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (
      !/^(AUTH_|NODE_ENV$|PORT$|HOST$|MONGODB_URI$|PROJECT_STATUS_WORKFLOW$|LOG_LEVEL$|RATE_LIMIT|WS_|SUBSCRIPTION)/.test(
        key,
      )
    )
      env[key] = value;
  }
  Object.assign(env, {
    PORT: String(port),
    HOST: "127.0.0.1",
    MONGODB_URI: uri,
    LOG_LEVEL: "error",
    BENCH_MEMORY_FILE: path.join(MEMORY_DIR, `memory-${port}.json`),
    RATE_LIMIT_PER_MINUTE: "0",
    SUBSCRIPTION_POLL_MS: String(POLL_MS),
    WS_MAX_CONNECTIONS: String(SUBSCRIBERS + 50),
  });
  const child = spawn(
    process.execPath,
    ["--expose-gc", "--require", GC_PRELOAD, path.join(__dirname, "..", "src", "index.js")],
    {
      env,
      stdio: ["ignore", "ignore", "inherit"],
    },
  );
  const base = `http://127.0.0.1:${port}`;
  for (let i = 0; i < 300; i++) {
    if (child.exitCode !== null) throw new Error(`the service exited with code ${child.exitCode}`);
    if (
      await fetch(`${base}/readyz`).then(
        (r) => r.ok,
        () => false,
      )
    )
      return { base, child, memoryFile: path.join(MEMORY_DIR, `memory-${port}.json`) };
    await sleep(100);
  }
  throw new Error("the service did not become ready in 30 s");
}

async function gql<T>(service: Service, query: string, variables: object): Promise<T> {
  const res = await fetch(`${service.base}/graphql`, {
    method: "POST",
    headers: { "content-type": "application/json", ...ROLE },
    body: JSON.stringify({ query, variables }),
  });
  const body = (await res.json()) as { data?: T; errors?: unknown };
  if (!body.data) throw new Error(`GraphQL failed: ${JSON.stringify(body.errors)}`);
  return body.data;
}

async function createProject(service: Service, name: string): Promise<number> {
  const data = await gql<{ createProject: { data: { project_id: number } } }>(
    service,
    "mutation ($input: CreateProjectInput!) { createProject(input: $input) { data { project_id } } }",
    {
      input: {
        project_name: name,
        project_desc: "Benchmark of live updates",
        company_id: 900,
        project_status: "s0",
        start_date: "2026-01-01",
        end_date: "2026-12-31",
      },
    },
  );
  return data.createProject.data.project_id;
}

/** Changes a status; returns when the answer arrived and the revision it made. */
async function change(service: Service, projectId: number, status: string): Promise<{ at: number; revision: number }> {
  const data = await gql<{ updateProjectStatus: { data: { revision: number } } }>(
    service,
    "mutation ($id: Int!, $s: String!) { updateProjectStatus(projectId: $id, input: { project_status: $s }) { data { revision } } }",
    { id: projectId, s: status },
  );
  return { at: performance.now(), revision: data.updateProjectStatus.data.revision };
}

/** A subscriber of one project's changes: each event's arrival time by revision. */
class Watcher {
  readonly arrivals = new Map<number, number>();
  private readonly client: Client;
  private started?: Promise<void>;

  constructor(service: Service, projectId: number) {
    this.client = createClient({
      url: `${service.base.replace("http", "ws")}/graphql`,
      webSocketImpl: WebSocket,
      connectionParams: ROLE,
      lazy: true,
      retryAttempts: 0,
    });
    // after_revision 0: the creation is replayed, so the watcher is known to be live once it arrives.
    this.started = new Promise((resolve, reject) => {
      this.client.subscribe<{ projectChanged: { change: { revision: number } } }>(
        {
          query: `subscription { projectChanged(projectId: ${projectId}, after_revision: 0) { change { revision } } }`,
        },
        {
          next: ({ data }) => {
            this.arrivals.set(data!.projectChanged.change.revision, performance.now());
            resolve();
          },
          error: reject,
          complete: () => undefined,
        },
      );
    });
  }

  ready(): Promise<void> {
    return this.started!;
  }

  async arrival(revision: number, timeoutMs = 10_000): Promise<number> {
    for (const end = performance.now() + timeoutMs; performance.now() < end;) {
      const at = this.arrivals.get(revision);
      if (at !== undefined) return at;
      await sleep(1);
    }
    throw new Error(`revision ${revision} did not arrive within ${timeoutMs} ms`);
  }

  dispose(): Promise<void> {
    return this.client.dispose() as Promise<void>;
  }
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

function summary(values: number[]): string {
  const sorted = [...values].sort((a, b) => a - b);
  return `p50 ${percentile(sorted, 50).toFixed(1)} ms, p99 ${percentile(sorted, 99).toFixed(1)} ms, max ${sorted.at(-1)!.toFixed(1)} ms (n=${sorted.length})`;
}

async function latency(writer: Service, reader: Service, label: string): Promise<string> {
  const projectId = await createProject(writer, `Latency ${label} ${Date.now()}`);
  const watcher = new Watcher(reader, projectId);
  await watcher.ready();
  const samples: number[] = [];
  for (let i = 0; i < LATENCY_SAMPLES; i++) {
    await sleep(Math.random() * POLL_MS);
    const { at, revision } = await change(writer, projectId, `s${i + 1}`);
    samples.push((await watcher.arrival(revision)) - at);
  }
  await watcher.dispose();
  return `${label}: ${summary(samples)}`;
}

/** RSS (bytes) and CPU time (ms, user + system) of a process, from /proc. */
function usage(pid: number): { rss: number; cpuMs: number } {
  const status = fs.readFileSync(`/proc/${pid}/status`, "utf8");
  const rss = Number(/VmRSS:\s+(\d+) kB/.exec(status)![1]) * 1024;
  const stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1].split(" ");
  const ticks = Number(stat[11]) + Number(stat[12]); // utime, stime
  return { rss, cpuMs: (ticks * 1000) / 100 };
}

async function idleCpu(pid: number): Promise<number> {
  const before = usage(pid).cpuMs;
  await sleep(IDLE_WINDOW_MS);
  return ((usage(pid).cpuMs - before) / IDLE_WINDOW_MS) * 100;
}

async function main(): Promise<void> {
  const server = await startBenchServer("live");
  const dbUri = databaseUri(server, `bench_live_${Date.now()}`);
  const a = await startService(dbUri);
  const b = await startService(dbUri);
  const lines: string[] = [];
  try {
    lines.push(await latency(a, a, "latency, same instance"));
    lines.push(await latency(a, b, "latency, across instances"));

    const pid = a.child.pid!;
    await sleep(2000);
    const base = usage(pid);
    const baseHeap = await collectedMemory(a);
    const baseCpu = await idleCpu(pid);
    const projectId = await createProject(a, `Fan-out ${Date.now()}`);
    const watchers: Watcher[] = [];
    for (let i = 0; i < SUBSCRIBERS; i += 50) {
      const batch = Array.from({ length: Math.min(50, SUBSCRIBERS - i) }, () => new Watcher(a, projectId));
      await Promise.all(batch.map((w) => w.ready()));
      watchers.push(...batch);
    }
    await sleep(5000);
    const loaded = usage(pid);
    const loadedHeap = await collectedMemory(a);
    const loadedCpu = await idleCpu(pid);
    const mb = (bytes: number) => (bytes / 2 ** 20).toFixed(0);
    lines.push(
      `${SUBSCRIBERS} idle subscribers on one instance: RSS ${mb(base.rss)} → ${mb(loaded.rss)} MB (+${mb(loaded.rss - base.rss)} MB; ` +
        `after a full GC ${mb(baseHeap.rss)} → ${mb(loadedHeap.rss)} MB, +${mb(loadedHeap.rss - baseHeap.rss)} MB, ` +
        `of which V8 heap in use +${mb(loadedHeap.heapUsed - baseHeap.heapUsed)} MB); ` +
        `CPU while idle ${baseCpu.toFixed(1)} % → ${loadedCpu.toFixed(1)} % of one core`,
    );

    const lastArrivals: number[] = [];
    const medians: number[] = [];
    for (let round = 1; round <= FANOUT_ROUNDS; round++) {
      const { at, revision } = await change(a, projectId, `fan-${round}`);
      const arrivals = (await Promise.all(watchers.map((w) => w.arrival(revision, 30_000)))).map((t) => t - at);
      arrivals.sort((x, y) => x - y);
      lastArrivals.push(arrivals.at(-1)!);
      medians.push(percentile(arrivals, 50));
      await sleep(500);
    }
    lines.push(
      `fan-out of one change to ${SUBSCRIBERS} subscribers (same instance, ${FANOUT_ROUNDS} changes): ` +
        `median subscriber ${summary(medians)}; last subscriber ${summary(lastArrivals)}`,
    );
    await Promise.all(watchers.map((w) => w.dispose()));
  } finally {
    a.child.kill("SIGTERM");
    b.child.kill("SIGTERM");
    await sleep(1000);
    await server.stop();
  }
  process.stdout.write(
    `Live updates: 2 instances on ${server.embedded ? server.embedded.kind : "MONGODB_URI"}, SUBSCRIPTION_POLL_MS=${POLL_MS}; ` +
      `node ${process.version}; ${os.cpus().length} cores; load average ${os.loadavg()[0].toFixed(1)}\n`,
  );
  for (const line of lines) process.stdout.write(`- ${line}\n`);
}

main().catch((err: unknown) => {
  process.stderr.write(`${(err as Error).stack ?? String(err)}\n`);
  process.exit(1);
});
