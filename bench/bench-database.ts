// What every bench needs from the database: the server (MONGODB_URI, else an embedded one of its own in a temporary
// folder, removed afterwards) and, for the benches that measure at scale, projects written straight into the
// collections. Seeded documents are exactly what the service would store — each project with its creation in the
// change log, at a position of its own — and each is checked against the contract's rules (the checks of
// npm run db:check) before it is written, so a bench never stores what the API could not answer.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { storedChangeProblems, storedProjectProblems } from "../src/components/projects";
import type { Database } from "../src/persistence";
import { startEmbeddedDatabase, type EmbeddedDatabase } from "../src/db/embedded";
import type { FerretDbOptions } from "../src/db/ferretdb";
import { loadBenchConfig } from "./bench-config";

export interface BenchServer {
  /** The server's URI, without a database name. */
  uri: string;
  /** The embedded server, when the bench started one. */
  embedded?: EmbeddedDatabase;
  /** One phrase for the bench's report. */
  description: string;
  stop(): Promise<void>;
}

/** MONGODB_URI, else an embedded server of the bench's own (EMBEDDED_DB chooses which, as for npm start). */
export async function startBenchServer(
  name: string,
  options: { ferretdb?: FerretDbOptions; quiet?: boolean } = {},
): Promise<BenchServer> {
  const config = loadBenchConfig();
  if (config.mongodbUri) {
    return { uri: config.mongodbUri, description: "MONGODB_URI", stop: async () => undefined };
  }
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), `project-service-bench-${name}-`));
  const embedded = await startEmbeddedDatabase({
    mode: config.embeddedDb,
    dataDir,
    progress: options.quiet ? () => undefined : (message) => process.stderr.write(`${message}\n`),
    ferretdb: options.ferretdb,
  });
  return {
    uri: embedded.uri,
    embedded,
    description: embedded.description,
    async stop() {
      await embedded.stop();
      fs.rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** A database of the bench's own on the server: the URI with its name. */
export function databaseUri(server: BenchServer, name: string): string {
  const uri = new URL(server.uri);
  uri.pathname = `/${name}`;
  return uri.toString();
}

export interface SeedSpread {
  /** Seeded projects belong to companies 100 … 100 + companies − 1. */
  companies: number;
  statuses: readonly string[];
  /** Teachers 1 … teachers (null: no teacher). */
  teachers: number | null;
}

const BATCH = 1000;

/** When seeded projects were created. */
const SEEDED_AT = new Date("2026-01-01T00:00:00Z");

/** Seeded project `id`, as stored (bench:peer stores the same rows in PostgreSQL). */
export function seededProject(id: number, spread: SeedSpread) {
  return {
    _id: String(id),
    project_id: id,
    project_name: `Seeded project ${id}`,
    name_key: `seeded project ${id}`,
    name_folded: `seeded project ${id}`,
    project_desc: "Seeded for the benchmark",
    company_id: 100 + (id % spread.companies),
    project_status: spread.statuses[id % spread.statuses.length],
    project_url: null,
    start_date: "2026-01-01",
    // Deadlines spread over the year (a board orders by them): 336 distinct days, many projects per day.
    end_date: `2026-${String(1 + (id % 12)).padStart(2, "0")}-${String(1 + (id % 28)).padStart(2, "0")}`,
    teacher_id: spread.teachers === null ? null : 1 + (id % spread.teachers),
    revision: 1,
    created_by: "bench",
    created_at: SEEDED_AT,
    updated_at: SEEDED_AT,
  };
}

/**
 * Stores projects 1…count straight through the driver, in batches, each with its creation in the change log (at
 * position = its id), and moves the id and position counters past them, so the service continues at count + 1.
 */
export async function seedProjects(db: Database, count: number, spread: SeedSpread): Promise<number> {
  if (count <= 0) return 0;
  const started = performance.now();
  const at = SEEDED_AT;
  for (let from = 1; from <= count; from += BATCH) {
    const ids = Array.from({ length: Math.min(BATCH, count - from + 1) }, (_, k) => from + k);
    const projects = ids.map((id) => seededProject(id, spread));
    const changes = projects.map(({ _id: _key, name_key: _nameKey, name_folded: _folded, ...state }) => ({
      _id: `${state.project_id}:1`,
      seq: state.project_id,
      project_id: state.project_id,
      revision: 1,
      operation: "createProject",
      actor_id: "bench",
      actor_role: "admin",
      at,
      set: {},
      changes: [{ field: "project_name", from: null, to: state.project_name }],
      project: state,
    }));
    refuseBroken("projects", projects, storedProjectProblems);
    refuseBroken("project_changes", changes, storedChangeProblems);
    await db.models.Project.collection.insertMany(projects as never[], { ordered: false });
    await db.models.ProjectChange.collection.insertMany(changes as never[], { ordered: false });
  }
  for (const sequence of ["projects", "project_changes"]) {
    await db.models.Counter.updateOne({ _id: sequence }, { $set: { seq: count } }, { upsert: true });
  }
  process.stderr.write(`Stored ${count} projects in ${((performance.now() - started) / 1000).toFixed(1)}s\n`);
  return count;
}

function refuseBroken(
  collection: string,
  docs: Record<string, unknown>[],
  problemsOf: (doc: Record<string, unknown>) => { field: string; rule: string }[],
): void {
  for (const doc of docs) {
    const [problem] = problemsOf(doc);
    if (problem)
      throw new Error(`the bench would store ${collection} ${String(doc._id)} with ${problem.field} ${problem.rule}`);
  }
}
