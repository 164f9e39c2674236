// The database handle the app runs on: one Mongoose connection, its models, and the id allocator. Built per
// connection (no global mongoose state), so tests can open one per file on its own database name. It knows no
// component: the models and the migrations come from the composition root (src/persistence.ts) as a DatabaseSchema.
import mongoose, { type Connection, type Model, type mongo } from "mongoose";
import { createCounterModel, type CounterModel } from "./counter.model";
import { IdAllocator } from "./id-allocator";
import { transactionsOf, type Transactions } from "./transactions";
import { WriteTurns } from "./write-turns";
import type { Progress } from "./embedded-server";
import { commandTimingPlugin, reportCommandTiming } from "./command-timing";
import { CoalescedReads } from "./coalesced-reads";
import { Availability, availabilityPlugin, followAvailability, unavailable } from "./availability";
import { unadvertisedAddressWarning } from "./advertised-hosts";

/** The database the service uses when MONGODB_URI names none (always, on the embedded database). */
export const DEFAULT_DB_NAME = "project_service";

/** The longest one database operation may take when the caller names no limit (DB_TIMEOUT_MS's default). */
const DEFAULT_DB_TIMEOUT_MS = 5000;

/**
 * Reads by id of one process on their way to FerretDB at once; the next ones join into one command
 * (db/coalesced-reads.ts). The project's FerretDB runs one Go processor, so a third command on its way would only wait
 * inside it, while joining it to the next command costs FerretDB a fraction of a command of its own
 * (docs/performance.md). It follows the server, not who started it: the service's embedded FerretDB, or the same
 * program named by MONGODB_URI (another instance of the service on it, or a benchmark's). MongoDB keeps the pool
 * size: its reads run side by side.
 */
export const FERRETDB_READS_AT_ONCE = 2;

/**
 * Writes of one process on their way to FerretDB at once (db/write-turns.ts): it writes one transaction at a time per
 * database, and a write waiting there holds a pooled connection. It follows the server, like the reads: another
 * instance of the service on the same FerretDB by MONGODB_URI takes turns too, so no instance's connections all wait
 * for another's transaction. MongoDB runs writes side by side: no turns there.
 */
export const FERRETDB_WRITES_AT_ONCE = 1;

/** The collections of an app: its models on one connection, and what runs when a database opens. */
export interface DatabaseSchema<M extends object> {
  models(connection: Connection): M;
  /** Models of collections that are only read (left by earlier versions): not created where they do not exist. */
  readOnly?: readonly (keyof M)[];
  /** Runs once the indexes exist, before the database is handed out (one-time migrations; insert-only, idempotent). */
  prepare?(db: Database<M>, progress: Progress): Promise<void>;
}

export interface Database<M = object> {
  connection: Connection;
  models: M & { Counter: CounterModel };
  ids: IdAllocator;
  /** Runs work in one multi-document transaction, and single writes in their turn with them (transactions.ts). */
  transactions: Transactions;
  /** The turns writes take (write-turns.ts): what GET /metrics counts the shed writes of. */
  writes: WriteTurns;
  /** Reads by id of this process, joined into one command while others are on their way (coalesced-reads.ts). */
  reads: CoalescedReads;
  /** Whether the server is known to be down (its supervisor restarts it): meanwhile every operation fails at once. */
  availability: Availability;
  /**
   * Answers within the timeout while the server is reachable; false at once while it is known to be down, unless
   * `whileDown` (the supervisor's own check that it is back).
   */
  ping(timeoutMs?: number, options?: { whileDown?: boolean }): Promise<boolean>;
  close(): Promise<void>;
}

/** Database name: the one in the URI path if any, else `fallback`. */
function dbNameFor(uri: string, fallback = DEFAULT_DB_NAME): string {
  const match = /^mongodb(?:\+srv)?:\/\/[^/]+\/([^?]*)/.exec(uri);
  return match && match[1] ? decodeURIComponent(match[1]) : fallback;
}

export interface OpenDatabaseOptions {
  dbName?: string;
  /**
   * Emit the driver's command monitoring events (commandStarted …) on connection.getClient(); off by default. The
   * service does not need them (GET /metrics times operations by command-timing.ts): the driver decodes every reply
   * a second time to build them. Tests that count commands turn them on.
   */
  monitorCommands?: boolean;
  /**
   * The longest each step of a database operation may wait (finding the server, a pooled connection, connecting,
   * the server's reply); default 5000 (DB_TIMEOUT_MS).
   */
  timeoutMs?: number;
  /**
   * The longest the server's reply to one operation may take, when it must differ from timeoutMs: the bulk tools
   * (db:backup, db:restore) allow minutes for an index build over a whole collection, and keep timeoutMs for the rest.
   */
  replyTimeoutMs?: number;
  /** The driver's connection pool size; unset keeps the driver's default (or the URI's maxPoolSize). */
  maxPoolSize?: number;
  /**
   * How many writes (transactions and single writes) of this process go to the database at once (db/write-turns.ts);
   * unset: FERRETDB_WRITES_AT_ONCE on FerretDB, no limit on MongoDB.
   */
  writesAtOnce?: number;
  /** How many writes may wait for their turn at once before the next is shed (db/write-turns.ts). */
  writesWaitingAtMost?: number;
  /**
   * How many reads by id of this process go to the database at once before the next ones join into one command
   * (db/coalesced-reads.ts); unset: FERRETDB_READS_AT_ONCE on FerretDB, else the driver's pool size (maxPoolSize, its
   * default 100, or the URI's).
   */
  readsAtOnce?: number;
  /**
   * The driver's runtime adapters (its `os` module). The driver loads `os` by a dynamic import, which Jest's module
   * sandbox refuses: the driver then sends no client metadata in its handshake, so no application name. The tests
   * that need the name (a fail point for one client) pass Node's `os` here.
   */
  runtimeAdapters?: mongo.MongoClientOptions["runtimeAdapters"];
  /** Told how a long step of opening goes (the one-time copy of project_revisions into the change log). */
  progress?: Progress;
  /**
   * Told, in one line, what will go wrong with this server later: a replica set of one reached at an address it does
   * not advertise (advertised-hosts.ts). Unset: not checked.
   */
  warn?: (message: string) => void;
}

// The one piece of global Mongoose state: every model, on every connection, reports its operations' round-trip
// times (command-timing.ts; what GET /metrics shows), each to the listeners of its own connection's client.
mongoose.plugin(commandTimingPlugin, { deduplicate: true });
// And every operation fails at once while its database is known to be down (availability.ts).
mongoose.plugin(availabilityPlugin, { deduplicate: true });

export async function connectDatabase<M extends object>(
  uri: string,
  schema: DatabaseSchema<M>,
  options: OpenDatabaseOptions = {},
): Promise<Database<M>> {
  const timeoutMs = options.timeoutMs ?? DEFAULT_DB_TIMEOUT_MS;
  const connection = mongoose.createConnection(uri, {
    dbName: options.dbName ?? dbNameFor(uri),
    autoIndex: false,
    // The driver's own limits, so a stalled or vanished server fails a request instead of holding it. (The MongoDB
    // driver 7.8 under Mongoose 9 accepts the client-side operation timeout `timeoutMS` but ignores it: "timeoutMS
    // has no effect".) Each step of an operation is bounded by the same budget: finding the server, waiting for a
    // pooled connection, opening one, and waiting for the server's reply on the socket (a timed-out socket is closed
    // and replaced).
    serverSelectionTimeoutMS: timeoutMs,
    waitQueueTimeoutMS: timeoutMs,
    connectTimeoutMS: timeoutMs,
    socketTimeoutMS: options.replyTimeoutMs ?? timeoutMs,
    // A read that timed out would be tried once more, doubling the wait past DB_TIMEOUT_MS; the request fails
    // instead and the client may retry it.
    retryReads: false,
    // Mongoose would otherwise queue operations while disconnected for bufferTimeoutMS (10 s) before the driver
    // ever sees them; without buffering they go to the driver, whose server selection is bounded above.
    bufferCommands: false,
    monitorCommands: options.monitorCommands ?? false,
    ...(options.maxPoolSize ? { maxPoolSize: options.maxPoolSize } : {}),
    ...(options.runtimeAdapters ? { runtimeAdapters: options.runtimeAdapters } : {}),
  });
  await connection.asPromise();
  const availability = new Availability();
  followAvailability(connection.getClient(), availability);
  const { hello, info: server } = await refuseUnfitServer(connection);
  const warning = options.warn && unadvertisedAddressWarning(hello, connection.getClient().options);
  if (warning) options.warn!(warning);
  const models = { ...schema.models(connection), Counter: createCounterModel(connection) };
  // Unique indexes are what make ids and names unique: create them now, and fail start-up if one cannot be built.
  const readOnly = new Set<unknown>(schema.readOnly ?? []);
  await Promise.all(
    Object.entries(models)
      .filter(([name]) => !readOnly.has(name))
      .map(async ([, model]) => {
        const m = model as Pick<Model<unknown>, "createCollection" | "createIndexes">;
        await m.createCollection().catch(ignoreNamespaceExists);
        await m.createIndexes();
      }),
  );
  const ids = new IdAllocator(models.Counter);
  const writes = new WriteTurns(
    options.writesAtOnce ?? (isFerretDb(server) ? FERRETDB_WRITES_AT_ONCE : Infinity),
    options.writesWaitingAtMost,
  );
  // While the database is known to be down, writes waiting for their turn fail at once, as new operations do.
  availability.onDown((reason) => writes.failWaiting(unavailable(reason)));
  const db: Database<M> = {
    connection,
    models,
    ids,
    availability,
    transactions: transactionsOf(connection, timeoutMs, writes),
    writes,
    reads: new CoalescedReads({
      maxInFlight:
        options.readsAtOnce ??
        (isFerretDb(server) ? FERRETDB_READS_AT_ONCE : connection.getClient().options.maxPoolSize),
      waitMs: timeoutMs,
    }),
    async ping(limitMs = 1000, { whileDown = false } = {}) {
      if (availability.down && !whileDown) return false;
      // Not gated on Mongoose's readyState: after an outage it says "disconnected" until the driver's next
      // heartbeat (up to 10 s), while a ping (its server selection) finds the server again at once.
      const db = connection.db;
      if (!db) return false;
      // The abort signal ends the ping at the limit, whichever step it waits in (the driver closes that socket).
      const started = performance.now();
      try {
        await db.command({ ping: 1 }, { signal: AbortSignal.timeout(limitMs) });
        reportCommandTiming(connection.getClient(), "ping", "ok", started);
        return true;
      } catch {
        reportCommandTiming(connection.getClient(), "ping", "error", started);
        return false;
      }
    },
    close: () => connection.close(),
  };
  await schema.prepare?.(db, options.progress ?? (() => {}));
  return db;
}

/**
 * What the service needs of its server, checked at start (one line naming everything lacking):
 * - a replica set or a sharded cluster: every change of a project is a multi-document transaction, which MongoDB
 *   runs only there (a standalone server is refused, with how to run a single-node replica set);
 * - on FerretDB 1.x (buildInfo has ferretdbVersion), also the project's patch: its replica set of one, MongoDB's
 *   single-document guarantees (`embeddedAtomicWrites`) and the $lookup stage (`embeddedLookup`). A stock FerretDB
 *   lacks all three;
 * - on MongoDB, version 5.0 or later (unfitServerMessage).
 */
async function refuseUnfitServer(
  connection: Connection,
): Promise<{ hello: Record<string, unknown>; info: Record<string, unknown> }> {
  const admin = connection.db!.admin();
  const [hello, info] = await Promise.all([admin.command({ hello: 1 }), admin.command({ buildInfo: 1 })]);
  const message = unfitServerMessage(hello, info);
  if (message) {
    await connection.close().catch(() => undefined);
    throw new Error(message);
  }
  return { hello, info };
}

/** Whether the server's buildInfo is FerretDB's (a fit one is the project's build: unfitServerMessage). */
function isFerretDb(info: Record<string, unknown>): boolean {
  return "ferretdbVersion" in info;
}

/**
 * The one line refuseUnfitServer fails with, from the server's `hello` and `buildInfo` answers; undefined when the
 * server is fit. A MongoDB before 5.0 is refused too: the joins of a project with its teacher use $lookup's pipeline
 * beside localField and foreignField (5.0's concise form), which 4.4 refuses.
 */
export function unfitServerMessage(hello: Record<string, unknown>, info: Record<string, unknown>): string | undefined {
  const replicated = typeof hello.setName === "string" || hello.msg === "isdbgrid";
  let message: string | undefined;
  if (isFerretDb(info)) {
    const lacks = [
      ...(replicated ? [] : ["a replica set (multi-document transactions)"]),
      ...(info.embeddedAtomicWrites === true ? [] : ["atomic conditional updates, $inc and findAndModify"]),
      ...(info.embeddedLookup === true ? [] : ["the aggregation stage $lookup"]),
    ];
    if (lacks.length > 0) {
      message = `the database is FerretDB ${String(info.ferretdbVersion)} without ${lacks.join(", nor ")}, which this service needs: use MongoDB (a replica set) through MONGODB_URI, or leave MONGODB_URI unset to run the embedded FerretDB (patched to give them)`;
    }
  } else if (!replicated) {
    message = `the database is a standalone MongoDB server (version ${String(info.version)}), and this service needs a replica set or a sharded cluster (every change is a transaction): run it as a single-node replica set (mongod --replSet rs0, then once rs.initiate(); docs/operations.md shows how) and name it in MONGODB_URI`;
  } else if (Array.isArray(info.versionArray) && Number(info.versionArray[0]) < 5) {
    message = `the database is MongoDB ${String(info.version)}, and this service needs MongoDB 5.0 or later (its joins use $lookup with a pipeline beside localField and foreignField): upgrade the server, or leave MONGODB_URI unset to run the embedded FerretDB`;
  }
  return message;
}

function ignoreNamespaceExists(err: { code?: number }): void {
  if (err?.code !== 48) throw err;
}
