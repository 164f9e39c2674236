// The database the configuration names: MONGODB_URI when set, else the embedded one (EMBEDDED_DB, DATA_DIR).
// Shared by the service (src/main.ts) and the scripts, so `npm run seed` writes where `npm start` reads.
import type { Config } from "../config";
import { connectDatabase, type Database, type DatabaseSchema, type OpenDatabaseOptions } from "./database";
import type { EmbeddedDatabase, Progress } from "./embedded-server";
import { EmbeddedSupervisor } from "./embedded-supervisor";

/**
 * The driver's connection pool size on the embedded FerretDB, chosen by measurement (README, "The database"): SQLite
 * runs one write at a time, and with the driver's default of 100 connections concurrent requests pile up inside
 * FerretDB (createProject at 16 concurrent clients: p99 over 1 s); 4 keeps reads parallel and writes queued in the
 * driver instead. MongoDB keeps the driver's default, and a maxPoolSize in MONGODB_URI always wins.
 */
export const EMBEDDED_FERRETDB_POOL_SIZE = 4;

/** How often a restarted embedded database is pinged until the driver finds it, and each ping's limit. */
const ANSWERING_PING_EVERY_MS = 100;
const ANSWERING_PING_LIMIT_MS = 1000;

export interface ConfiguredDatabase<M = object> {
  db: Database<M>;
  /** For the start-up line, e.g. "embedded FerretDB 1.24 (SQLite in …)" or "MongoDB at MONGODB_URI". */
  description: string;
  /** The embedded server's URI (an ephemeral port on 127.0.0.1), for tools that fix data by hand; none with MONGODB_URI. */
  embeddedUri?: string;
  /**
   * The embedded database's supervisor (embedded-supervisor.ts): it starts the server again when its process exits
   * (meanwhile db.availability says it is down) and gives up on a crash loop. None with MONGODB_URI.
   */
  supervisor?: EmbeddedSupervisor;
  /** Closes the connection, then stops the embedded server if there is one. */
  close(): Promise<void>;
}

export async function openConfiguredDatabase<M extends object>(
  config: Pick<Config, "mongodbUri" | "embeddedDb" | "dataDir" | "dbTimeoutMs">,
  schema: DatabaseSchema<M>,
  progress: Progress,
  options: Pick<OpenDatabaseOptions, "replyTimeoutMs" | "warn"> & { supervise?: boolean } = {},
): Promise<ConfiguredDatabase<M>> {
  const { supervise = false, warn, ...open } = options;
  let embedded: EmbeddedDatabase | undefined;
  try {
    if (!config.mongodbUri) {
      // Loaded only when needed: mongodb-memory-server and the FerretDB builder cost ~125 ms of CPU at every start
      // of a service that runs on MONGODB_URI.
      const { startEmbeddedDatabase } = await import("./embedded");
      embedded = await startEmbeddedDatabase({ mode: config.embeddedDb, dataDir: config.dataDir, progress });
    }
    // GET /metrics times database operations without the driver's command monitoring (db/command-timing.ts).
    const db = await connectDatabase(config.mongodbUri ?? embedded!.uri, schema, {
      timeoutMs: config.dbTimeoutMs,
      progress,
      ...open,
      // What will go wrong later is told only of a server the operator names.
      ...(config.mongodbUri ? { warn } : {}),
      ...(embedded?.kind === "ferretdb"
        ? // Writes take their turns on any FerretDB (database.ts, FERRETDB_WRITES_AT_ONCE), whoever started it.
          { maxPoolSize: EMBEDDED_FERRETDB_POOL_SIZE }
        : {}),
    });
    const supervisor = embedded && supervise ? superviseEmbedded(embedded, db) : undefined;
    return {
      db,
      description: embedded ? embedded.description : "MongoDB at MONGODB_URI",
      embeddedUri: embedded?.uri,
      supervisor,
      async close() {
        await db.close();
        await (supervisor ?? embedded)?.stop();
      },
    };
  } catch (err) {
    await embedded?.stop().catch(() => undefined);
    throw err;
  }
}

/**
 * Supervises the embedded server of db: while it is down every operation fails at once (db.availability), and it
 * counts as back once the driver has found it again (a ping through db's own client), not when its process prints
 * its address: the driver would otherwise wait for its next heartbeat (up to 10 s) to notice.
 */
function superviseEmbedded(embedded: EmbeddedDatabase, db: Database<object>): EmbeddedSupervisor {
  const supervisor = new EmbeddedSupervisor(embedded, {
    async answering(signal) {
      while (!(await db.ping(ANSWERING_PING_LIMIT_MS, { whileDown: true }))) {
        signal.throwIfAborted();
        await new Promise((resolve) => setTimeout(resolve, ANSWERING_PING_EVERY_MS));
      }
      signal.throwIfAborted();
    },
  });
  supervisor.on("down", (line) => db.availability.markDown(line));
  supervisor.on("gaveUp", (line) => db.availability.markDown(line));
  supervisor.on("back", () => db.availability.markUp());
  return supervisor;
}
