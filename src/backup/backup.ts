// db:backup's reading side: every collection of a database, as BSON exactly as the server sends it (the driver's raw
// mode: nothing decoded, nothing re-encoded), into the mongodump layout, with each file's count and SHA-256 for
// the manifest (backup-format.ts).
import crypto from "node:crypto";
import fs from "node:fs";
import { once } from "node:events";
import type { mongo } from "mongoose";
import { bsonFile, collectionNames, metadataFile, metadataJson, type IndexSpec, type Manifest } from "./backup-format";

const BATCH = 1000;
const PROGRESS_EVERY_MS = 5_000;

/**
 * The order collections are read in. On a database that keeps being written while it is read (MONGODB_URI; the
 * embedded database is read from a snapshot instead), projects come before their change log and the counters last:
 * every change acknowledged before the backup began is then in both, and a counter is never behind what it counted.
 */
const READING_RANK: Record<string, number> = { projects: 0, teachers: 0, students: 0, project_changes: 2, counters: 3 };

function readingOrder(names: string[]): string[] {
  const rank = (name: string) => READING_RANK[name] ?? 1;
  return [...names].sort((a, b) => rank(a) - rank(b) || a.localeCompare(b));
}

/**
 * Writes every collection of `db` into dir/<database>/ and returns the manifest describing what it wrote; stops with
 * the signal's reason when it is aborted.
 */
export async function dumpDatabase(
  db: mongo.Db,
  dir: string,
  progress: (message: string) => void,
  signal?: AbortSignal,
): Promise<Manifest> {
  const database = db.databaseName;
  fs.mkdirSync(`${dir}/${database}`, { recursive: true });
  const names = await collectionNames(db);
  const manifest: Manifest = { created_at: new Date().toISOString(), database, collections: {} };
  for (const name of readingOrder(names)) {
    const collection = db.collection(name);
    const total = await collection.estimatedDocumentCount();
    const hash = crypto.createHash("sha256");
    const out = fs.createWriteStream(bsonFile(dir, database, name));
    let count = 0;
    let lastProgress = Date.now();
    const cursor = collection.find({}, { raw: true, batchSize: BATCH });
    try {
      for await (const document of cursor as unknown as AsyncIterable<Buffer>) {
        if (count % BATCH === 0) signal?.throwIfAborted();
        hash.update(document);
        if (!out.write(document)) await once(out, "drain");
        count++;
        if (Date.now() - lastProgress >= PROGRESS_EVERY_MS) {
          lastProgress = Date.now();
          progress(`${name}: ${count} of about ${total} documents`);
        }
      }
    } finally {
      await cursor.close();
      out.end();
      await once(out, "close");
    }
    const indexes = (await collection.listIndexes().toArray()) as IndexSpec[];
    fs.writeFileSync(metadataFile(dir, database, name), metadataJson(name, indexes));
    manifest.collections[name] = { count, sha256: hash.digest("hex") };
    progress(`${name}: ${count} documents`);
  }
  return manifest;
}
