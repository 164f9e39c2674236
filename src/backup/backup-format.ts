// The backup directory, in the layout mongodump writes (so mongorestore reads it as it is):
//
//   <dir>/manifest.json                          { created_at, database, collections: { <name>: { count, sha256 } } }
//   <dir>/<database>/<collection>.bson           the collection's documents, BSON, one after another
//   <dir>/<database>/<collection>.metadata.json  its indexes, in MongoDB's canonical Extended JSON
//
// Reading checks what it reads: a .bson file is a whole number of well-formed documents, its hash and count are
// the manifest's, and every file the directory holds is named by the manifest (and the other way round).
import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { mongo } from "mongoose";

export const MANIFEST = "manifest.json";

export interface Manifest {
  created_at: string;
  database: string;
  collections: Record<string, { count: number; sha256: string }>;
}

/** An index as listIndexes answers it (and as mongodump writes it into .metadata.json). */
export type IndexSpec = Record<string, unknown> & { name: string; key: Record<string, unknown> };

export interface CollectionMetadata {
  indexes: IndexSpec[];
  uuid: string;
  collectionName: string;
  type: "collection";
}

/** A refusal the user can act on: one line, exit 1 (a backup that does not verify, a target that holds data). */
export class BackupRefused extends Error {}

/** A backup stopped by a signal (Ctrl-C, SIGTERM) after removing what it had written: exit 1. */
export class BackupStopped extends Error {}

/** The collections of a database a backup holds: all but the server's own (`system.*`) and views. */
export async function collectionNames(db: mongo.Db): Promise<string[]> {
  return (await db.listCollections({}, { nameOnly: true }).toArray())
    .filter((c) => (c.type ?? "collection") === "collection" && !c.name.startsWith("system."))
    .map((c) => c.name);
}

export const bsonFile = (dir: string, database: string, collection: string) =>
  path.join(dir, database, `${collection}.bson`);
export const metadataFile = (dir: string, database: string, collection: string) =>
  path.join(dir, database, `${collection}.metadata.json`);

export function metadataJson(collection: string, indexes: IndexSpec[]): string {
  const metadata: CollectionMetadata = { indexes, uuid: "", collectionName: collection, type: "collection" };
  return mongo.BSON.EJSON.stringify(metadata, { relaxed: false });
}

/** The smallest BSON document (an int32 length and the terminating 0); the largest MongoDB stores is 16 MiB. */
const MIN_DOCUMENT = 5;
const MAX_DOCUMENT = 16 * 1024 * 1024;

/**
 * Splits a stream of BSON documents: feed it chunks, it hands each whole document to `onDocument` (a Buffer of its
 * own) and throws on a length no document can have. `end()` throws when bytes are left over (a truncated file).
 */
export class BsonSplitter {
  private pending: Buffer = Buffer.alloc(0);
  count = 0;

  constructor(
    private readonly where: string,
    private readonly onDocument?: (document: Buffer) => void,
  ) {}

  push(chunk: Buffer): void {
    let buffer = this.pending.length > 0 ? Buffer.concat([this.pending, chunk]) : chunk;
    let offset = 0;
    while (buffer.length - offset >= 4) {
      const size = buffer.readInt32LE(offset);
      if (size < MIN_DOCUMENT || size > MAX_DOCUMENT) {
        throw new BackupRefused(`${this.where}: document ${this.count + 1} has an impossible length (${size} bytes)`);
      }
      if (buffer.length - offset < size) break;
      if (buffer[offset + size - 1] !== 0) {
        throw new BackupRefused(`${this.where}: document ${this.count + 1} does not end where its length says`);
      }
      this.count++;
      this.onDocument?.(Buffer.from(buffer.subarray(offset, offset + size)));
      offset += size;
    }
    buffer = buffer.subarray(offset);
    this.pending = Buffer.from(buffer);
  }

  end(): void {
    if (this.pending.length > 0) {
      throw new BackupRefused(`${this.where}: ends inside document ${this.count + 1} (the file is truncated)`);
    }
  }
}

/** Reads a .bson file once: its SHA-256 and how many documents it holds; throws BackupRefused when malformed. */
export async function scanBsonFile(file: string, where: string): Promise<{ sha256: string; count: number }> {
  const hash = crypto.createHash("sha256");
  const splitter = new BsonSplitter(where);
  for await (const chunk of fs.createReadStream(file, { highWaterMark: 1024 * 1024 })) {
    hash.update(chunk as Buffer);
    splitter.push(chunk as Buffer);
  }
  splitter.end();
  return { sha256: hash.digest("hex"), count: splitter.count };
}

/**
 * Checks a backup directory against its manifest before anything is written: the manifest's shape, every file it
 * names (present, a whole number of documents, their count and SHA-256 as listed, readable metadata), and no file it
 * does not name. Throws BackupRefused with one line saying what does not match.
 */
export async function verifyBackup(
  dir: string,
  progress: (message: string) => void = () => {},
): Promise<{ manifest: Manifest; metadata: Record<string, CollectionMetadata> }> {
  if (!fs.existsSync(dir) || !fs.statSync(dir).isDirectory()) throw new BackupRefused(`${dir} is not a directory`);
  const manifestPath = path.join(dir, MANIFEST);
  if (!fs.existsSync(manifestPath)) throw new BackupRefused(`${dir} has no ${MANIFEST}: it is not a complete backup`);
  let manifest: Manifest;
  try {
    manifest = JSON.parse(fs.readFileSync(manifestPath, "utf8")) as Manifest;
  } catch (err) {
    throw new BackupRefused(`${MANIFEST} is not valid JSON: ${(err as Error).message}`);
  }
  const { database, collections } = manifest ?? {};
  if (typeof database !== "string" || !/^[^/\\. "$*<>:|?]+$/.test(database)) {
    throw new BackupRefused(`${MANIFEST}: "database" is not a database name`);
  }
  if (typeof collections !== "object" || collections === null || Array.isArray(collections)) {
    throw new BackupRefused(`${MANIFEST}: "collections" is not an object`);
  }
  for (const [name, entry] of Object.entries(collections)) {
    if (
      !/^[A-Za-z0-9_][A-Za-z0-9_.-]*$/.test(name) ||
      !Number.isSafeInteger(entry?.count) ||
      entry.count < 0 ||
      typeof entry.sha256 !== "string" ||
      !/^[0-9a-f]{64}$/.test(entry.sha256)
    ) {
      throw new BackupRefused(`${MANIFEST}: collection "${name}" is not { "count": <documents>, "sha256": "<hex>" }`);
    }
  }
  const folder = path.join(dir, database);
  const present = fs.existsSync(folder) ? fs.readdirSync(folder) : [];
  const expected = new Set(Object.keys(collections).flatMap((name) => [`${name}.bson`, `${name}.metadata.json`]));
  const stray = present.filter((file) => !expected.has(file));
  if (stray.length > 0) throw new BackupRefused(`${database}/${stray[0]} is not in ${MANIFEST}`);
  const metadata: Record<string, CollectionMetadata> = {};
  for (const [name, entry] of Object.entries(collections)) {
    const where = `${database}/${name}.bson`;
    const file = bsonFile(dir, database, name);
    if (!fs.existsSync(file)) throw new BackupRefused(`${where} is missing (${MANIFEST} lists it)`);
    progress(`Checking ${where} (${entry.count} documents)`);
    const found = await scanBsonFile(file, where);
    if (found.sha256 !== entry.sha256) {
      throw new BackupRefused(`${where}: its SHA-256 is not the one in ${MANIFEST} (the file was changed or damaged)`);
    }
    if (found.count !== entry.count) {
      throw new BackupRefused(`${where} holds ${found.count} documents; ${MANIFEST} says ${entry.count}`);
    }
    const metaWhere = `${database}/${name}.metadata.json`;
    const metaFile = metadataFile(dir, database, name);
    if (!fs.existsSync(metaFile)) throw new BackupRefused(`${metaWhere} is missing`);
    try {
      const parsed = mongo.BSON.EJSON.parse(fs.readFileSync(metaFile, "utf8"), {
        relaxed: false,
      }) as CollectionMetadata;
      if (!Array.isArray(parsed.indexes)) throw new Error("no list of indexes");
      metadata[name] = parsed;
    } catch (err) {
      throw new BackupRefused(`${metaWhere} is not readable: ${(err as Error).message}`);
    }
  }
  return { manifest, metadata };
}
