// npm run bench:ferretdb-writes [-- --clients 16 --seconds 3 --rounds 5]: what tools/ferretdb's atomic.patch (a lock
// around each read-modify-write statement: its document's when the filter names one `_id`, else its collection's)
// costs in write throughput. Two FerretDB processes from the same binary, one with FERRETDB_EMBEDDED_ATOMIC=off
// (FerretDB 1.24's own read-then-write), each with a collection of 1,000 documents (an index on `key`); in each round
// every workload runs for --seconds on both, in alternating order (off first in odd rounds, on first in even ones),
// with --clients concurrent clients, each on its own connection, sending one request after the other through the
// driver. Prints, per workload and program, the median over the rounds of requests/s, p50 and p99, and for the
// shared counter how many acknowledged increments were lost; and the load average. No pass/fail: numbers for
// docs/database.md.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { parseArgs } from "node:util";
import { MongoClient, type Collection } from "mongodb";
import { startFerretDb } from "../src/db/ferretdb";
import type { EmbeddedDatabase } from "../src/db/embedded";

const { values } = parseArgs({
  options: {
    clients: { type: "string", default: "16" },
    seconds: { type: "string", default: "3" },
    rounds: { type: "string", default: "5" },
  },
});

function whole(name: string, value: string, max: number): number {
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1 || n > max) throw new Error(`--${name} must be a whole number from 1 to ${max}`);
  return n;
}

const CLIENTS = whole("clients", values.clients, 500);
const SECONDS = whole("seconds", values.seconds, 600);
const ROUNDS = whole("rounds", values.rounds, 100);
const DOCUMENTS = 1_000;
const PAYLOAD = "p".repeat(200);

interface Doc {
  _id: string;
  key?: string;
  n: number;
  at?: number;
  payload?: string;
}

/** One workload: the request client `client` sends as its i-th. */
interface Workload {
  name: string;
  request(coll: Collection<Doc>, client: number, i: number, tag: string): Promise<unknown>;
  /** Counts acknowledged increments of one shared counter, to compare with what was stored. */
  counter?: string;
}

const WORKLOADS: Workload[] = [
  {
    name: "updateOne by _id, $inc + $set, each client its own document",
    request: (coll, client) => coll.updateOne({ _id: `d${client}` }, { $inc: { n: 1 }, $set: { at: Date.now() } }),
  },
  {
    name: "updateOne by _id, $inc + $set, all clients one document",
    request: (coll) => coll.updateOne({ _id: "d0" }, { $inc: { n: 1 }, $set: { at: Date.now() } }),
    counter: "d0",
  },
  {
    name: "updateOne by an indexed field, $inc + $set, each client its own document",
    request: (coll, client) => coll.updateOne({ key: `k${client}` }, { $inc: { n: 1 }, $set: { at: Date.now() } }),
  },
  {
    name: "upsert by _id, $inc, a new document each time",
    request: (coll, client, i, tag) =>
      coll.updateOne({ _id: `new-${tag}-${client}-${i}` }, { $inc: { n: 1 } }, { upsert: true }),
  },
  {
    name: "upsert by _id, $inc, 100 existing documents",
    request: (coll, client, i) =>
      coll.updateOne({ _id: `d${(client * 7 + i) % 100}` }, { $inc: { n: 1 } }, { upsert: true }),
  },
];

interface Result {
  requests: number;
  errors: number;
  perSecond: number;
  p50: number;
  p99: number;
  lost?: number;
}

function percentile(sorted: number[], p: number): number {
  return sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor((sorted.length * p) / 100))] : NaN;
}

async function runWorkload(coll: Collection<Doc>, workload: Workload, tag: string): Promise<Result> {
  const before = workload.counter ? ((await coll.findOne({ _id: workload.counter }))?.n ?? 0) : 0;
  const latencies: number[] = [];
  let errors = 0;
  const started = performance.now();
  const deadline = started + SECONDS * 1000;
  await Promise.all(
    Array.from({ length: CLIENTS }, async (_, client) => {
      for (let i = 0; performance.now() < deadline; i++) {
        const t = performance.now();
        try {
          await workload.request(coll, client, i, tag);
          latencies.push(performance.now() - t);
        } catch {
          errors += 1;
        }
      }
    }),
  );
  const elapsed = (performance.now() - started) / 1000;
  latencies.sort((a, b) => a - b);
  const result: Result = {
    requests: latencies.length,
    errors,
    perSecond: latencies.length / elapsed,
    p50: percentile(latencies, 50),
    p99: percentile(latencies, 99),
  };
  if (workload.counter) {
    const after = (await coll.findOne({ _id: workload.counter }))?.n ?? 0;
    result.lost = latencies.length - (after - before);
  }
  return result;
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
}

async function connect(uri: string): Promise<MongoClient> {
  const client = new MongoClient(uri, { minPoolSize: CLIENTS, maxPoolSize: CLIENTS, maxConnecting: CLIENTS });
  await client.connect();
  return client;
}

async function main(): Promise<void> {
  const progress = (message: string) => process.stderr.write(`${message}\n`);
  const dirs = ["off", "on"].map((name) => fs.mkdtempSync(path.join(os.tmpdir(), `project-service-writes-${name}-`)));
  const servers: EmbeddedDatabase[] = [];
  const clients: MongoClient[] = [];
  try {
    servers.push(await startFerretDb(dirs[0], progress, { atomic: false }));
    servers.push(await startFerretDb(dirs[1], progress));
    for (const server of servers) clients.push(await connect(server.uri));
    const programs = [
      { name: "off", coll: clients[0].db("bench").collection<Doc>("writes") },
      { name: "on", coll: clients[1].db("bench").collection<Doc>("writes") },
    ];
    for (const { coll } of programs) {
      await coll.createIndex({ key: 1 });
      const docs = Array.from({ length: DOCUMENTS }, (_, i) => ({
        _id: `d${i}`,
        key: `k${i}`,
        n: 0,
        payload: PAYLOAD,
      }));
      for (let i = 0; i < docs.length; i += 250) await coll.insertMany(docs.slice(i, i + 250));
    }

    const results = new Map<string, Result[]>();
    const loads: number[] = [os.loadavg()[0]];
    for (let round = 0; round < ROUNDS; round++) {
      for (const workload of WORKLOADS) {
        const order = round % 2 === 0 ? programs : [...programs].reverse();
        for (const program of order) {
          const result = await runWorkload(program.coll, workload, `r${round}`);
          const key = `${workload.name}\0${program.name}`;
          results.set(key, [...(results.get(key) ?? []), result]);
          progress(
            `round ${round + 1} ${program.name.padEnd(3)} ${workload.name}: ${result.perSecond.toFixed(0)}/s, p99 ${result.p99.toFixed(1)} ms` +
              (result.lost !== undefined ? `, lost ${result.lost}` : "") +
              (result.errors ? `, ${result.errors} errors` : ""),
          );
        }
      }
      loads.push(os.loadavg()[0]);
    }

    console.log(
      `\nFerretDB writes: ${CLIENTS} clients, ${SECONDS} s per workload and program, ${ROUNDS} interleaved rounds, ` +
        `${DOCUMENTS} documents; ${os.cpus().length} CPUs, load average (1 min) ${loads.map((l) => l.toFixed(1)).join(" → ")}`,
    );
    console.log(
      "Medians over the rounds (off: FERRETDB_EMBEDDED_ATOMIC=off, FerretDB's own read-then-write); on/off is",
    );
    console.log("the median (and range) of each round's ratio, the two runs of a round being next to each other:\n");
    console.log("| workload | atomic | requests/s | p50 ms | p99 ms | on/off requests/s | lost increments | errors |");
    console.log("|---|---|---|---|---|---|---|---|");
    for (const workload of WORKLOADS) {
      const [off, on] = programs.map((program) => results.get(`${workload.name}\0${program.name}`) ?? []);
      const ratios = on.map((r, i) => r.perSecond / off[i].perSecond);
      for (const [program, rs] of [
        ["off", off],
        ["on", on],
      ] as const) {
        const lost = workload.counter ? rs.map((r) => r.lost ?? 0).join(", ") : "";
        const ratio =
          program === "on"
            ? `${median(ratios).toFixed(2)} (${Math.min(...ratios).toFixed(2)}–${Math.max(...ratios).toFixed(2)})`
            : "";
        console.log(
          `| ${workload.name} | ${program} | ${median(rs.map((r) => r.perSecond)).toFixed(0)} | ` +
            `${median(rs.map((r) => r.p50)).toFixed(1)} | ${median(rs.map((r) => r.p99)).toFixed(1)} | ${ratio} | ` +
            `${lost} | ${rs.reduce((sum, r) => sum + r.errors, 0)} |`,
        );
      }
    }
  } finally {
    await Promise.all(clients.map((client) => client.close()));
    await Promise.all(servers.map((server) => server.stop()));
    for (const dir of dirs) fs.rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exitCode = 1;
});
