// Starts one embedded database for the whole run (unless MONGODB_URI is set) and hands its URI to the workers.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { startEmbeddedDatabase } from "../../src/db/embedded";

export default async function globalSetup(): Promise<void> {
  if (process.env.MONGODB_URI) {
    process.env.TEST_MONGODB_URI = process.env.MONGODB_URI;
    return;
  }
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "project-service-test-"));
  const mode = (process.env.EMBEDDED_DB ?? "auto") as "auto" | "mongod" | "ferretdb";
  const db = await startEmbeddedDatabase({
    mode,
    dataDir,
    progress: (message) => process.stderr.write(`[test database] ${message}\n`),
  });
  process.env.TEST_MONGODB_URI = db.uri;
  process.env.TEST_DATABASE_KIND = db.kind;
  (globalThis as Record<string, unknown>).__testDatabase = { db, dataDir };
}
