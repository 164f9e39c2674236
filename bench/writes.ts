// npm run bench:writes: the cost of writes, before and after single-update changes, in one run. Starts two services,
// each with an embedded FerretDB of its own on a fresh data directory: "before" from a tree of an earlier commit
// (BENCH_BEFORE_DIR, built: its dist/), "after" from this tree's dist/. Then, in BENCH_ROUNDS rounds that alternate
// which service goes first, runs each scenario for BENCH_SECONDS with 16 connections: createProject,
// updateProjectStatus and assignTeacher (REST, random seeded projects, no expected_revision), and a project by id
// (GraphQL) while 4 more connections change statuses. Prints requests/s, p99 and the share of answers that were not
// successes, per service and scenario (the median over rounds), and the load average. No pass/fail.
//
// npm run bench:writes -- --instances N: several instances of this tree on one database, as several instances share
// one in production. Starts one service on its embedded FerretDB and N - 1 more on that FerretDB (MONGODB_URI naming
// its socket), seeds it, then in BENCH_ROUNDS rounds runs each change scenario for BENCH_SECONDS through the first
// instance alone, then through all N at once (16 connections each), and prints the changes a second of each, their
// ratio, p99 and the share of answers that were not successes (every change should succeed). BENCH_BEFORE_DIR is
// not needed there.
//
// BENCH_WEBHOOKS=N (with BENCH_BEFORE_DIR): the "after" service delivers every change to N webhook endpoints, each a
// receiver on 127.0.0.1 answering 200 (the cost of webhooks for the writes; BENCH_BEFORE_DIR may name this same tree
// then, for the same build without webhooks).
import type { ChildProcess } from "node:child_process";
import crypto from "node:crypto";
import fs from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import { z } from "zod";
import { parseEnv, wholeNumber } from "../src/shared/environment";
import { startServiceProcess } from "./service-process";

const ENV = parseEnv(
  z.object({
    BENCH_BEFORE_DIR: z.string().optional(),
    BENCH_WEBHOOKS: wholeNumber(0, 0, 10),
    BENCH_SECONDS: wholeNumber(8, 1, 600),
    BENCH_ROUNDS: wholeNumber(3, 1, 100),
  }),
  process.env,
);
const CONNECTIONS = 16;
const READ_WRITERS = 4;
const PROJECTS = 200;
const TEACHERS = 20;
const STATUSES = ["planned", "active", "review", "done"];

interface Service {
  name: string;
  url: string;
  process: ChildProcess;
  dataDir: string;
}

async function startService(
  name: string,
  root: string,
  port: number,
  env: Record<string, string> = {},
): Promise<Service> {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), `bench-writes-${name}-`));
  return { name, dataDir, ...(await startServiceProcess(name, root, port, dataDir, 300_000, env)) };
}

/** `count` receivers on 127.0.0.1 answering 200, and a WEBHOOKS file naming them; counts what they received. */
async function webhookEndpoints(count: number): Promise<{ file: string; received: () => number; close(): void }> {
  let received = 0;
  const servers = await Promise.all(
    Array.from({ length: count }, async () => {
      const server = http.createServer((request, response) => {
        request.resume();
        request.on("end", () => {
          received++;
          response.writeHead(200).end();
        });
      });
      await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
      return server;
    }),
  );
  const endpoints = servers.map((server, i) => ({
    id: `bench-${i + 1}`,
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`,
    secret: `whsec_${crypto.randomBytes(32).toString("base64")}`,
  }));
  const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "bench-webhooks-")), "webhooks.json");
  fs.writeFileSync(file, JSON.stringify({ endpoints }));
  return {
    file,
    received: () => received,
    close: () => {
      for (const server of servers) server.close();
      fs.rmSync(path.dirname(file), { recursive: true, force: true });
    },
  };
}

const HEADERS = { "content-type": "application/json", "x-user-role": "admin" };

async function call(url: string, method: string, body?: unknown): Promise<{ ok: boolean; body: unknown }> {
  const response = await fetch(url, {
    method,
    headers: HEADERS,
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const parsed = (await response.json()) as { success?: boolean; data?: unknown; errors?: unknown };
  return { ok: response.ok && parsed.success !== false && !parsed.errors, body: parsed };
}

let sequence = 0;
const projectInput = () => ({
  project_name: `Bench ${process.pid}-${++sequence}`,
  project_desc: "A project of the write bench",
  company_id: 1 + (sequence % 5),
  project_status: "planned",
  start_date: "2025-01-01",
  end_date: "2025-12-31",
});

async function seed(service: Service): Promise<void> {
  for (let i = 0; i < TEACHERS; i++) {
    await call(`${service.url}/graphql`, "POST", {
      query: "mutation ($n: String!) { createTeacher(input: { teacher_name: $n }) { success } }",
      variables: { n: `Teacher ${i}` },
    });
  }
  for (let i = 0; i < PROJECTS; i++) await call(`${service.url}/projects`, "POST", projectInput());
}

const pick = (n: number) => 1 + Math.floor(Math.random() * n);

type Request = (service: Service) => Promise<boolean>;

const SCENARIOS: Record<string, { request: Request; background?: Request }> = {
  createProject: { request: async (s) => (await call(`${s.url}/projects`, "POST", projectInput())).ok },
  updateProjectStatus: {
    request: async (s) =>
      (
        await call(`${s.url}/projects/${pick(PROJECTS)}/updateStatus`, "PUT", {
          project_status: STATUSES[pick(STATUSES.length) - 1],
        })
      ).ok,
  },
  assignTeacher: {
    request: async (s) =>
      (await call(`${s.url}/projects/${pick(PROJECTS)}/teacher`, "PUT", { new_teacher_id: pick(TEACHERS) })).ok,
  },
  "project by id (while statuses change)": {
    request: async (s) =>
      (
        await call(`${s.url}/graphql`, "POST", {
          query: "query ($id: Int!) { project(projectId: $id) { project_id project_name project_status revision } }",
          variables: { id: pick(PROJECTS) },
        })
      ).ok,
    background: async (s) =>
      (
        await call(`${s.url}/projects/${pick(PROJECTS)}/updateStatus`, "PUT", {
          project_status: STATUSES[pick(STATUSES.length) - 1],
        })
      ).ok,
  },
};

interface Measure {
  perSecond: number;
  p99: number;
  failed: number;
}

async function measure(service: Service | Service[], scenario: (typeof SCENARIOS)[string]): Promise<Measure> {
  const latencies: number[] = [];
  let failed = 0;
  const end = Date.now() + ENV.BENCH_SECONDS * 1000;
  if (Array.isArray(service)) {
    // Every instance at once, each with its own connections: the changes a second of all together.
    const each = await Promise.all(service.map((one) => measure(one, scenario)));
    const total = each.reduce((sum, m) => sum + m.perSecond, 0);
    return {
      perSecond: total,
      p99: Math.max(...each.map((m) => m.p99)),
      failed: each.reduce((sum, m) => sum + m.failed * m.perSecond, 0) / (total || 1),
    };
  }
  const worker = async (request: Request, timed: boolean) => {
    while (Date.now() < end) {
      const started = performance.now();
      const ok = await request(service).catch(() => false);
      if (!timed) continue;
      latencies.push(performance.now() - started);
      if (!ok) failed++;
    }
  };
  await Promise.all([
    ...Array.from({ length: CONNECTIONS }, () => worker(scenario.request, true)),
    ...(scenario.background ? Array.from({ length: READ_WRITERS }, () => worker(scenario.background!, false)) : []),
  ]);
  latencies.sort((a, b) => a - b);
  return {
    perSecond: latencies.length / ENV.BENCH_SECONDS,
    p99: latencies[Math.min(latencies.length - 1, Math.floor(latencies.length * 0.99))] ?? 0,
    failed: latencies.length ? failed / latencies.length : 0,
  };
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

/** --instances N: one instance alone against N on its database, change by change. */
async function instancesMain(count: number): Promise<void> {
  const loadBefore = os.loadavg();
  const root = path.resolve(__dirname, "..", "..");
  // A lower-case folder: FerretDB's socket is then in it (src/db/ferretdb.ts, socketFor), for the others to name.
  const dataDir = path.join(os.tmpdir(), `bench-writes-${process.pid}-${Date.now().toString(36)}`);
  fs.mkdirSync(dataDir);
  const first: Service = {
    name: "instance-1",
    dataDir,
    ...(await startServiceProcess("instance-1", root, 4620, dataDir)),
  };
  const socket = path.join(dataDir, "ferretdb", "mongodb.sock");
  const uri = `mongodb://${encodeURIComponent(socket)}/`;
  const services = [first];
  try {
    for (let i = 2; i <= count; i++) {
      const started = await startServiceProcess(`instance-${i}`, root, 4619 + i, first.dataDir, 60_000, {
        MONGODB_URI: uri,
      });
      services.push({ name: `instance-${i}`, dataDir: first.dataDir, ...started });
    }
    await seed(first);
    const changes = Object.entries(SCENARIOS).filter(([, scenario]) => !scenario.background);
    const alone = new Map<string, Measure[]>();
    const together = new Map<string, Measure[]>();
    for (let round = 0; round < ENV.BENCH_ROUNDS; round++) {
      for (const [name, scenario] of changes) {
        alone.set(name, [...(alone.get(name) ?? []), await measure(first, scenario)]);
        together.set(name, [...(together.get(name) ?? []), await measure(services, scenario)]);
      }
      process.stderr.write(`round ${round + 1} of ${ENV.BENCH_ROUNDS} done\n`);
    }
    console.log(
      `| change | 1 instance /s | ${count} instances /s | ratio | p99 ms (1 / ${count}) | not success (1 / ${count}) |`,
    );
    console.log(`|---|---|---|---|---|---|`);
    for (const [name] of changes) {
      const one = alone.get(name)!;
      const all = together.get(name)!;
      const a = median(one.map((m) => m.perSecond));
      const b = median(all.map((m) => m.perSecond));
      console.log(
        `| ${name} | ${a.toFixed(0)} | ${b.toFixed(0)} | ${(b / a).toFixed(2)}x | ${median(one.map((m) => m.p99)).toFixed(0)} / ${median(all.map((m) => m.p99)).toFixed(0)} | ${(median(one.map((m) => m.failed)) * 100).toFixed(1)} % / ${(median(all.map((m) => m.failed)) * 100).toFixed(1)} % |`,
      );
    }
    console.log(
      `\n${CONNECTIONS} connections per instance, ${ENV.BENCH_SECONDS} s per scenario, ${ENV.BENCH_ROUNDS} rounds (medians), ${PROJECTS} projects; load average ${loadBefore.map((l) => l.toFixed(2)).join(" ")} before, ${os
        .loadavg()
        .map((l) => l.toFixed(2))
        .join(" ")} after; ${os.cpus().length} CPUs`,
    );
  } finally {
    // The first instance last: it owns the FerretDB the others use.
    for (const service of [...services].reverse()) {
      service.process.kill("SIGTERM");
      await new Promise((resolve) => service.process.once("exit", resolve));
    }
    fs.rmSync(first.dataDir, { recursive: true, force: true });
  }
}

async function main(): Promise<void> {
  const instances = process.argv.indexOf("--instances");
  if (instances !== -1) {
    const count = Number(process.argv[instances + 1]);
    if (!Number.isInteger(count) || count < 2 || count > 8)
      throw new Error("--instances takes a whole number from 2 to 8");
    return instancesMain(count);
  }
  if (!ENV.BENCH_BEFORE_DIR) throw new Error("BENCH_BEFORE_DIR must name a built tree (or run with --instances N)");
  const loadBefore = os.loadavg();
  const hooks = ENV.BENCH_WEBHOOKS > 0 ? await webhookEndpoints(ENV.BENCH_WEBHOOKS) : undefined;
  const services = [
    await startService("before", path.resolve(ENV.BENCH_BEFORE_DIR), 4610),
    await startService(
      hooks ? `after, ${ENV.BENCH_WEBHOOKS} webhooks` : "after",
      path.resolve(__dirname, "..", ".."),
      4611,
      hooks ? { WEBHOOKS: hooks.file, WEBHOOKS_ALLOW_PRIVATE: "true" } : {},
    ),
  ];
  try {
    for (const service of services) await seed(service);
    const results = new Map<string, Measure[]>();
    for (let round = 0; round < ENV.BENCH_ROUNDS; round++) {
      const order = round % 2 === 0 ? services : [...services].reverse();
      for (const [name, scenario] of Object.entries(SCENARIOS)) {
        for (const service of order) {
          const key = `${name}\t${service.name}`;
          const list = results.get(key) ?? [];
          list.push(await measure(service, scenario));
          results.set(key, list);
        }
      }
      process.stderr.write(`round ${round + 1} of ${ENV.BENCH_ROUNDS} done\n`);
    }
    console.log(`| operation | service | requests/s | p99 ms | not success |`);
    console.log(`|---|---|---|---|---|`);
    for (const [key, list] of results) {
      const [name, service] = key.split("\t");
      console.log(
        `| ${name} | ${service} | ${median(list.map((m) => m.perSecond)).toFixed(0)} | ${median(list.map((m) => m.p99)).toFixed(0)} | ${(median(list.map((m) => m.failed)) * 100).toFixed(1)} % |`,
      );
    }
    console.log(
      `\n${CONNECTIONS} connections, ${ENV.BENCH_SECONDS} s per scenario, ${ENV.BENCH_ROUNDS} rounds (medians), ${PROJECTS} projects; load average ${loadBefore.map((l) => l.toFixed(2)).join(" ")} before, ${os
        .loadavg()
        .map((l) => l.toFixed(2))
        .join(" ")} after; ${os.cpus().length} CPUs`,
    );
  } finally {
    for (const service of services) {
      service.process.kill("SIGTERM");
      await new Promise((resolve) => service.process.once("exit", resolve));
      fs.rmSync(service.dataDir, { recursive: true, force: true });
    }
    if (hooks) console.log(`webhook deliveries received: ${hooks.received()}`);
    hooks?.close();
  }
}

main().catch((err: unknown) => {
  console.error(err instanceof Error ? err.message : String(err));
  process.exitCode = 2;
});
