// db:restore's writing side: a verified backup directory (backup-format.ts) into a database, indexes included.
import fs from "node:fs";
import { mongo } from "mongoose";
import {
  BackupRefused,
  BsonSplitter,
  bsonFile,
  collectionNames,
  type CollectionMetadata,
  type IndexSpec,
  type Manifest,
} from "./backup-format";

const BATCH_DOCUMENTS = 1000;
const BATCH_BYTES = 8 * 1024 * 1024;
const PROGRESS_EVERY_MS = 5_000;
const NAMESPACE_EXISTS = 48;

/** Collections that hold no data of their own: markers of one-time migrations already run on an empty database. */
const NOT_DATA = new Set(["migrations"]);

/** Throws BackupRefused when the target holds data and `replace` was not given. */
export async function refuseUnlessEmpty(db: mongo.Db, replace: boolean): Promise<void> {
  if (replace) return;
  for (const name of await collectionNames(db)) {
    if (NOT_DATA.has(name)) continue;
    const count = await db.collection(name).countDocuments({}, { limit: 1 });
    if (count > 0) {
      throw new BackupRefused(
        `the database "${db.databaseName}" holds data (collection ${name}); restore into an empty database, or give --replace to replace what it holds`,
      );
    }
  }
}

/** An index as createIndexes takes it: what listIndexes answered, less what the server fills in itself. */
function indexToCreate(spec: IndexSpec): mongo.IndexDescription {
  const { v: _v, ns: _ns, key, ...options } = spec;
  return { key: key as mongo.IndexDescription["key"], ...options } as mongo.IndexDescription;
}

/**
 * Writes the backup's collections into `db`: with `replace`, every collection the target holds is dropped first;
 * otherwise only those the backup holds (empty, or markers: refuseUnlessEmpty ran). Documents go in batches, as
 * stored (numbers keep their BSON types), then the indexes.
 */
export async function restoreCollections(
  db: mongo.Db,
  dir: string,
  backup: { manifest: Manifest; metadata: Record<string, CollectionMetadata> },
  options: { replace: boolean; progress: (message: string) => void },
): Promise<void> {
  const { manifest, metadata } = backup;
  const restoring = Object.keys(manifest.collections);
  const present = await collectionNames(db);
  for (const name of present) {
    if (options.replace || restoring.includes(name)) await db.collection(name).drop();
  }
  for (const name of restoring) {
    const { count: total } = manifest.collections[name];
    // Mongoose may have created `counters` as the connection opened (it is empty: dropped above, or refused).
    await db.createCollection(name).catch((err: { code?: number }) => {
      if (err?.code !== NAMESPACE_EXISTS) throw err;
    });
    const collection = db.collection(name);
    let batch: mongo.Document[] = [];
    let batchBytes = 0;
    let written = 0;
    let lastProgress = Date.now();
    const flush = async () => {
      if (batch.length === 0) return;
      await collection.insertMany(batch, { ordered: true });
      written += batch.length;
      batch = [];
      batchBytes = 0;
      if (Date.now() - lastProgress >= PROGRESS_EVERY_MS) {
        lastProgress = Date.now();
        options.progress(`${name}: ${written} of ${total} documents`);
      }
    };
    const splitter = new BsonSplitter(`${manifest.database}/${name}.bson`, (document) => {
      // promoteValues: false keeps every number the BSON type it was stored with (an Int32 stays an Int32).
      batch.push(mongo.BSON.deserialize(document, { promoteValues: false }));
      batchBytes += document.length;
    });
    for await (const chunk of fs.createReadStream(bsonFile(dir, manifest.database, name), {
      highWaterMark: 1024 * 1024,
    })) {
      splitter.push(chunk as Buffer);
      if (batch.length >= BATCH_DOCUMENTS || batchBytes >= BATCH_BYTES) await flush();
    }
    splitter.end();
    await flush();
    const indexes = (metadata[name]?.indexes ?? []).filter((index) => index.name !== "_id_").map(indexToCreate);
    if (indexes.length > 0) await collection.createIndexes(indexes);
    options.progress(`${name}: ${written} documents, ${indexes.length} index(es)`);
  }
}
