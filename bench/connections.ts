// npm run bench:connections [-- <projects> ...]: what a page of projectsConnection costs at the start of the list and
// deep in it (after a cursor at 90% of the list), unfiltered and filtered by company, at each given number of projects
// (default 1000 10000 100000), on the embedded database (or MONGODB_URI), in a fresh database per size. For
// comparison, the offset page at the same depth. Prints one table of p50/p95 latencies over BENCH_RUNS requests
// (default 10), sent one at a time over HTTP to the service in this process; no pass/fail — numbers for the notes.
//
// A keyset page is one query `{<filter>, project_id: {$gt: <cursor>}}` sorted by project_id, limit first + 1: on
// MongoDB (and on a FerretDB that pushes such ranges into SQLite's indexes) a deep page costs what the first costs; on
// stock FerretDB 1.24 every page scans the collection, filters and sorts in memory.
import "reflect-metadata";
import os from "node:os";
import pino from "pino";
import { createApp } from "../src/app";
import { EMBEDDED_FERRETDB_POOL_SIZE } from "../src/db/configured-database";
import { openDatabase } from "../src/persistence";
import { loadBenchConfig } from "./bench-config";
import { BENCH_APP_CONFIG } from "./app-config";
import { seedProjects, startBenchServer } from "./bench-database";

const BENCH = loadBenchConfig();
const RUNS = BENCH.runs;
const PAGE = 20;
const COMPANIES = 50;
/** Every request may take this long: stock FerretDB scans the whole collection for each page. */
const DB_TIMEOUT_MS = 600_000;

const sizes = process.argv.slice(2).map(Number);
for (const size of sizes) {
  if (!Number.isInteger(size) || size < 100) throw new Error(`not a number of projects (at least 100): ${size}`);
}

const cursorOf = (id: number) => Buffer.from(`v1:Project:${id}`).toString("base64url");
/** A position in another order (shared/list-order.ts's v2 cursor): a value of its field, and an id. */
const orderedCursorOf = (order: string, value: string | number, id: number) =>
  Buffer.from(`v2:Project:${order}:${JSON.stringify([value, id])}`).toString("base64url");
/** Seeded projects belong to company 100 + id % COMPANIES; the filtered scenarios read company 100. */
const FILTER = { company_id: 100 };

interface Scenario {
  name: string;
  query: string;
  variables: Record<string, unknown>;
}

function scenarios(count: number): Scenario[] {
  const deep = Math.floor(count * 0.9);
  // Company 100's projects are the multiples of COMPANIES: the one at 90% of its list.
  const deepFiltered = Math.floor((count / COMPANIES) * 0.9) * COMPANIES;
  const connection =
    "query($first: Int, $after: String, $last: Int, $before: String, $filter: ProjectFilterInput) { projectsConnection(first: $first, after: $after, last: $last, before: $before, filter: $filter) { edges { cursor node { id project_id project_name project_status } } pageInfo { hasNextPage hasPreviousPage endCursor } } }";
  const offset =
    "query($offset: Int!, $filter: ProjectFilterInput) { projects(offset: $offset, limit: 20, filter: $filter) { has_more items { id project_id project_name project_status } } }";
  // Lists a board can ask for (contract, sixth revision): where and orderBy, cursors deep in an order, counts.
  const board =
    "query($first: Int, $after: String, $where: ProjectWhere, $orderBy: ProjectOrder) { projectsConnection(first: $first, after: $after, where: $where, orderBy: $orderBy) { edges { cursor node { id project_id project_name end_date project_status } } pageInfo { hasNextPage endCursor } } }";
  const counts =
    "query($where: ProjectWhere) { projectCounts(where: $where, groupBy: PROJECT_STATUS) { total groups { key count } hasMoreGroups } }";
  const open = { project_status: { ne: "done" } };
  const byDeadline = { field: "END_DATE", direction: "ASC" };
  // Deadlines run to 2026-12-28; a position on 2026-11-20 lies near the end of that order, with open projects after it
  // (December's seeded projects are all done: id % 12 == 11 gives id % 3 == 2).
  const lateDeadline = orderedCursorOf("END_DATE:ASC", "2026-11-20", deep);
  return [
    { name: "projectsConnection(first: 20): first page", query: connection, variables: { first: PAGE } },
    {
      name: `projectsConnection(first: 20, after: cursor of ${deep}): page at 90%`,
      query: connection,
      variables: { first: PAGE, after: cursorOf(deep) },
    },
    {
      name: `projectsConnection(last: 20, before: cursor of ${deep}): backward at 90%`,
      query: connection,
      variables: { last: PAGE, before: cursorOf(deep) },
    },
    {
      name: "projectsConnection(first: 20, filter: company): first page",
      query: connection,
      variables: { first: PAGE, filter: FILTER },
    },
    {
      name: `projectsConnection(first: 20, filter: company, after: cursor of ${deepFiltered}): page at 90%`,
      query: connection,
      variables: { first: PAGE, after: cursorOf(deepFiltered), filter: FILTER },
    },
    {
      name: `projects(offset: ${deep}, limit: 20): offset page at 90% (for comparison)`,
      query: offset,
      variables: { offset: deep },
    },
    {
      name: "board: still open (status ne done), by deadline: first page",
      query: board,
      variables: { first: PAGE, where: open, orderBy: byDeadline },
    },
    {
      name: "board: still open, by deadline, after a cursor on 2026-11-20",
      query: board,
      variables: { first: PAGE, where: open, orderBy: byDeadline, after: lateDeadline },
    },
    {
      name: "board: a company's column (company, ne done) by deadline: first page",
      query: board,
      variables: { first: PAGE, where: { ...open, company_id: { eq: 100 } }, orderBy: byDeadline },
    },
    {
      name: "board: a company's column by deadline, after a cursor on 2026-11-20",
      query: board,
      variables: { first: PAGE, where: { ...open, company_id: { eq: 100 } }, orderBy: byDeadline, after: lateDeadline },
    },
    {
      name: "board: due in March (end_date range), by deadline",
      query: board,
      variables: { first: PAGE, where: { end_date: { gte: "2026-03-01", lt: "2026-04-01" } }, orderBy: byDeadline },
    },
    {
      name: 'board: a search box (project_name startsWith "seeded project 9"), by name',
      query: board,
      variables: {
        first: PAGE,
        where: { project_name: { startsWith: "seeded project 9" } },
        orderBy: { field: "PROJECT_NAME", direction: "ASC" },
      },
    },
    {
      name: `board: newest first (CREATED_AT DESC), after a cursor of ${deep}`,
      query: board,
      variables: {
        first: PAGE,
        orderBy: { field: "CREATED_AT", direction: "DESC" },
        after: orderedCursorOf("CREATED_AT:DESC", "2026-01-01T00:00:00.000Z", deep),
      },
    },
    {
      name: "board: a company's column counts (projectCounts by status)",
      query: counts,
      variables: { where: { company_id: { eq: 100 } } },
    },
  ];
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

interface Row {
  projects: number;
  name: string;
  items: number;
  p50: number;
  p95: number;
}

async function measure(uri: string, count: number, poolSize: number | undefined): Promise<Row[]> {
  const db = await openDatabase(uri, {
    dbName: `bench_connections_${count}_${Date.now()}`,
    timeoutMs: DB_TIMEOUT_MS,
    ...(poolSize ? { maxPoolSize: poolSize } : {}),
  });
  const app = await createApp({
    config: BENCH_APP_CONFIG,
    logger: pino({ level: "silent" }),
    db,
  });
  try {
    await seedProjects(db, count, { companies: COMPANIES, statuses: ["active", "planned", "done"], teachers: null });
    await app.listen({ port: 0, host: "127.0.0.1" });
    const address = app.server.address();
    const url = `http://127.0.0.1:${typeof address === "object" && address ? address.port : 0}/graphql`;
    const rows: Row[] = [];
    for (const scenario of scenarios(count)) {
      const send = async () => {
        const res = await fetch(url, {
          method: "POST",
          headers: { "content-type": "application/json", "x-user-role": "student" },
          body: JSON.stringify({ query: scenario.query, variables: scenario.variables }),
        });
        const body = (await res.json()) as {
          data?: {
            projectsConnection?: { edges: unknown[] };
            projects?: { items: unknown[] };
            projectCounts?: { groups: unknown[] };
          };
          errors?: { message: string }[];
        };
        if (body.errors || !body.data) throw new Error(`${scenario.name}: ${JSON.stringify(body.errors)}`);
        return (
          body.data.projectsConnection?.edges ??
          body.data.projects?.items ??
          body.data.projectCounts?.groups ??
          []
        ).length;
      };
      const items = await send(); // warm-up, and the answer's size
      const latencies: number[] = [];
      for (let run = 0; run < RUNS; run++) {
        const started = performance.now();
        await send();
        latencies.push(performance.now() - started);
      }
      latencies.sort((a, b) => a - b);
      rows.push({
        projects: count,
        name: scenario.name,
        items,
        p50: percentile(latencies, 50),
        p95: percentile(latencies, 95),
      });
      process.stderr.write(`${count}: ${scenario.name}: p50 ${percentile(latencies, 50).toFixed(1)} ms\n`);
    }
    return rows;
  } finally {
    await app.close();
    await db.connection.dropDatabase().catch(() => undefined);
    await db.close();
  }
}

async function main(): Promise<void> {
  const server = await startBenchServer("connections");
  const poolSize = BENCH.poolSize ?? (server.embedded?.kind === "ferretdb" ? EMBEDDED_FERRETDB_POOL_SIZE : undefined);
  try {
    const rows: Row[] = [];
    for (const count of sizes.length > 0 ? sizes : [1000, 10_000, 100_000]) {
      rows.push(...(await measure(server.uri, count, poolSize)));
    }
    process.stdout.write(
      `\nDatabase: ${server.description}; ${RUNS} requests per row, one at a time, after one warm-up; node ${process.version}; ${os.cpus().length} cores\n\n`,
    );
    process.stdout.write("| projects | query | items | p50 ms | p95 ms |\n|---|---|---|---|---|\n");
    for (const r of rows) {
      process.stdout.write(`| ${r.projects} | ${r.name} | ${r.items} | ${r.p50.toFixed(1)} | ${r.p95.toFixed(1)} |\n`);
    }
  } finally {
    await server.stop();
  }
}

void main();
