// The operations a test runs on its entities (clients, databases, collections, sessions, cursors), each mapped to the
// Node.js driver's method: which arguments it takes (a test naming another one is skipped rather than run without
// it), how it runs, and how its result is matched (a root-level document, or an array of them for find…). Iterable
// results are read to the end, as the format asks.
import {
  type ReadPreference,
  type AnyBulkWriteOperation,
  type AnyClientBulkWriteModel,
  type ClientSession,
  type Collection,
  type Db,
  type Document,
  type IndexSpecification,
  type MongoClient,
  type TransactionOptions,
} from "mongodb";
import {
  bulkWriteResultDocument,
  clientBulkWriteResultDocument,
  toReadConcern,
  toReadPreference,
  toWriteConcern,
} from "./driver-values";
import type { Cursor, EntityKind, EntityMap } from "./entity-map";
import type { MatchShape } from "./matcher";
import { TestSkipped } from "./test-outcome";
import { isPlainDocument, type Doc, type Operation } from "./unified-format";

/** What an operation can reach besides its target entity. */
export interface OperationContext {
  entities: EntityMap;
  /** Runs a withTransaction callback's operations, letting their errors reach the driver's withTransaction. */
  runCallback(operations: Operation[]): Promise<void>;
  /** Notes that the test used a transaction, so the runner ends the server's open transactions after it. */
  usedTransaction(): void;
}

interface OperationSpec<T> {
  required: readonly string[];
  optional: readonly string[];
  run(target: T, args: Doc, context: OperationContext): Promise<unknown>;
  /** How expectResult is matched; "root" (a root-level document or a plain value) unless said. */
  shape?: MatchShape;
  /** The result is a cursor, saved as a cursor entity. */
  cursor?: boolean;
}

type Table<T> = Record<string, OperationSpec<T>>;

const CONCERNS = ["readConcern", "readPreference", "writeConcern"] as const;

/** The arguments other than `required`: the driver's options. */
function options(args: Doc, required: readonly string[]): Doc {
  const out: Doc = {};
  for (const [key, value] of Object.entries(args)) if (!required.includes(key)) out[key] = value;
  return out;
}

function spec<T>(
  required: readonly string[],
  optional: readonly string[],
  run: (target: T, args: Doc, options: Doc, context: OperationContext) => Promise<unknown>,
  extra: Partial<OperationSpec<T>> = {},
): OperationSpec<T> {
  return {
    required,
    optional,
    run: (target, args, context) => run(target, args, options(args, required), context),
    ...extra,
  };
}

// Options of the CRUD specification's operations, as the driver names them.
const WRITE = ["session", "comment", "rawData", "writeConcern", "timeoutMS"];
const READ = ["session", "comment", "rawData", "readConcern", "readPreference", "timeoutMS", "maxTimeMS"];
const FIND = [
  ...READ,
  "allowDiskUse",
  "allowPartialResults",
  "batchSize",
  "collation",
  "hint",
  "let",
  "limit",
  "max",
  "min",
  "noCursorTimeout",
  "projection",
  "returnKey",
  "showRecordId",
  "skip",
  "sort",
];
const UPDATE = [...WRITE, "arrayFilters", "bypassDocumentValidation", "collation", "hint", "let", "upsert", "sort"];
const DELETE = [...WRITE, "collation", "hint", "let"];
const FIND_AND_MODIFY = [...WRITE, "collation", "hint", "let", "maxTimeMS", "projection", "sort"];
const AGGREGATE = [
  ...READ,
  "writeConcern",
  "allowDiskUse",
  "batchSize",
  "bypassDocumentValidation",
  "collation",
  "hint",
  "let",
  "maxAwaitTimeMS",
];

/** The driver's bulk write models, as the format nests them ({insertOne: {document}}), with their known fields. */
const BULK_MODELS: Record<string, readonly string[]> = {
  insertOne: ["document"],
  updateOne: ["filter", "update", "upsert", "arrayFilters", "collation", "hint", "sort"],
  updateMany: ["filter", "update", "upsert", "arrayFilters", "collation", "hint"],
  replaceOne: ["filter", "replacement", "upsert", "collation", "hint", "sort"],
  deleteOne: ["filter", "collation", "hint"],
  deleteMany: ["filter", "collation", "hint"],
};

function bulkModel(model: unknown, withNamespace: boolean): [string, Doc] {
  const keys = isPlainDocument(model) ? Object.keys(model) : [];
  const fields = BULK_MODELS[keys[0]];
  if (keys.length !== 1 || !fields)
    throw new TestSkipped(`the write model ${keys.join(", ")} is not supported by this runner`);
  const body = (model as Doc)[keys[0]] as Doc;
  const unknown = Object.keys(body).filter((key) => !fields.includes(key) && !(withNamespace && key === "namespace"));
  if (unknown.length > 0) {
    throw new TestSkipped(`the ${keys[0]} field(s) ${unknown.join(", ")} are not supported by this runner`);
  }
  return [keys[0], body];
}

function returnDocument(options: Doc): Doc {
  if (options.returnDocument === undefined) return options;
  const value = String(options.returnDocument).toLowerCase();
  if (value !== "before" && value !== "after") {
    throw new TestSkipped(`the test file is malformed: returnDocument ${String(options.returnDocument)}`);
  }
  return { ...options, returnDocument: value };
}

const COLLECTION: Table<Collection> = {
  aggregate: spec(["pipeline"], AGGREGATE, (c, a, o) => c.aggregate(a.pipeline as Doc[], o).toArray(), {
    shape: "root-elements",
  }),
  bulkWrite: spec(["requests"], [...WRITE, "ordered", "bypassDocumentValidation", "let"], async (c, a, o) => {
    const requests = (a.requests as unknown[]).map((model) => {
      const [name, body] = bulkModel(model, false);
      return { [name]: body } as unknown as AnyBulkWriteOperation;
    });
    return bulkWriteResultDocument(await c.bulkWrite(requests, o));
  }),
  countDocuments: spec(["filter"], [...READ, "collation", "hint", "limit", "skip"], (c, a, o) =>
    c.countDocuments(a.filter as Doc, o),
  ),
  count: spec([], [...READ, "filter", "collation", "hint", "limit", "skip"], (c, a, o) => {
    const { filter, ...rest } = o;
    return c.count((filter ?? {}) as Doc, rest);
  }),
  estimatedDocumentCount: spec([], READ, (c, _a, o) => c.estimatedDocumentCount(o)),
  distinct: spec(["fieldName", "filter"], [...READ, "collation", "hint"], (c, a, o) =>
    c.distinct(String(a.fieldName), a.filter as Doc, o),
  ),
  find: spec(["filter"], FIND, (c, a, o) => c.find(a.filter as Doc, o).toArray(), { shape: "root-elements" }),
  findOne: spec(["filter"], FIND, (c, a, o) => c.findOne(a.filter as Doc, o)),
  createFindCursor: spec(
    ["filter"],
    FIND,
    async (c, a, o) => {
      const cursor = c.find(a.filter as Doc, o);
      // Runs the find command now (the format asks it); the documents it brings stay for the first iteration.
      await cursor.hasNext();
      return cursor;
    },
    { cursor: true },
  ),
  findOneAndDelete: spec(["filter"], FIND_AND_MODIFY, (c, a, o) => c.findOneAndDelete(a.filter as Doc, o)),
  findOneAndReplace: spec(
    ["filter", "replacement"],
    [...FIND_AND_MODIFY, "bypassDocumentValidation", "returnDocument", "upsert"],
    (c, a, o) => c.findOneAndReplace(a.filter as Doc, a.replacement as Doc, returnDocument(o)),
  ),
  findOneAndUpdate: spec(
    ["filter", "update"],
    [...FIND_AND_MODIFY, "arrayFilters", "bypassDocumentValidation", "returnDocument", "upsert"],
    (c, a, o) => c.findOneAndUpdate(a.filter as Doc, a.update as Doc, returnDocument(o)),
  ),
  insertMany: spec(["documents"], [...WRITE, "ordered", "bypassDocumentValidation"], (c, a, o) =>
    c.insertMany(a.documents as Doc[], o),
  ),
  insertOne: spec(["document"], [...WRITE, "bypassDocumentValidation"], (c, a, o) => c.insertOne(a.document as Doc, o)),
  replaceOne: spec(
    ["filter", "replacement"],
    UPDATE.filter((name) => name !== "arrayFilters"),
    (c, a, o) => c.replaceOne(a.filter as Doc, a.replacement as Doc, o),
  ),
  updateOne: spec(["filter", "update"], UPDATE, (c, a, o) => c.updateOne(a.filter as Doc, a.update as Doc | Doc[], o)),
  updateMany: spec(
    ["filter", "update"],
    UPDATE.filter((name) => name !== "sort"),
    (c, a, o) => c.updateMany(a.filter as Doc, a.update as Doc | Doc[], o),
  ),
  deleteOne: spec(["filter"], DELETE, (c, a, o) => c.deleteOne(a.filter as Doc, o)),
  deleteMany: spec(["filter"], DELETE, (c, a, o) => c.deleteMany(a.filter as Doc, o)),
  createIndex: spec(
    ["keys"],
    ["session", "name", "unique", "sparse", "expireAfterSeconds", "partialFilterExpression", "hidden", "commitQuorum"],
    (c, a, o) => c.createIndex(a.keys as IndexSpecification, o),
  ),
  dropIndex: spec(["name"], ["session"], (c, a, o) => c.dropIndex(String(a.name), o)),
  dropIndexes: spec([], ["session"], (c, _a, o) => c.dropIndexes(o)),
  listIndexes: spec([], ["session", "batchSize"], (c, _a, o) => c.listIndexes(o).toArray(), { shape: "root-elements" }),
  drop: spec([], ["session"], (c, _a, o) => c.drop(o)),
};

const DATABASE: Table<Db> = {
  aggregate: spec(["pipeline"], AGGREGATE, (d, a, o) => d.aggregate(a.pipeline as Doc[], o).toArray(), {
    shape: "root-elements",
  }),
  runCommand: spec(["command", "commandName"], ["session", "readPreference"], (d, a, o) =>
    d.command(a.command as Doc, o),
  ),
  runCursorCommand: spec(
    ["command", "commandName"],
    ["session", "readPreference", "batchSize", "comment", "maxTimeMS"],
    (d, a, o) => commandCursor(d, a, o).toArray(),
    { shape: "root-elements" },
  ),
  createCommandCursor: spec(
    ["command", "commandName"],
    ["session", "readPreference", "batchSize", "comment", "maxTimeMS"],
    async (d, a, o) => {
      const cursor = commandCursor(d, a, o);
      await cursor.hasNext();
      return cursor;
    },
    { cursor: true },
  ),
  createCollection: spec(
    ["collection"],
    [
      "session",
      "viewOn",
      "pipeline",
      "capped",
      "size",
      "max",
      "validator",
      "validationLevel",
      "validationAction",
      "timeseries",
      "expireAfterSeconds",
      "clusteredIndex",
      "changeStreamPreAndPostImages",
      "collation",
    ],
    async (d, a, o) => {
      await d.createCollection(String(a.collection), o);
      return undefined;
    },
  ),
  dropCollection: spec(["collection"], ["session"], (d, a, o) => d.dropCollection(String(a.collection), o)),
  listCollections: spec([], ["filter", "session", "batchSize", "nameOnly", "authorizedCollections"], (d, _a, o) => {
    const { filter, ...rest } = o;
    return d.listCollections((filter ?? {}) as Doc, rest).toArray();
  }),
  listCollectionNames: spec([], ["filter", "session"], async (d, _a, o) => {
    const { filter, ...rest } = o;
    const list = await d.listCollections((filter ?? {}) as Doc, { ...rest, nameOnly: true }).toArray();
    return list.map((info) => info.name);
  }),
  // Not a driver method: the test runners of the drivers send collMod.
  modifyCollection: spec(
    ["collection"],
    ["session", "validator", "validationLevel", "validationAction", "index", "changeStreamPreAndPostImages"],
    (d, a, o) => {
      const { session, ...changes } = o;
      return d.command({ collMod: a.collection, ...changes }, { session: session as ClientSession | undefined });
    },
  ),
};

function commandCursor(db: Db, args: Doc, options: Doc) {
  const cursor = db.runCursorCommand(args.command as Doc, {
    session: options.session as ClientSession | undefined,
    readPreference: options.readPreference as ReadPreference | undefined,
  });
  if (options.batchSize !== undefined) cursor.setBatchSize(Number(options.batchSize));
  if (options.maxTimeMS !== undefined) cursor.setMaxTimeMS(Number(options.maxTimeMS));
  if (options.comment !== undefined) cursor.setComment(options.comment);
  return cursor;
}

const CLIENT: Table<{ client: MongoClient; closed: boolean }> = {
  clientBulkWrite: spec(
    ["models"],
    ["session", "ordered", "bypassDocumentValidation", "comment", "let", "verboseResults", "writeConcern", "rawData"],
    async (c, a, o) => {
      const models = (a.models as unknown[]).map((model) => {
        const [name, body] = bulkModel(model, true);
        return { name, ...body } as unknown as AnyClientBulkWriteModel<Document>;
      });
      return clientBulkWriteResultDocument(await c.client.bulkWrite(models, o));
    },
  ),
  listDatabases: spec([], ["session", "filter", "nameOnly", "authorizedDatabases"], async (c, _a, o) => {
    const { databases } = await c.client.db("admin").admin().listDatabases(o);
    return databases;
  }),
  listDatabaseNames: spec([], ["session", "filter"], async (c, _a, o) => {
    const { databases } = await c.client
      .db("admin")
      .admin()
      .listDatabases({ ...o, nameOnly: true });
    return databases.map((info) => info.name);
  }),
  close: spec([], [], async (c) => {
    c.closed = true;
    await c.client.close();
    return undefined;
  }),
};

/** Transaction options: their concerns are in the driver's form already (driverArguments). */
function transactionOptions(options: Doc): TransactionOptions {
  return options as TransactionOptions;
}

const TRANSACTION_OPTIONS = ["readConcern", "writeConcern", "readPreference", "maxCommitTimeMS"];

const SESSION: Table<ClientSession> = {
  startTransaction: spec([], TRANSACTION_OPTIONS, async (s, _a, o, context) => {
    context.usedTransaction();
    s.startTransaction(transactionOptions(o));
    return undefined;
  }),
  commitTransaction: spec([], [], async (s) => {
    await s.commitTransaction();
    return undefined;
  }),
  abortTransaction: spec([], [], async (s) => {
    await s.abortTransaction();
    return undefined;
  }),
  withTransaction: spec(["callback"], TRANSACTION_OPTIONS, async (s, a, o, context) => {
    context.usedTransaction();
    await s.withTransaction(() => context.runCallback(a.callback as Operation[]), transactionOptions(o));
    return undefined;
  }),
  endSession: spec([], [], async (s) => {
    await s.endSession();
    return undefined;
  }),
};

const CURSOR: Table<Cursor> = {
  iterateUntilDocumentOrError: spec([], [], (c) => c.next()),
  iterateOnce: spec([], [], (c) => c.tryNext()),
  close: spec([], [], async (c) => {
    // The format asks to suppress every error of closing a cursor.
    await c.close().catch(() => undefined);
    return undefined;
  }),
};

/** The operations of each entity kind. Saved values have none. */
export const ENTITY_OPERATIONS: Partial<Record<EntityKind, Table<never>>> = {
  collection: COLLECTION as Table<never>,
  database: DATABASE as Table<never>,
  client: CLIENT as Table<never>,
  session: SESSION as Table<never>,
  cursor: CURSOR as Table<never>,
};

/** The operation's description, or why this runner cannot run it (its name or one of its arguments). */
export function entityOperation(kind: EntityKind, operation: Operation): OperationSpec<never> | string {
  const table = ENTITY_OPERATIONS[kind] ?? {};
  const found = Object.prototype.hasOwnProperty.call(table, operation.name) ? table[operation.name] : undefined;
  if (!found) return `the ${kind} operation ${operation.name} is not supported by this runner`;
  const args = Object.keys(operation.arguments ?? {});
  const unknown = args.filter((name) => !found.required.includes(name) && !found.optional.includes(name));
  if (unknown.length > 0) {
    return `the argument(s) ${unknown.join(", ")} of ${operation.name} are not supported by this runner`;
  }
  const missing = found.required.filter((name) => !args.includes(name));
  if (missing.length > 0) return `the test file is malformed: ${operation.name} lacks ${missing.join(", ")}`;
  return found;
}

/** The arguments as the driver takes them: the session entity for `session`, the driver's concerns. */
export function driverArguments(args: Doc, entities: EntityMap): Doc {
  const out: Doc = { ...args };
  if (typeof out.session === "string") out.session = entities.get(out.session, "session").session;
  for (const name of CONCERNS) {
    if (out[name] === undefined) continue;
    if (name === "readConcern") out[name] = toReadConcern(out[name]);
    if (name === "readPreference") out[name] = toReadPreference(out[name]);
    if (name === "writeConcern") out[name] = toWriteConcern(out[name]);
  }
  return out;
}
