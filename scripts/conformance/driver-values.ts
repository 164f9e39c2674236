// Between the test format and the Node.js driver: read and write concerns and read preferences as the format writes
// them (Common Options) turned into the driver's, and the driver's result objects turned into the documents the
// format's expectResult describes (BulkWriteResult, client bulkWrite's results).
import {
  type BulkWriteResult,
  ReadPreference,
  type ClientBulkWriteResult,
  type ReadConcernLike,
  type ReadPreferenceMode,
  type TagSet,
  type WriteConcernSettings,
} from "mongodb";
import { TestSkipped } from "./test-outcome";
import { isPlainDocument, type Doc } from "./unified-format";

export function toReadPreference(value: unknown): ReadPreference {
  if (typeof value === "string") return ReadPreference.fromString(value);
  if (!isPlainDocument(value) || typeof value.mode !== "string") {
    throw new TestSkipped(`the test file is malformed: a readPreference needs a mode`);
  }
  const options: { maxStalenessSeconds?: number; hedge?: Doc } = {};
  if (value.maxStalenessSeconds !== undefined) options.maxStalenessSeconds = Number(value.maxStalenessSeconds);
  if (value.hedge !== undefined) options.hedge = value.hedge as Doc;
  return new ReadPreference(value.mode as ReadPreferenceMode, value.tagSets as TagSet[] | undefined, options);
}

export function toWriteConcern(value: unknown): WriteConcernSettings {
  if (!isPlainDocument(value)) throw new TestSkipped(`the test file is malformed: a writeConcern must be a document`);
  const settings: WriteConcernSettings = {};
  if (value.w !== undefined) settings.w = value.w as WriteConcernSettings["w"];
  if (value.journal !== undefined) settings.journal = Boolean(value.journal);
  if (value.wtimeoutMS !== undefined) settings.wtimeoutMS = Number(value.wtimeoutMS);
  return settings;
}

export function toReadConcern(value: unknown): ReadConcernLike {
  if (!isPlainDocument(value) || typeof value.level !== "string") {
    throw new TestSkipped(`the test file is malformed: a readConcern needs a level`);
  }
  return { level: value.level } as ReadConcernLike;
}

/** readConcern, readPreference and writeConcern of an options document in the driver's form; the rest as given. */
export function withDriverConcerns(options: Doc): Doc {
  const out: Doc = { ...options };
  if (out.readConcern !== undefined) out.readConcern = toReadConcern(out.readConcern);
  if (out.readPreference !== undefined) out.readPreference = toReadPreference(out.readPreference);
  if (out.writeConcern !== undefined) out.writeConcern = toWriteConcern(out.writeConcern);
  return out;
}

/** A collection's bulkWrite result as the CRUD specification's BulkWriteResult document. */
export function bulkWriteResultDocument(result: BulkWriteResult): Doc {
  return {
    insertedCount: result.insertedCount,
    matchedCount: result.matchedCount,
    modifiedCount: result.modifiedCount,
    deletedCount: result.deletedCount,
    upsertedCount: result.upsertedCount,
    upsertedIds: { ...result.upsertedIds },
    insertedIds: { ...result.insertedIds },
  };
}

/** A client bulkWrite result as the CRUD specification's document: the verbose results as documents by index. */
export function clientBulkWriteResultDocument(result: ClientBulkWriteResult): Doc {
  const byIndex = <T>(map: ReadonlyMap<number, T> | undefined, shape: (value: T) => Doc): Doc | undefined => {
    if (!map) return undefined;
    const out: Doc = {};
    for (const [index, value] of map) out[String(index)] = shape(value);
    return out;
  };
  const document: Doc = {
    insertedCount: result.insertedCount,
    upsertedCount: result.upsertedCount,
    matchedCount: result.matchedCount,
    modifiedCount: result.modifiedCount,
    deletedCount: result.deletedCount,
  };
  if (!result.acknowledged) document.acknowledged = false;
  const inserts = byIndex(result.insertResults, (value) => ({ insertedId: value.insertedId }));
  const updates = byIndex(result.updateResults, (value) => {
    const update: Doc = { matchedCount: value.matchedCount, modifiedCount: value.modifiedCount };
    if (value.didUpsert) update.upsertedId = value.upsertedId;
    return update;
  });
  const deletes = byIndex(result.deleteResults, (value) => ({ deletedCount: value.deletedCount }));
  if (inserts) document.insertResults = inserts;
  if (updates) document.updateResults = updates;
  if (deletes) document.deleteResults = deletes;
  return document;
}
