// npm run db:backup and db:restore (scripts/db-backup.ts, db-restore.ts): which database, where its data comes from,
// and the steps around reading and writing it. docs/database.md ("Backups and restore") is the user's side.
//
// The embedded FerretDB is backed up from a snapshot: SQLite's VACUUM INTO copies the database's file in one read
// transaction while the service keeps writing (tools/ferretdb/main.go, `snapshot`), so it holds every change that
// committed before it (a change commits with its log entry, in one transaction) and nothing of any other; a second
// FerretDB serves the copy, and the copy is read from there. MONGODB_URI is read as it runs (see the docs for what
// that guarantees). A restore checks every file first, refuses a target that holds data unless told to replace it,
// writes the collections and their indexes, then opens the database as the service does and brings every project up
// to its newest revision there (a backup read while writes went on can hold a change in the log that it read after
// the project).
import fs from "node:fs";
import path from "node:path";
import type { Config } from "../config";
import { openConfiguredDatabase, type ConfiguredDatabase } from "../db/configured-database";
import { DEFAULT_DB_NAME, type DatabaseSchema } from "../db/database";
import type { Progress } from "../db/embedded-server";
import { snapshotFerretDb, startFerretDb } from "../db/ferretdb";
import { catchUpProjects, openDatabase } from "../persistence";
import { BackupRefused, BackupStopped, MANIFEST, verifyBackup, type Manifest } from "./backup-format";
import { dumpDatabase } from "./backup";
import { refuseUnlessEmpty, restoreCollections } from "./restore";

/**
 * Runs the work of db:backup or db:restore to its exit code: 0 when done; after an error, its one line and the code
 * db:check would give (1 for a refusal the user can act on, or a stop they asked for; 2 when it could not run).
 */
export async function runToExit(
  command: string,
  note: (line: string) => void,
  work: () => Promise<unknown>,
): Promise<void> {
  try {
    await work();
    process.exitCode = 0;
  } catch (err) {
    const message = (err as Error).message;
    if (err instanceof BackupStopped) note(`${command}: ${message}`);
    else if (err instanceof BackupRefused) note(`${command} refused: ${message}`);
    else note(`${command} failed: ${message}`);
    process.exitCode = err instanceof BackupStopped || err instanceof BackupRefused ? 1 : 2;
  }
}

type DatabaseConfig = Pick<Config, "mongodbUri" | "embeddedDb" | "dataDir" | "dbTimeoutMs">;

/** No models: the database as it is, for reading and writing whole collections (the counters' model comes along). */
const RAW: DatabaseSchema<object> = { models: () => ({}) };

/**
 * The longest one reply of the database may take during a backup or restore: reading a batch, writing one, building
 * an index over a whole collection (minutes at a million documents on the embedded FerretDB). Finding the server
 * keeps DB_TIMEOUT_MS.
 */
const REPLY_TIMEOUT_MS = 30 * 60_000;
const BULK = { replyTimeoutMs: REPLY_TIMEOUT_MS };
const PROGRESS_EVERY_MS = 5_000;

/** `<dir>.partial-<pid>`: where a backup is written before it is renamed to <dir>. */
const PARTIAL = /^(.*)\.partial-(\d+)$/;

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "EPERM";
  }
}

/** Removes what backups to `dir` that were killed left (their process is gone). */
function removeAbandoned(dir: string, progress: Progress): void {
  const parent = path.dirname(dir);
  if (!fs.existsSync(parent)) return;
  for (const entry of fs.readdirSync(parent)) {
    const match = PARTIAL.exec(entry);
    if (match && match[1] === path.basename(dir) && !isRunning(Number(match[2]))) {
      progress(`Removing ${path.join(parent, entry)}, left by a backup that did not finish`);
      fs.rmSync(path.join(parent, entry), { recursive: true, force: true });
    }
  }
}

/** Flushes a file's (or a folder's) data to the disk. */
function syncFile(file: string): void {
  const fd = fs.openSync(file, "r");
  try {
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
}

/** Flushes every file under dir, and the folders themselves, to the disk. */
function syncTree(dir: string): void {
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    const file = path.join(dir, entry.name);
    if (entry.isDirectory()) syncTree(file);
    else syncFile(file);
  }
  syncFile(dir);
}

/** The embedded FerretDB's file of the service's database, when it is there (else undefined). */
function embeddedFerretDbDir(config: DatabaseConfig): string | undefined {
  if (config.mongodbUri || config.embeddedDb === "mongod") return undefined;
  const dir = path.join(config.dataDir, "ferretdb");
  return fs.existsSync(path.join(dir, `${DEFAULT_DB_NAME}.sqlite`)) ? dir : undefined;
}

/**
 * Writes a backup of the configured database into `dir` (which must not exist): into `<dir>.partial-<pid>` first,
 * renamed to `dir` once complete, so `dir` is either a whole backup or absent. Throws BackupRefused for what the user
 * can fix (dir exists, nothing to back up); other errors mean it could not run.
 */
export async function backupConfiguredDatabase(
  config: DatabaseConfig,
  target: string,
  progress: Progress,
): Promise<Manifest> {
  const dir = path.resolve(target);
  if (fs.existsSync(dir)) throw new BackupRefused(`${dir} exists already: name a directory that does not exist yet`);
  if (!fs.existsSync(path.dirname(dir))) throw new BackupRefused(`${path.dirname(dir)} does not exist`);
  removeAbandoned(dir, progress);
  const partial = `${dir}.partial-${process.pid}`;
  const removePartial = () => fs.rmSync(partial, { recursive: true, force: true });
  // Interrupted (Ctrl-C, SIGTERM): the step under way is stopped (the snapshot's copy killed, its FerretDB stopped),
  // then the partial folder removed as after any failure. A kill -9 leaves the partial folder to the next backup.
  const abort = new AbortController();
  let stopServer: (() => Promise<void>) | undefined;
  const interrupted = (signal: NodeJS.Signals) => {
    abort.abort(signal);
    void stopServer?.().catch(() => undefined);
  };
  process.once("SIGINT", interrupted);
  process.once("SIGTERM", interrupted);
  fs.mkdirSync(partial);
  try {
    const started = Date.now();
    const ferretDbDir = embeddedFerretDbDir(config);
    const manifest = ferretDbDir
      ? await backupEmbeddedSnapshot(ferretDbDir, partial, progress, abort.signal, (stop) => (stopServer = stop))
      : await backupLive(config, partial, progress, abort.signal);
    fs.writeFileSync(path.join(partial, MANIFEST), `${JSON.stringify(manifest, null, 2)}\n`);
    // On the disk before the name says the backup is complete: a power cut after it cannot leave a named half.
    syncTree(partial);
    abort.signal.throwIfAborted();
    fs.renameSync(partial, dir);
    syncFile(path.dirname(dir));
    progress(`Backup of "${manifest.database}" written to ${dir} in ${((Date.now() - started) / 1000).toFixed(1)} s`);
    return manifest;
  } catch (err) {
    removePartial();
    if (abort.signal.aborted)
      throw new BackupStopped(`stopped by ${String(abort.signal.reason)}; nothing was written to ${dir}`);
    throw err;
  } finally {
    process.off("SIGINT", interrupted);
    process.off("SIGTERM", interrupted);
  }
}

async function backupEmbeddedSnapshot(
  ferretDbDir: string,
  partial: string,
  progress: Progress,
  signal: AbortSignal,
  onServer: (stop: () => Promise<void>) => void,
): Promise<Manifest> {
  const copyDir = path.join(partial, ".snapshot");
  fs.mkdirSync(copyDir);
  const copy = path.join(copyDir, `${DEFAULT_DB_NAME}.sqlite`);
  const mib = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MiB`;
  const source = fs.statSync(path.join(ferretDbDir, `${DEFAULT_DB_NAME}.sqlite`)).size;
  progress(`Taking a snapshot of the embedded database in ${ferretDbDir} (${mib(source)})`);
  // The copy grows as SQLite writes it: its size is the progress of a long snapshot (a million projects: 3.2 GiB).
  const ticker = setInterval(() => {
    const written = fs.statSync(copy, { throwIfNoEntry: false })?.size ?? 0;
    progress(`Snapshot: ${mib(written)} of about ${mib(source)} copied`);
  }, PROGRESS_EVERY_MS);
  const size = await snapshotFerretDb(ferretDbDir, DEFAULT_DB_NAME, copy, progress, signal).finally(() =>
    clearInterval(ticker),
  );
  signal.throwIfAborted();
  progress(`Snapshot taken (${mib(size)}); reading it`);
  const server = await startFerretDb(copyDir, progress);
  onServer(() => server.stop());
  try {
    signal.throwIfAborted();
    const db = await openDatabase(server.uri, { dbName: DEFAULT_DB_NAME, progress, ...BULK });
    try {
      return await dumpDatabase(db.connection.db!, partial, progress, signal);
    } finally {
      await db.close();
    }
  } finally {
    await server.stop();
    fs.rmSync(copyDir, { recursive: true, force: true });
  }
}

async function backupLive(
  config: DatabaseConfig,
  partial: string,
  progress: Progress,
  signal: AbortSignal,
): Promise<Manifest> {
  if (!config.mongodbUri && !fs.existsSync(config.dataDir)) {
    throw new BackupRefused(`there is no database in ${config.dataDir} to back up`);
  }
  const database: ConfiguredDatabase<object> = await openConfiguredDatabase(config, RAW, progress, BULK);
  try {
    progress(`Reading "${database.db.connection.name}" in ${database.description}`);
    return await dumpDatabase(database.db.connection.db!, partial, progress, signal);
  } finally {
    await database.close();
  }
}

/**
 * Restores the backup in `source` into the configured database. Every file is checked before anything is written;
 * a target that holds data is refused unless `replace`. Throws BackupRefused for a backup that does not verify or a
 * target that holds data; other errors mean it could not run.
 */
export async function restoreConfiguredDatabase(
  config: DatabaseConfig,
  source: string,
  options: { replace: boolean; progress: Progress },
): Promise<Manifest> {
  const { progress } = options;
  const dir = path.resolve(source);
  const backup = await verifyBackup(dir, progress);
  const { manifest } = backup;
  progress(`${dir}: every file matches ${MANIFEST} (a backup of "${manifest.database}" taken ${manifest.created_at})`);
  const database = await openConfiguredDatabase(config, RAW, progress, BULK);
  try {
    const db = database.db.connection.db!;
    await refuseUnlessEmpty(db, options.replace);
    progress(`Restoring into "${db.databaseName}" in ${database.description}`);
    await restoreCollections(db, dir, backup, options);
    await database.db.close();
    // Opened as the service opens it (its indexes, its migrations), then the projects brought up to the log: a backup
    // read from a running MongoDB reads the projects before the log.
    const app = await openDatabase(config.mongodbUri ?? database.embeddedUri!, {
      dbName: db.databaseName,
      progress,
      ...BULK,
    });
    try {
      const caughtUp = await catchUpProjects(app);
      if (caughtUp > 0) progress(`Projects: ${caughtUp} brought up to their newest revision in the change log`);
    } finally {
      await app.close();
    }
    return manifest;
  } finally {
    await database.close();
  }
}
