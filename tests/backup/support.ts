// db:backup and db:restore run as the real scripts (compiled by npm test's tsc), against databases of the run's
// server (MONGODB_URI) or an embedded FerretDB of the test's own (DATA_DIR).
import { spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import type { mongo } from "mongoose";
import type { Services } from "../../src/services";
import { testMongoUri } from "../helpers/database";

export const REPO = path.resolve(__dirname, "../..");

/** What the service answers about everything a small database holds (compared before and after a restore). */
export const ANSWERS = `{
  projects(limit: 12) { total items {
    id project_id project_name project_desc project_status company_id start_date end_date revision created_at updated_at
    teacher { teacher_id teacher_name }
    history(limit: 3) { total items { revision operation actor_role at changes { field from to } } }
  } }
  teachers(limit: 3) { total items { teacher_id teacher_name } }
  students(limit: 5) { total items { student_id student_name email class_code } }
}`;

export interface ScriptRun {
  code: number | null;
  stderr: string;
  /** stderr's lines */
  lines: string[];
}

/** The environment a script gets: the machine's basics plus `env` (MONGODB_URI or DATA_DIR, and so on). */
function scriptEnv(env: Record<string, string>): NodeJS.ProcessEnv {
  return { PATH: process.env.PATH, HOME: process.env.HOME, LOG_LEVEL: "warn", ...env };
}

/** Starts scripts/<name>.js; `onLine` sees each stderr line as it comes. */
export function startScript(
  name: "db-backup" | "db-restore" | "db-check",
  args: string[],
  env: Record<string, string>,
  onLine?: (line: string, child: ChildProcess) => void,
): { child: ChildProcess; done: Promise<ScriptRun> } {
  const child = spawn(process.execPath, [path.join(REPO, `dist/scripts/${name}.js`), ...args], {
    cwd: REPO,
    env: scriptEnv(env),
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stderr = "";
  let partial = "";
  child.stdout!.resume();
  child.stderr!.on("data", (chunk: Buffer) => {
    stderr += chunk.toString();
    partial += chunk.toString();
    const lines = partial.split("\n");
    partial = lines.pop()!;
    for (const line of lines) onLine?.(line, child);
  });
  const done = new Promise<ScriptRun>((resolve) =>
    child.on("exit", (code) => resolve({ code, stderr, lines: stderr.split("\n").filter(Boolean) })),
  );
  return { child, done };
}

export function runScript(
  name: "db-backup" | "db-restore" | "db-check",
  args: string[],
  env: Record<string, string>,
): Promise<ScriptRun> {
  return startScript(name, args, env).done;
}

/** MONGODB_URI of database `dbName` on the run's server. */
export function uriOf(dbName: string): string {
  const uri = new URL(testMongoUri());
  uri.pathname = `/${dbName}`;
  return uri.toString();
}

export function tempDir(prefix: string): string {
  return fs.mkdtempSync(path.join(os.tmpdir(), `${prefix}-`));
}

/** Every document of every collection (system collections aside), by collection, in _id order. */
export async function contentsOf(db: mongo.Db): Promise<Record<string, unknown[]>> {
  const contents: Record<string, unknown[]> = {};
  for (const { name } of await db.listCollections({}, { nameOnly: true }).toArray()) {
    if (name.startsWith("system.")) continue;
    contents[name] = await db.collection(name).find({}, { promoteValues: false }).sort({ _id: 1 }).toArray();
  }
  return contents;
}

/** Each collection's indexes as name → key and uniqueness. */
export async function indexesOf(db: mongo.Db): Promise<Record<string, Record<string, unknown>>> {
  const indexes: Record<string, Record<string, unknown>> = {};
  for (const { name } of await db.listCollections({}, { nameOnly: true }).toArray()) {
    if (name.startsWith("system.")) continue;
    const list = await db.collection(name).listIndexes().toArray();
    indexes[name] = Object.fromEntries(list.map((i) => [i.name, { key: i.key, unique: i.unique === true }]));
  }
  return indexes;
}

/** A project created through the service as a client would: proposed, for the first half of 2026. */
export function createProject(
  services: Services,
  fields: { project_name: string; project_desc: string; company_id: number },
): ReturnType<Services["projects"]["create"]> {
  return services.projects.create({
    ...fields,
    project_status: "proposed",
    start_date: "2026-01-01",
    end_date: "2026-06-30",
  });
}
