// Chooses and starts the embedded MongoDB-compatible server used when MONGODB_URI is unset:
//   mongod   — a real MongoDB binary through mongodb-memory-server, as a single-node replica set;
//   ferretdb — FerretDB 1.24 on SQLite, built from tools/ferretdb;
//   auto     — a mongod already on this machine, else FerretDB when Go is installed, else mongod downloaded.
import fs from "node:fs";
import path from "node:path";
import { DryMongoBinary, MongoMemoryReplSet } from "mongodb-memory-server-core";
import { exitOf, type EmbeddedDatabase, type Progress } from "./embedded-server";
import { findOnPath, hasGo, startFerretDb, type FerretDbOptions } from "./ferretdb";
import { loadToolConfig, type EmbeddedDbMode } from "./tool-config";

export type { EmbeddedDatabase, Progress } from "./embedded-server";

/** A mongod that needs no download: MONGOMS_SYSTEM_BINARY, mongod on PATH, or mongodb-memory-server's cache. */
async function findLocalMongod(): Promise<string | undefined> {
  const { mongodSystemBinary, mongodVersion } = loadToolConfig();
  if (mongodSystemBinary) return mongodSystemBinary;
  const onPath = findOnPath("mongod");
  if (onPath) return onPath;
  try {
    return await DryMongoBinary.locateBinary({ version: mongodVersion ?? "" } as never);
  } catch {
    return undefined;
  }
}

async function chooseEmbeddedKind(
  mode: EmbeddedDbMode,
): Promise<{ kind: "mongod" | "ferretdb"; reason: string; mongodBinary?: string }> {
  if (mode === "ferretdb") return { kind: "ferretdb", reason: "EMBEDDED_DB=ferretdb" };
  const local = await findLocalMongod();
  if (mode === "mongod") return { kind: "mongod", reason: "EMBEDDED_DB=mongod", mongodBinary: local };
  if (local) return { kind: "mongod", reason: `found mongod at ${local}`, mongodBinary: local };
  if (hasGo()) return { kind: "ferretdb", reason: "no local mongod; Go is installed" };
  return { kind: "mongod", reason: "no local mongod and no Go; mongodb-memory-server will download mongod" };
}

export async function startEmbeddedDatabase(options: {
  mode: EmbeddedDbMode;
  dataDir: string;
  progress: Progress;
  /** Run-time switches when FerretDB is chosen (its files go to dataDir/ferretdb). */
  ferretdb?: FerretDbOptions;
}): Promise<EmbeddedDatabase> {
  const choice = await chooseEmbeddedKind(options.mode);
  options.progress(`Embedded database: ${choice.kind} (${choice.reason})`);
  if (choice.kind === "ferretdb") {
    return startFerretDb(path.join(options.dataDir, "ferretdb"), options.progress, options.ferretdb);
  }
  return startMongod(path.join(options.dataDir, "mongod"), choice.mongodBinary, options.progress);
}

/**
 * A mongod as a single-node replica set (every change of a project is a transaction, which MongoDB runs only on a
 * replica set): mongodb-memory-server starts it with --replSet and initiates the set; its URI names the set.
 */
async function startMongod(dbPath: string, binary: string | undefined, progress: Progress): Promise<EmbeddedDatabase> {
  fs.mkdirSync(dbPath, { recursive: true });
  if (!binary) progress("Downloading mongod through mongodb-memory-server (first run only)");
  const set = await MongoMemoryReplSet.create({
    replSet: { count: 1, name: "rs0", ip: "127.0.0.1", storageEngine: "wiredTiger" },
    instanceOpts: [{ dbPath }],
    binary: binary ? { systemBinary: binary } : undefined,
  });
  const uri = set.getUri();
  const running = (): EmbeddedDatabase => {
    const child = set.servers[0]?.instanceInfo?.instance.mongodProcess;
    return {
      uri,
      kind: "mongod",
      description: `embedded mongod, a replica set of one (data in ${dbPath})`,
      pid: child?.pid,
      exited: child ? exitOf(child) : new Promise(() => {}),
      // mongodb-memory-server starts its members again on their ports (the set's configuration is in dbPath).
      restart: async () => {
        await set.stop({ doCleanup: false }).catch(() => undefined);
        await set.start();
        return running();
      },
      stop: async () => {
        await set.stop({ doCleanup: false });
      },
    };
  };
  return running();
}
