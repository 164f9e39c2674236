// npm run bench:access: what row rules (ACCESS_POLICY) cost a page of 100 projects, at 100,000 projects
// (BENCH_PROJECTS) spread over 50 companies. Two apps on one database, in this process: one without ACCESS_POLICY and
// one with the contract's example policy (header mode, claims in X-User-Claims). Each scenario is a page under a rule
// next to the same page without one:
//   - a student of one company (its rule is company_id = X) against an admin's page filtered by company_id X without
//     ACCESS_POLICY: the same items;
//   - students of 5 and 25 companies (company_id $in …) against the first page without ACCESS_POLICY: the same query
//     with and without the rule;
//   - an admin under the policy (rule {}) against the same page without ACCESS_POLICY;
//   - the same with `total`, and a connection page with totalCount.
// The machine may be shared, so the cells are measured in interleaved rounds (BENCH_ROUNDS, default 3), each for
// BENCH_SECONDS (default 5) at BENCH_CONCURRENCY clients (default 10) after a short warm-up; the table gives the
// medians over rounds of p50 latency, requests a second, and the CPU one request costs the service (this process;
// the HTTP client runs in a child process of its own) and the embedded FerretDB (from /proc), and the ratio of each
// page under a rule to its page without one. CPU per request is the steadier measure on a loaded machine.
// BENCH_ONLY=<text> runs only the scenarios whose name holds it.
import "reflect-metadata";
import { fork, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import pino from "pino";
import { createApp } from "../src/app";
import { parseAccessPolicy } from "../src/components/projects";
import { EMBEDDED_FERRETDB_POOL_SIZE } from "../src/db/configured-database";
import { openDatabase } from "../src/persistence";
import { BENCH_APP_CONFIG } from "./app-config";
import { loadBenchConfig } from "./bench-config";
import { seedProjects, startBenchServer } from "./bench-database";

const BENCH = loadBenchConfig();
const PROJECTS = BENCH.projects || 100_000;
const CONCURRENCY = BENCH.concurrency;
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const WARMUP_REQUESTS = 20;
const ONLY = process.env.BENCH_ONLY;
/** Seeded projects belong to companies 100 … 149 (bench-database.ts). */
const COMPANIES = 50;

const POLICY = {
  projects: {
    student: { read: { company_id: "$company_ids" }, change: { created_by: "$sub" } },
    teacher: { read: { company_id: "$company_ids" }, change: { teacher_id: "$teacher_id" } },
    admin: { read: {}, change: {} },
  },
};

const ITEMS = "items{project_id project_name company_id project_status}";
const PAGE = `{projects(limit:100){has_more ${ITEMS}}}`;
const PAGE_WITH_TOTAL = `{projects(limit:100){total has_more ${ITEMS}}}`;
const CONNECTION =
  "{projectsConnection(first:100){totalCount pageInfo{hasNextPage endCursor} nodes{project_id project_name company_id project_status}}}";

const companies = (n: number) => Array.from({ length: n }, (_, i) => 100 + ((i * 7) % COMPANIES));
const student = (n: number) => ({
  "x-user-role": "student",
  "x-user-id": "bench-student",
  "x-user-claims": JSON.stringify({ company_ids: companies(n) }),
});
const ADMIN = { "x-user-role": "admin", "x-user-id": "bench-admin" };

interface Request {
  app: "plain" | "policy";
  headers: Record<string, string>;
  query: string;
}

interface Scenario {
  name: string;
  /** The page under a rule. */
  rule: Request;
  /** The same page without one. */
  without: Request;
}

const ALL_SCENARIOS: Scenario[] = [
  {
    name: "page of 100: student of 1 company vs admin filtering by it, no ACCESS_POLICY",
    rule: { app: "policy", headers: student(1), query: PAGE },
    without: {
      app: "plain",
      headers: ADMIN,
      query: `{projects(filter:{company_id:${companies(1)[0]}},limit:100){has_more ${ITEMS}}}`,
    },
  },
  {
    name: "page of 100: student of 5 companies vs the same page, no ACCESS_POLICY",
    rule: { app: "policy", headers: student(5), query: PAGE },
    without: { app: "plain", headers: ADMIN, query: PAGE },
  },
  {
    name: "page of 100: student of 25 companies vs the same page, no ACCESS_POLICY",
    rule: { app: "policy", headers: student(25), query: PAGE },
    without: { app: "plain", headers: ADMIN, query: PAGE },
  },
  {
    name: "page of 100: admin under the policy (rule {}) vs no ACCESS_POLICY",
    rule: { app: "policy", headers: ADMIN, query: PAGE },
    without: { app: "plain", headers: ADMIN, query: PAGE },
  },
  {
    name: "page of 100 + total: student of 5 companies vs the same page, no ACCESS_POLICY",
    rule: { app: "policy", headers: student(5), query: PAGE_WITH_TOTAL },
    without: { app: "plain", headers: ADMIN, query: PAGE_WITH_TOTAL },
  },
  {
    name: "connection of 100 + totalCount: student of 5 companies vs the same page, no ACCESS_POLICY",
    rule: { app: "policy", headers: student(5), query: CONNECTION },
    without: { app: "plain", headers: ADMIN, query: CONNECTION },
  },
];
const SCENARIOS = ALL_SCENARIOS.filter((s) => !ONLY || s.name.includes(ONLY));

interface Cell {
  perSecond: number;
  p50: number;
  p95: number;
  failures: number;
  /** CPU ms per request: the service's, FerretDB's (0 on another database). */
  serviceCpu: number;
  databaseCpu: number;
}

/** What the client process measures of one cell. */
type ClientCell = Pick<Cell, "perSecond" | "p50" | "p95" | "failures"> & { requests: number };

/** CPU time (user + system) a process has used so far, in ms (Linux /proc; 100 clock ticks a second). */
function cpuMs(pid: number): number {
  const fields = fs.readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1].split(" ");
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))];

/** The client process: measures the cells it is sent (over HTTP) and answers each with a ClientCell. */
function client(): void {
  process.on("message", (job: { url: string; request: Request; seconds: number }) => {
    void measure(job.url, job.request, job.seconds).then((cell) => process.send!(cell));
  });
}

function ask(child: ChildProcess, job: { url: string; request: Request; seconds: number }): Promise<ClientCell> {
  return new Promise((resolve) => {
    child.once("message", (cell) => resolve(cell as ClientCell));
    child.send(job);
  });
}

async function measure(url: string, request: Request, seconds: number): Promise<ClientCell> {
  const body = JSON.stringify({ query: request.query });
  const headers = { "content-type": "application/json", ...request.headers };
  const once = async () => {
    const res = await fetch(url, { method: "POST", headers, body });
    const answer = (await res.json()) as { errors?: unknown };
    return res.ok && !answer.errors;
  };
  for (let i = 0; i < WARMUP_REQUESTS; i++) await once();
  const latencies: number[] = [];
  let failures = 0;
  const started = performance.now();
  const until = started + seconds * 1000;
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (performance.now() < until) {
        const t0 = performance.now();
        if (!(await once())) failures++;
        latencies.push(performance.now() - t0);
      }
    }),
  );
  const elapsed = (performance.now() - started) / 1000;
  latencies.sort((a, b) => a - b);
  return {
    requests: latencies.length,
    perSecond: latencies.length / elapsed,
    p50: percentile(latencies, 0.5),
    p95: percentile(latencies, 0.95),
    failures,
  };
}

async function main(): Promise<void> {
  const server = await startBenchServer("access", { ferretdb: { pushdown: BENCH.ferretdbPushdown } });
  const poolSize = BENCH.poolSize ?? (server.embedded?.kind === "ferretdb" ? EMBEDDED_FERRETDB_POOL_SIZE : undefined);
  const db = await openDatabase(server.uri, {
    dbName: `bench_access_${Date.now()}`,
    ...(poolSize ? { maxPoolSize: poolSize } : {}),
  });
  await seedProjects(db, PROJECTS, { companies: COMPANIES, statuses: ["active", "planned", "done"], teachers: 20 });
  const logger = pino({ level: "silent" });
  const apps = {
    plain: await createApp({ config: BENCH_APP_CONFIG, logger, db }),
    policy: await createApp({
      config: { ...BENCH_APP_CONFIG, accessPolicy: parseAccessPolicy(JSON.stringify(POLICY)) },
      logger,
      db,
    }),
  };
  const urls: Record<string, string> = {};
  for (const [name, app] of Object.entries(apps)) {
    await app.listen({ port: 0, host: "127.0.0.1" });
    const address = app.server.address();
    urls[name] = `http://127.0.0.1:${typeof address === "object" && address ? address.port : 0}/graphql`;
  }

  const child = fork(__filename, ["--client"], { stdio: "inherit" });
  const database = server.embedded?.kind === "ferretdb" ? server.embedded.pid : undefined;
  const cells = new Map<string, Cell[]>();
  const loads: string[] = [];
  for (let round = 1; round <= ROUNDS; round++) {
    loads.push(os.loadavg()[0].toFixed(1));
    for (const scenario of SCENARIOS) {
      // Alternate which side goes first, so a trend in the machine's load favours neither.
      const sides = round % 2 ? (["rule", "without"] as const) : (["without", "rule"] as const);
      for (const side of sides) {
        const request = scenario[side];
        process.stderr.write(`round ${round}: ${scenario.name} (${side === "rule" ? "under the rule" : "without"})\n`);
        const cpu = process.cpuUsage();
        const databaseFrom = database ? cpuMs(database) : 0;
        const measured = await ask(child, { url: urls[request.app], request, seconds: SECONDS });
        const used = process.cpuUsage(cpu);
        const cell: Cell = {
          ...measured,
          serviceCpu: (used.user + used.system) / 1000 / measured.requests,
          databaseCpu: database ? (cpuMs(database) - databaseFrom) / measured.requests : 0,
        };
        const key = `${scenario.name}|${side}`;
        cells.set(key, [...(cells.get(key) ?? []), cell]);
      }
    }
  }

  process.stdout.write(
    `\n${PROJECTS} projects over ${COMPANIES} companies; ${server.description}; concurrency ${CONCURRENCY}; ${ROUNDS} rounds of ${SECONDS} s per cell (medians); node ${process.version}; ${os.cpus().length} cores; load average at each round's start: ${loads.join(", ")}\n\n`,
  );
  process.stdout.write(
    "| scenario | under the rule: p50 ms / req/s / CPU ms per request (service + FerretDB) | without | ratio: p50 / req/s / CPU | failures |\n|---|---|---|---|---|\n",
  );
  for (const scenario of SCENARIOS) {
    const sides = (["rule", "without"] as const).map((side) => {
      const runs = cells.get(`${scenario.name}|${side}`)!;
      return {
        p50: median(runs.map((c) => c.p50)),
        perSecond: median(runs.map((c) => c.perSecond)),
        service: median(runs.map((c) => c.serviceCpu)),
        database: median(runs.map((c) => c.databaseCpu)),
        failures: runs.reduce((n, c) => n + c.failures, 0),
      };
    });
    const [rule, without] = sides;
    const shown = (c: (typeof sides)[number]) =>
      `${c.p50.toFixed(1)} / ${c.perSecond.toFixed(0)} / ${(c.service + c.database).toFixed(2)} (${c.service.toFixed(2)} + ${c.database.toFixed(2)})`;
    const cpuRatio = (rule.service + rule.database) / (without.service + without.database);
    process.stdout.write(
      `| ${scenario.name} | ${shown(rule)} | ${shown(without)} | ${(rule.p50 / without.p50).toFixed(2)} / ${(without.perSecond / rule.perSecond).toFixed(2)} / ${cpuRatio.toFixed(2)} | ${rule.failures + without.failures} |\n`,
    );
  }
  child.kill();

  for (const app of Object.values(apps)) await app.close();
  await db.connection.dropDatabase();
  await db.close();
  await server.stop();
}

if (process.argv[2] === "--client") client();
else {
  void main().catch((err: unknown) => {
    process.stderr.write(`${(err as Error).stack ?? String(err)}\n`);
    process.exit(1);
  });
}
