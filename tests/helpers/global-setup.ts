// Starts one embedded database for the whole run (unless MONGODB_URI is set) and hands its URI to the workers.
// FerretDB logs every SQL statement it runs (tests read their database's query plans: helpers/database.ts), and is
// started for tests: configureFailPoint works (helpers/database.ts, failCommand).
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { loadToolConfig } from "../../src/db/tool-config";
import { startEmbeddedDatabase } from "../../src/db/embedded";

export default async function globalSetup(): Promise<void> {
  const { mongodbUri, embeddedDb } = loadToolConfig();
  if (mongodbUri) {
    process.env.TEST_MONGODB_URI = mongodbUri;
    return;
  }
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "project-service-test-"));
  const sqlLog = path.join(dataDir, "sql.log");
  const db = await startEmbeddedDatabase({
    mode: embeddedDb,
    dataDir,
    progress: (message) => process.stderr.write(`[test database] ${message}\n`),
    ferretdb: { sqlLog, testCommands: true },
  });
  process.env.TEST_MONGODB_URI = db.uri;
  process.env.TEST_DATABASE_KIND = db.kind;
  if (db.kind === "ferretdb") {
    process.env.TEST_FERRETDB_DIR = path.join(dataDir, "ferretdb");
    process.env.TEST_FERRETDB_SQL_LOG = sqlLog;
  }
  (globalThis as Record<string, unknown>).__testDatabase = { db, dataDir };
}
