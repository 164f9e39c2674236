// The embedded FerretDB: the project's own Go program (tools/ferretdb) built once into a cache outside the
// clone, keyed by a hash of its sources, then started as a child process listening on a Unix domain socket in its
// data folder (only this user can connect; see socketFor).
// It is built with the project's patches of FerretDB (tools/ferretdb/patches/*.patch, one per concern, each written
// against FerretDB's own files so that they apply in any order, and the files under tools/ferretdb/_added), applied to
// a copy of the module the Go toolchain downloads, which the build uses through a `replace` directive: the repository
// holds no copy of FerretDB's sources. `npm run ferretdb:workspace` gives developers that copy as a git repository.
import { execFile, spawn, type ChildProcess } from "node:child_process";
import crypto from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import readline from "node:readline";
import { applyPatch, parsePatch } from "diff";
import { REPO_ROOT } from "../shared/package-root";
import { loadToolConfig } from "./tool-config";
import { exitOf, type EmbeddedDatabase, type Progress } from "./embedded-server";

const SOURCE_DIR = path.join(REPO_ROOT, "tools", "ferretdb");
/** Changes to FerretDB's own files (unified diffs, paths relative to the module's root), one file per concern. */
export const PATCH_DIR = path.join(SOURCE_DIR, "patches");
/** Files added to FerretDB's packages, at their paths in the module (a leading "_" hides them from Go tools). */
export const ADDED_DIR = path.join(SOURCE_DIR, "_added");
export const FERRETDB_MODULE = "github.com/FerretDB/FerretDB";
const BINARY_NAME = process.platform === "win32" ? "ferretdb-embedded.exe" : "ferretdb-embedded";
/** FerretDB reports its address once its database files are open; the first start on files written without the
 * patch's indexes builds them first (about 25 s for 100,000 projects on two loaded cores). */
const START_TIMEOUT_MS = 300_000;
const STOP_TIMEOUT_MS = 8_000;
/** The Go collector's settings of the FerretDB program (see startFerretDb). */
const FERRETDB_GOGC = "400";
const FERRETDB_GOMEMLIMIT = "512MiB";
/** The Go scheduler's processors of the FerretDB program (see startFerretDb). */
const FERRETDB_GOMAXPROCS = "1";

/** The cache folder shared by every clone on this machine (PROJECT_SERVICE_CACHE overrides it; see tool-config.ts). */
function cacheRoot(): string {
  return loadToolConfig().cacheDir;
}

/** The files under dir, relative to it, sorted. */
export function filesUnder(dir: string): string[] {
  return (fs.readdirSync(dir, { recursive: true }) as string[])
    .filter((file) => fs.statSync(path.join(dir, file)).isFile())
    .map((file) => file.split(path.sep).join("/"))
    .sort();
}

/** Where the binary for the current sources lives: keyed by every file of tools/ferretdb (patch included). */
export function ferretDbBinaryPath(): string {
  const hash = crypto.createHash("sha256");
  for (const file of filesUnder(SOURCE_DIR)) {
    hash.update(`${file}\0`);
    hash.update(fs.readFileSync(path.join(SOURCE_DIR, file)));
  }
  return path.join(cacheRoot(), `ferretdb-${hash.digest("hex").slice(0, 16)}`, BINARY_NAME);
}

export function hasGo(): boolean {
  return findOnPath("go") !== undefined;
}

export function findOnPath(command: string): string | undefined {
  for (const dir of (process.env.PATH ?? "").split(path.delimiter)) {
    if (!dir) continue;
    const candidate = path.join(dir, command);
    try {
      fs.accessSync(candidate, fs.constants.X_OK);
      if (fs.statSync(candidate).isFile()) return candidate;
    } catch {
      // not here
    }
  }
  return undefined;
}

/** The patch files, sorted by name (any order applies: tests/foundation/ferretdb-patch-layout.test.ts). */
export function patchFiles(): string[] {
  return fs
    .readdirSync(PATCH_DIR)
    .filter((file) => file.endsWith(".patch"))
    .sort();
}

/** Runs `go <args>` in tools/ferretdb; each stderr line goes to onLine. Resolves with stdout. */
export function runGo(args: string[], onLine: (line: string) => void): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn("go", args, {
      cwd: SOURCE_DIR,
      env: { ...process.env, GOFLAGS: "-mod=readonly", CGO_ENABLED: "0" },
      stdio: ["ignore", "pipe", "pipe"],
    });
    let stdout = "";
    child.stdout!.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
    const tail: string[] = [];
    readline.createInterface({ input: child.stderr! }).on("line", (line) => {
      onLine(line);
      tail.push(line);
      if (tail.length > 20) tail.shift();
    });
    child.on("error", reject);
    // "close", not "exit": the process may exit before its output has all been read.
    child.on("close", (code) => {
      if (code === 0) resolve(stdout);
      else reject(new Error(`go ${args[0]} in tools/ferretdb failed (exit ${code}): ${tail.slice(-5).join(" | ")}`));
    });
  });
}

/** FerretDB's module as the Go toolchain downloads it (the version tools/ferretdb/go.mod pins): its folder. */
export async function ferretDbModuleDir(onLine: (line: string) => void): Promise<string> {
  // "go: downloading" lines name modules.
  const module = JSON.parse(await runGo(["mod", "download", "-json", FERRETDB_MODULE], onLine)) as {
    Dir?: string;
    Error?: string;
  };
  if (!module.Dir) throw new Error(`go mod download ${FERRETDB_MODULE}: ${module.Error ?? "no directory"}`);
  return module.Dir;
}

/** Copies the files of FerretDB's module (moduleDir) into copy, writable. */
export function copyModule(moduleDir: string, copy: string): void {
  for (const file of filesUnder(moduleDir)) {
    // Read and written, not copied: the module cache's files and folders are read-only, copies must not be.
    fs.mkdirSync(path.dirname(path.join(copy, file)), { recursive: true });
    fs.writeFileSync(path.join(copy, file), fs.readFileSync(path.join(moduleDir, file)));
  }
}

/** Applies one patch file of tools/ferretdb/patches to the module's copy; a hunk that does not apply names the file. */
export function applyPatchFile(copy: string, patchFile: string): void {
  for (const patch of parsePatch(fs.readFileSync(path.join(PATCH_DIR, patchFile), "utf8"))) {
    const file = path.join(copy, (patch.oldFileName ?? "").replace(/^a\//, ""));
    const patched = fs.existsSync(file) ? applyPatch(fs.readFileSync(file, "utf8"), patch) : false;
    if (patched === false)
      throw new Error(`tools/ferretdb/patches/${patchFile} does not apply to FerretDB's ${patch.oldFileName}`);
    fs.writeFileSync(file, patched);
  }
}

/** Copies tools/ferretdb/_added into the module's copy (only additions: FerretDB's own files change by patches). */
export function addAddedFiles(copy: string): void {
  for (const file of filesUnder(ADDED_DIR)) {
    // Only additions: a change to one of FerretDB's files belongs in a patch, where it shows as a change.
    if (fs.existsSync(path.join(copy, file))) throw new Error(`tools/ferretdb/_added/${file} is FerretDB's`);
    fs.mkdirSync(path.dirname(path.join(copy, file)), { recursive: true });
    fs.copyFileSync(path.join(ADDED_DIR, file), path.join(copy, file));
  }
}

/** Writes workDir/go.mod (tools/ferretdb's, with FerretDB replaced by the copy) and its go.sum; returns go.mod's path. */
export function writeReplacingGoMod(workDir: string, copy: string): string {
  const goMod = path.join(workDir, "go.mod");
  const replace = `\nreplace ${FERRETDB_MODULE} => ${JSON.stringify(copy.split(path.sep).join("/"))}\n`;
  fs.writeFileSync(goMod, fs.readFileSync(path.join(SOURCE_DIR, "go.mod"), "utf8") + replace);
  fs.copyFileSync(path.join(SOURCE_DIR, "go.sum"), path.join(workDir, "go.sum"));
  return goMod;
}

/**
 * Copies FerretDB's module into workDir/FerretDB, applies the patches and adds the added files, and writes
 * workDir/go.mod (tools/ferretdb's, replacing the module by that copy) with its go.sum. Returns the go.mod's path.
 */
export function preparePatchedModule(moduleDir: string, workDir: string): string {
  const copy = path.join(workDir, "FerretDB");
  copyModule(moduleDir, copy);
  for (const patchFile of patchFiles()) applyPatchFile(copy, patchFile);
  addAddedFiles(copy);
  return writeReplacingGoMod(workDir, copy);
}

/** Builds the FerretDB program unless the cache already holds it; reports progress while building. */
async function ensureFerretDbBinary(progress: Progress): Promise<string> {
  const binary = ferretDbBinaryPath();
  if (fs.existsSync(binary)) return binary;
  if (!hasGo()) {
    throw new Error("EMBEDDED_DB=ferretdb needs Go on PATH to build tools/ferretdb (or set MONGODB_URI)");
  }
  fs.mkdirSync(path.dirname(binary), { recursive: true });
  const temp = `${binary}.${process.pid}.${Date.now()}.tmp`;
  const workDir = `${temp}.module`;
  progress(`Building FerretDB 1.24 from tools/ferretdb into ${path.dirname(binary)} (first run only; a few minutes)`);
  const started = Date.now();
  let steps = 0;
  let last = "";
  const onLine = (line: string) => {
    steps += 1;
    last = line.replace(/^go: /, "");
  };
  const ticker = setInterval(() => {
    const secs = Math.round((Date.now() - started) / 1000);
    progress(`Building FerretDB: ${steps} modules and packages done, ${secs}s elapsed${last ? ` (${last})` : ""}`);
  }, 10_000);
  ticker.unref();
  try {
    // The module's files, downloaded if need be; the patches apply to them.
    const moduleDir = await ferretDbModuleDir(onLine);
    fs.mkdirSync(workDir, { recursive: true });
    const goMod = preparePatchedModule(moduleDir, workDir);
    // -v names each package as it is compiled.
    await runGo(["build", `-modfile=${goMod}`, "-v", "-trimpath", "-o", temp, "."], onLine);
    fs.renameSync(temp, binary);
  } finally {
    clearInterval(ticker);
    fs.rmSync(temp, { force: true });
    fs.rmSync(workDir, { recursive: true, force: true });
  }
  progress(`Built FerretDB in ${Math.round((Date.now() - started) / 1000)}s; cached at ${binary}`);
  return binary;
}

/** Run-time switches of the FerretDB program (see tools/ferretdb/main.go). */
export interface FerretDbOptions {
  /** false: FerretDB's own query behaviour, nothing pushed down to SQLite (default true). */
  pushdown?: boolean;
  /** false: FerretDB's own read-then-write updates, findAndModify and deletes, not atomic (default true). */
  atomic?: boolean;
  /** false: no $lookup stage, as in FerretDB 1.24 itself (default true; tools/ferretdb/lookup.patch). */
  lookup?: boolean;
  /** A file to which every SQL statement FerretDB runs is appended (for explainSqlLog). */
  sqlLog?: string;
  /**
   * How results the pushdown proved exact are answered (tools/ferretdb/readpath.patch): "on" (default) from SQLite's
   * JSON straight to BSON; "off" through FerretDB's own types and iterators; "check" both, failing the request when
   * their BSON differs (for tests).
   */
  readpath?: "on" | "off" | "check";
  /**
   * false: a join reads its looked-up documents at every command, none kept between commands (default true; part of
   * readpath.patch's concern: _added/internal/handler/embedded_readpath_cache.go).
   */
  joinCache?: boolean;
  /**
   * false: dates are not pushed down, a field holding one is left to FerretDB as before dates were modelled (default
   * true; part of pushdown.patch's concern: _added/internal/backends/sqlite/embedded_pushdown_dates.go).
   */
  pushdownDates?: boolean;
  /**
   * false: $ne and $nin are not pushed down, FerretDB evaluates them as before (default true; part of pushdown.patch's
   * concern: _added/internal/backends/sqlite/embedded_pushdown_negations.go).
   */
  pushdownNegations?: boolean;
  /** false: a standalone server, no sessions, transactions or retryable writes (default true; replset.patch). */
  replset?: boolean;
  /**
   * false: FerretDB's own answers to the CRUD commands' options and inputs that crud.patch adds (findAndModify's
   * fields, let, pipeline updates, arrayFilters, collation, ...; default true).
   */
  crud?: boolean;
  /**
   * false: deleted text stays in SQLite's free pages and the write-ahead log until reused, and compact does not
   * truncate the log (default true; erase.patch: secure_delete, and compact checkpoints and truncates the log).
   */
  erase?: boolean;
  /**
   * true: started for tests, as `mongod --setParameter enableTestCommands=1` (FERRETDB_EMBEDDED_TEST_COMMANDS=on):
   * the test-only commands such as configureFailPoint are accepted. Never set by `npm start`.
   */
  testCommands?: boolean;
  /**
   * true: listen on 127.0.0.1 with a port of its own instead of the Unix socket (for tests that put a TCP proxy in
   * front of it); a restart then gets a new port, as a server restarted elsewhere does. Never set by `npm start`.
   */
  loopback?: boolean;
}

/**
 * Options that switch every patch of the program off, for FerretDB's own behaviour (the "without patches" column of
 * `npm run db:conformance -- --stock`). A new switch belongs here too.
 */
export function stockFerretDbOptions(): FerretDbOptions {
  return {
    pushdown: false,
    atomic: false,
    lookup: false,
    readpath: "off",
    joinCache: false,
    pushdownDates: false,
    pushdownNegations: false,
    replset: false,
    crud: false,
    erase: false,
  };
}

/** The longest socket path every Unix takes (sun_path: 108 bytes on Linux, 104 on macOS), less a margin. */
const MAX_SOCKET_PATH = 100;

/**
 * A socket path a driver reaches: short enough for a socket's address, and in lower case, because drivers lower-case
 * the hosts hello names (MongoDB's server discovery specification), socket paths included: the Node driver, told
 * "/tmp/A/mongodb.sock" by hello, connects to "/tmp/a/mongodb.sock".
 */
const reachable = (socket: string) => Buffer.byteLength(socket) <= MAX_SOCKET_PATH && socket === socket.toLowerCase();

/**
 * Where FerretDB listens: a Unix domain socket in its data folder, or, when that path is not `reachable`, in a private
 * folder of the system's temporary one (removed at stop). A socket rather than a loopback port: no other user of the
 * machine can connect to it (a port is open to every local user, and FerretDB has no authentication here), and a
 * command costs the service and FerretDB less CPU than over TCP (docs/performance.md).
 */
function socketFor(dataDir: string): { socket: string; temporary: boolean; remove(): void } {
  const inData = path.join(dataDir, "mongodb.sock");
  if (reachable(inData)) return { socket: inData, temporary: false, remove: () => {} };
  for (const base of [os.tmpdir(), "/tmp"]) {
    const dir = path.join(base, `ferretdb-${crypto.randomBytes(6).toString("hex")}`);
    if (!reachable(path.join(dir, "mongodb.sock")) || !fs.existsSync(base)) continue;
    fs.mkdirSync(dir, { mode: 0o700 });
    return {
      socket: path.join(dir, "mongodb.sock"),
      temporary: true,
      remove: () => fs.rmSync(dir, { recursive: true, force: true }),
    };
  }
  throw new Error(
    `no folder for FerretDB's socket: ${inData} and the temporary folders are too long or not lower case`,
  );
}

/**
 * Starts FerretDB on a Unix domain socket (socketFor), keeping its SQLite files in dataDir. `restart` starts it again on
 * the same socket (its temporary folder made again if the program removed it), so the URI stays the same.
 */
export async function startFerretDb(
  dataDir: string,
  progress: Progress,
  options: FerretDbOptions = {},
): Promise<EmbeddedDatabase> {
  const binary = await ensureFerretDbBinary(progress);
  fs.mkdirSync(dataDir, { recursive: true });
  const env = ferretDbEnv(options);
  const place = options.loopback ? undefined : socketFor(dataDir);
  if (place) {
    env.FERRETDB_EMBEDDED_SOCKET = place.socket;
    // A folder of its own goes with the program too, also when this process is killed and cannot remove it.
    if (place.temporary) env.FERRETDB_EMBEDDED_SOCKET_FOLDER = "temporary";
  }
  const remove = place?.remove ?? (() => {});
  const launch = async (): Promise<EmbeddedDatabase> => {
    if (place?.temporary) fs.mkdirSync(path.dirname(place.socket), { recursive: true, mode: 0o700 });
    const child = await spawnFerretDb(binary, dataDir, env, progress);
    return {
      uri: child.uri,
      kind: "ferretdb",
      description: `embedded FerretDB 1.24 (SQLite in ${dataDir})`,
      pid: child.process.pid,
      exited: exitOf(child.process),
      restart: launch,
      stop: () => stopChild(child.process).finally(remove),
    };
  };
  try {
    return await launch();
  } catch (err) {
    remove();
    throw err;
  }
}

/** The program's environment: the switches of `options` (none of the caller's own), Go's settings. */
function ferretDbEnv(options: FerretDbOptions): NodeJS.ProcessEnv {
  const env = { ...process.env };
  delete env.FERRETDB_EMBEDDED_PUSHDOWN;
  delete env.FERRETDB_EMBEDDED_ATOMIC;
  delete env.FERRETDB_EMBEDDED_SQL_LOG;
  delete env.FERRETDB_EMBEDDED_READPATH;
  delete env.FERRETDB_EMBEDDED_JOIN_CACHE;
  delete env.FERRETDB_EMBEDDED_PUSHDOWN_DATES;
  delete env.FERRETDB_EMBEDDED_PUSHDOWN_NEGATIONS;
  delete env.FERRETDB_EMBEDDED_LOOKUP;
  delete env.FERRETDB_EMBEDDED_REPLSET;
  delete env.FERRETDB_EMBEDDED_TEST_COMMANDS;
  delete env.FERRETDB_EMBEDDED_CRUD;
  delete env.FERRETDB_EMBEDDED_ERASE;
  delete env.FERRETDB_EMBEDDED_SOCKET;
  delete env.FERRETDB_EMBEDDED_SOCKET_FOLDER;
  if (options.pushdown === false) env.FERRETDB_EMBEDDED_PUSHDOWN = "off";
  if (options.lookup === false) env.FERRETDB_EMBEDDED_LOOKUP = "off";
  if (options.atomic === false) env.FERRETDB_EMBEDDED_ATOMIC = "off";
  if (options.readpath && options.readpath !== "on") env.FERRETDB_EMBEDDED_READPATH = options.readpath;
  if (options.joinCache === false) env.FERRETDB_EMBEDDED_JOIN_CACHE = "off";
  if (options.pushdownDates === false) env.FERRETDB_EMBEDDED_PUSHDOWN_DATES = "off";
  if (options.pushdownNegations === false) env.FERRETDB_EMBEDDED_PUSHDOWN_NEGATIONS = "off";
  if (options.replset === false) env.FERRETDB_EMBEDDED_REPLSET = "off";
  if (options.crud === false) env.FERRETDB_EMBEDDED_CRUD = "off";
  if (options.erase === false) env.FERRETDB_EMBEDDED_ERASE = "off";
  if (options.testCommands) env.FERRETDB_EMBEDDED_TEST_COMMANDS = "on";
  if (options.sqlLog) env.FERRETDB_EMBEDDED_SQL_LOG = options.sqlLog;
  // Go's collector runs when the heap has grown by GOGC % since the last collection; FerretDB allocates a lot per
  // document read and keeps little, so the default 100 made it collect several times per page of 100 (garbage
  // collection was about half of its CPU). 400 served 21-34 % more pages (docs/database.md); GOMEMLIMIT makes the
  // collector work harder again before the heap passes 512 MiB, so the higher target cannot run away. Either
  // variable in the environment wins (e.g. GOGC=100 to compare).
  env.GOGC ??= FERRETDB_GOGC;
  env.GOMEMLIMIT ??= FERRETDB_GOMEMLIMIT;
  // One processor: FerretDB's work per command is short and mostly serial (SQLite in Go, one writer), and with a
  // processor per core its idle threads spin and wake one another between commands (strace under 16 clients: 6.5
  // nanosleep and 3.5 futex calls per command). With one, its CPU per page of 100 fell 16 % and per project by id
  // 9-17 % (docs/database.md). A blocking system call still hands the processor to another thread. GOMAXPROCS in
  // the environment wins.
  env.GOMAXPROCS ??= FERRETDB_GOMAXPROCS;
  return env;
}

/** Runs the program on dataDir and waits for the URI it prints once its files are open. */
async function spawnFerretDb(
  binary: string,
  dataDir: string,
  env: NodeJS.ProcessEnv,
  progress: Progress,
): Promise<{ process: ChildProcess; uri: string }> {
  // stdin stays a pipe we never close: when this process dies, FerretDB reads EOF and exits.
  const child = spawn(binary, [dataDir], { stdio: ["pipe", "pipe", "pipe"], env });
  const stderr: string[] = [];
  readline.createInterface({ input: child.stderr! }).on("line", (line) => {
    stderr.push(line);
    if (stderr.length > 50) stderr.shift();
  });
  const slow = setTimeout(
    () => progress("FerretDB is still opening its files (on the first start after an upgrade it builds its indexes)"),
    10_000,
  );
  try {
    const uri = await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`FerretDB did not report its address within ${START_TIMEOUT_MS / 1000}s`)),
        START_TIMEOUT_MS,
      );
      const lines = readline.createInterface({ input: child.stdout! });
      lines.once("line", (line) => {
        clearTimeout(timer);
        resolve(line.trim());
      });
      child.once("error", (err) => {
        clearTimeout(timer);
        reject(err);
      });
      child.once("exit", (code) => {
        clearTimeout(timer);
        reject(new Error(`FerretDB exited at start (code ${code}): ${stderr.slice(-3).join(" | ")}`));
      });
    });
    return { process: child, uri };
  } catch (err) {
    // A program that did not come up (no address in time) must not stay behind (one never spawned has no pid).
    if (child.pid !== undefined) await stopChild(child);
    throw err;
  } finally {
    clearTimeout(slow);
  }
}

async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  child.kill("SIGTERM");
  const timer = setTimeout(() => child.kill("SIGKILL"), STOP_TIMEOUT_MS);
  await exited;
  clearTimeout(timer);
}

/** One statement of an SQL log with SQLite's query plan (the detail column of EXPLAIN QUERY PLAN). */
export interface ExplainedStatement {
  db: string;
  sql: string;
  plan?: string[];
  /** Why it could not be planned, e.g. its table was dropped since. */
  error?: string;
}

/**
 * The query plans of the distinct statements in the SQL log of a FerretDB started with `sqlLog` on dataDir (those
 * sent to database `db` only, when given).
 */
export async function explainSqlLog(dataDir: string, sqlLog: string, db?: string): Promise<ExplainedStatement[]> {
  const binary = ferretDbBinaryPath();
  const stdout = await new Promise<string>((resolve, reject) => {
    execFile(
      binary,
      ["explain", dataDir, sqlLog, ...(db ? [db] : [])],
      { maxBuffer: 256 * 1024 * 1024 },
      (err, out, errOut) =>
        err ? reject(new Error(`${binary} explain failed: ${err.message} ${errOut}`)) : resolve(out),
    );
  });
  return stdout
    .split("\n")
    .filter((line) => line.trim() !== "")
    .map((line) => JSON.parse(line) as ExplainedStatement);
}

/** The longest a snapshot may take (VACUUM INTO of a million projects' file, about 1 GiB, takes well under this). */
const SNAPSHOT_TIMEOUT_MS = 30 * 60_000;

/**
 * A consistent copy of database `db` of the FerretDB files in dataDir, written to `file` (which must not exist), while a
 * FerretDB may keep serving those files (tools/ferretdb/main.go, `snapshot`). Resolves with the copy's size in bytes.
 */
export async function snapshotFerretDb(
  dataDir: string,
  db: string,
  file: string,
  progress: Progress,
  signal?: AbortSignal,
): Promise<number> {
  const binary = await ensureFerretDbBinary(progress);
  const stdout = await new Promise<string>((resolve, reject) => {
    execFile(binary, ["snapshot", dataDir, db, file], { timeout: SNAPSHOT_TIMEOUT_MS, signal }, (err, out, errOut) =>
      err ? reject(new Error(errOut.trim().split("\n").pop() || err.message)) : resolve(out),
    );
  });
  return Number(stdout.trim());
}
