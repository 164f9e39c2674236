// A database of the test file's own on the run's server, so files run in parallel without sharing data.
import crypto from "node:crypto";
import os from "node:os";
import path from "node:path";
import type { mongo } from "mongoose";
import { openDatabase, type Database } from "../../src/persistence";
import type { OpenDatabaseOptions } from "../../src/db/database";
import { explainSqlLog, type ExplainedStatement } from "../../src/db/ferretdb";

export function testDbName(): string {
  const testPath = expect.getState().testPath ?? "test";
  const base = path
    .basename(testPath)
    .replace(/\.test\.ts$/, "")
    .replace(/[^a-zA-Z0-9_-]/g, "_");
  return `t_${base.slice(0, 40)}_${crypto.randomBytes(4).toString("hex")}`;
}

export function testMongoUri(): string {
  const uri = process.env.TEST_MONGODB_URI;
  if (!uri) throw new Error("TEST_MONGODB_URI is not set: run the tests through jest (global setup)");
  return uri;
}

/**
 * Opens a fresh database for this test file; drop it with dropTestDatabase. With `appName`, its client says that
 * name to the server (a fail point can then be set for it alone: failCommand).
 */
export async function openTestDatabase(
  dbName = testDbName(),
  options: { appName?: string } & Pick<
    OpenDatabaseOptions,
    "maxPoolSize" | "writesAtOnce" | "writesWaitingAtMost" | "monitorCommands"
  > = {},
): Promise<Database> {
  const { appName, ...pool } = options;
  const uri = appName ? `${testMongoUri()}?appName=${encodeURIComponent(appName)}` : testMongoUri();
  // The name reaches the server only with the driver's client metadata, which needs Node's os under Jest.
  return openDatabase(uri, { dbName, ...pool, ...(appName ? { runtimeAdapters: { os } } : {}) });
}

/**
 * Sets MongoDB's failCommand fail point for the commands of the clients named `appName` only (other test files share
 * the server): the tests' embedded FerretDB is started for tests (global-setup.ts), as a mongod would be with
 * enableTestCommands. Returns the function that turns it off.
 */
export async function failCommand(
  db: Database,
  appName: string,
  mode: "alwaysOn" | { times: number },
  data: { failCommands: string[]; errorCode?: number; errorLabels?: string[]; closeConnection?: boolean },
): Promise<() => Promise<void>> {
  const admin = db.connection.db!.admin();
  await admin.command({ configureFailPoint: "failCommand", mode, data: { ...data, appName } });
  return async () => {
    await admin.command({ configureFailPoint: "failCommand", mode: "off" });
  };
}

export async function dropTestDatabase(db: Database): Promise<void> {
  await db.connection.dropDatabase().catch(() => undefined);
  await db.close();
}

/**
 * On the embedded FerretDB: SQLite's query plan of every distinct statement the run's FerretDB has sent to the
 * database dbName so far (global-setup.ts starts it with an SQL log). Undefined on MongoDB.
 */
export async function sqlPlansOf(dbName: string): Promise<ExplainedStatement[] | undefined> {
  const dir = process.env.TEST_FERRETDB_DIR;
  const log = process.env.TEST_FERRETDB_SQL_LOG;
  if (!dir || !log) return undefined;
  return explainSqlLog(dir, log, dbName);
}

/**
 * What `run` answers, and the commands the driver started for `db`'s database meanwhile (open it with
 * monitorCommands: true).
 */
export async function commandsDuring<T>(
  db: Database,
  run: () => Promise<T>,
): Promise<{ result: T; commands: mongo.CommandStartedEvent[] }> {
  const dbName = db.connection.db!.databaseName;
  const commands: mongo.CommandStartedEvent[] = [];
  const listener = (event: mongo.CommandStartedEvent) => {
    if (event.databaseName === dbName) commands.push(event);
  };
  const client = db.connection.getClient();
  client.on("commandStarted", listener);
  try {
    return { result: await run(), commands };
  } finally {
    client.off("commandStarted", listener);
  }
}
