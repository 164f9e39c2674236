// Starting the service from its bundle, with V8's code cache, and Node's compile cache for the rest: what makes a
// cold start cheap.
//
// Loading the service's ~1,500 CommonJS modules one by one (resolving, reading and compiling each, then compiling
// every function the start runs) was about two thirds of a start. `npm run build` also writes the compiled service
// (dist/src/main.js and everything it loads at start) as one file, dist/src/main.bundle.js (scripts/bundle.ts), and
// src/index.ts starts from it when it matches the compiled code. The first start from a bundle keeps V8's code cache
// of it (taken 2 s after the start is ready, or at exit if sooner, so it covers what the start and the first requests
// ran) beside it; later starts skip that compiling. On Node >= 22 every other module `require` loads (dist/ when the bundle is not used, packages loaded on
// first use) goes through Node's own compile cache (module.enableCompileCache). The bundle does not: Node's cache
// of a module holds only the code V8 compiled when it loaded the module, not the functions compiled while the start
// ran them (600 KB against 5.4 MB for the bundle), so it saved a third of what V8's cache saves (docs/performance.md).
//
// Correctness before speed: the bundle is used only when every compiled file it was built from is unchanged (size
// and time, recorded in its manifest at build time), so a `tsc` run after the build makes starts use dist/ again
// until the next build (npm start rebuilds it first). The code cache is used only for the same bundle (length and
// CRC-32 of its text), the same Node version and architecture (one file per version), and V8 rejects it itself when
// its flags differ; a rejected or missing cache is written again by a start that got as far as listening. Tracing (OTEL_EXPORTER_OTLP_ENDPOINT) starts from dist/: its instrumentations patch modules as
// `require` loads them, which a bundle does not. `node dist/src/main.js` starts without the bundle.
import { isAscii } from "node:buffer";
import { createHash } from "node:crypto";
import fs from "node:fs";
import Module from "node:module";
import os from "node:os";
import path from "node:path";
import vm from "node:vm";
import zlib from "node:zlib";

/** What src/index.ts started from, for the start-up log (main.ts reads it and says when the start is over). */
export interface StartedFrom {
  /** The bundle, or undefined when the start loads dist/ module by module. */
  bundle?: string;
  /**
   * The bundle's V8 code cache: "used", "written at exit" (none or a stale one: kept 2 s after ready(), or when the
   * process ends if sooner, and only if the start got as far as ready(): a start that failed early would leave a
   * cache of little of the service), or "off"
   * (zlib.crc32 is missing before Node 20.15).
   */
  codeCache?: "used" | "written at exit" | "off";
  /** Node's compile cache: its directory, or why it is off ("none before Node 22", a failure's message). */
  compileCache: string;
  /** Called by main.ts once the service listens. */
  ready(): void;
}

export const STARTED_FROM = Symbol.for("project-service.started-from");

/** A missing or stale code cache is written this long after the start is ready, or at exit if that comes first. */
export const CODE_CACHE_AFTER_READY_MS = 2000;

interface Manifest {
  /** The compiled files the bundle holds, relative to its folder, with their size and modification time. */
  inputs: Record<string, { size: number; mtimeMs: number }>;
}

interface CacheHeader {
  node: string;
  arch: string;
  /** The bundle file's length in bytes and CRC-32: V8 itself compares only the length of the source. */
  bundleLength: number;
  bundleCrc: number;
}

export const manifestOf = (bundle: string): string => `${bundle}.json`;
/**
 * Where the bundle's code cache is kept: beside it, or, where its folder is not writable (the container image runs
 * as "node" and dist/ is root's), in the temporary folder, named after the bundle's path. One file per Node version
 * and architecture, so that two versions starting the same dist/ (CI, bench:startup) keep a cache each.
 */
export function cacheOf(bundle: string): string {
  const name = `${path.basename(bundle)}.${process.version}-${process.arch}.cache`;
  try {
    fs.accessSync(path.dirname(bundle), fs.constants.W_OK);
    return path.join(path.dirname(bundle), name);
  } catch {
    const folder = createHash("sha256").update(path.resolve(bundle)).digest("hex").slice(0, 16);
    return path.join(os.tmpdir(), `project-service-code-cache-${folder}`, name);
  }
}

function fileStamp(file: string): { size: number; mtimeMs: number } | undefined {
  try {
    const { size, mtimeMs } = fs.statSync(file);
    return { size, mtimeMs };
  } catch {
    return undefined;
  }
}

/** Whether the bundle exists and every file it was built from is as it was then. */
export function bundleIsCurrent(bundle: string): boolean {
  let manifest: Manifest;
  try {
    manifest = JSON.parse(fs.readFileSync(manifestOf(bundle), "utf8")) as Manifest;
  } catch {
    return false;
  }
  if (!fileStamp(bundle)) return false;
  const folder = path.dirname(bundle);
  return Object.entries(manifest.inputs).every(([file, built]) => {
    const now = fileStamp(path.join(folder, file));
    return now !== undefined && now.size === built.size && now.mtimeMs === built.mtimeMs;
  });
}

/** The manifest of a bundle just built from these files (paths absolute or relative to the working folder). */
export function writeManifest(bundle: string, inputs: string[]): void {
  const folder = path.dirname(bundle);
  const manifest: Manifest = { inputs: {} };
  for (const input of inputs) {
    const stamp = fileStamp(input);
    if (stamp) manifest.inputs[path.relative(folder, path.resolve(input))] = stamp;
  }
  const temporary = `${manifestOf(bundle)}.${process.pid}.tmp`;
  fs.writeFileSync(temporary, `${JSON.stringify(manifest, null, 1)}\n`);
  fs.renameSync(temporary, manifestOf(bundle));
}

const crc32 = (zlib as { crc32?: (data: Uint8Array) => number }).crc32;

/** Of the file's bytes, as read: a CRC of the decoded text would encode all of it to UTF-8 again (7 ms of a start). */
function headerFor(bytes: Buffer): CacheHeader {
  return { node: process.version, arch: process.arch, bundleLength: bytes.length, bundleCrc: crc32!(bytes) };
}

/** The cached data for this bundle, if the cache file is for it. Format: one JSON header line, then V8's data. */
function readCache(bundle: string, header: CacheHeader): Buffer | undefined {
  const cache = cacheOf(bundle);
  let file: Buffer;
  try {
    // In the shared temporary folder, only a folder of this user's own (made 0700) is trusted: V8 runs what it holds.
    if (path.dirname(cache) !== path.dirname(bundle) && fs.statSync(path.dirname(cache)).uid !== process.getuid?.()) {
      return undefined;
    }
    file = fs.readFileSync(cache);
  } catch {
    return undefined;
  }
  const newline = file.indexOf(10);
  if (newline < 0) return undefined;
  try {
    const stored = JSON.parse(file.subarray(0, newline).toString("utf8")) as CacheHeader;
    const same = (Object.keys(header) as (keyof CacheHeader)[]).every((key) => stored[key] === header[key]);
    return same ? file.subarray(newline + 1) : undefined;
  } catch {
    return undefined;
  }
}

/** Writes the cache through a temporary file, so a reader never sees half of it; a failure only costs speed. */
function writeCache(bundle: string, header: CacheHeader, data: Buffer): void {
  const temporary = `${cacheOf(bundle)}.${process.pid}.tmp`;
  try {
    fs.mkdirSync(path.dirname(temporary), { recursive: true, mode: 0o700 });
    fs.writeFileSync(temporary, Buffer.concat([Buffer.from(`${JSON.stringify(header)}\n`), data]));
    fs.renameSync(temporary, cacheOf(bundle));
  } catch {
    fs.rmSync(temporary, { force: true });
  }
}

/** Node's compile cache API (Node >= 22.1; @types/node is Node 20's, which has none of it). */
interface CompileCacheApi {
  enableCompileCache(): { status: number; message?: string; directory?: string };
  constants: { compileCacheStatus: { ENABLED: number; ALREADY_ENABLED: number } };
}

/**
 * Turns on Node's compile cache for every module `require` loads from now on (Node >= 22), in Node's cache
 * directory: NODE_COMPILE_CACHE, else <tmpdir>/node-compile-cache, writable where dist/ is not (the container
 * image). Node checks each entry against the module's text, the Node version and V8's flags. Returns what
 * StartedFrom.compileCache says.
 */
export function enableNodeCompileCache(): string {
  if (!("enableCompileCache" in Module)) return "none before Node 22";
  const api = Module as unknown as CompileCacheApi;
  const { status, message, directory } = api.enableCompileCache();
  const { ENABLED, ALREADY_ENABLED } = api.constants.compileCacheStatus;
  return status === ENABLED || status === ALREADY_ENABLED ? `in ${directory}` : `off: ${message ?? "disabled"}`;
}

/**
 * Runs the bundle as a CommonJS module with V8's code cache. Returns what it started from; the cache, if it was
 * missing or not accepted, is written CODE_CACHE_AFTER_READY_MS after the start is ready or when the process exits,
 * whichever comes first (and only once the start got as far as ready()).
 */
export function runBundle(bundle: string, compileCache: string): StartedFrom {
  const bytes = fs.readFileSync(bundle);
  // scripts/bundle.ts writes ASCII only: read as Latin-1, that is a string of one byte per character, without the
  // UTF-8 decoding (14 ms of a start on Node 26) or a string of two bytes per character.
  const source = isAscii(bytes) ? bytes.toString("latin1") : bytes.toString("utf8");
  const header = crc32 ? headerFor(bytes) : undefined;
  const cachedData = header && readCache(bundle, header);
  const script = new vm.Script(Module.wrap(source), { filename: bundle, cachedData });
  const used = cachedData !== undefined && !script.cachedDataRejected;
  // The header of the cache to write: none when the cache was used, or when there is none to check (no crc32).
  const toWrite = used ? undefined : header;
  let ready = false;
  let written = false;
  const write = () => {
    if (!toWrite || !ready || written) return;
    written = true;
    writeCache(bundle, toWrite, script.createCachedData());
  };
  if (toWrite) process.once("exit", write);
  const started: StartedFrom = {
    bundle,
    codeCache: !header ? "off" : used ? "used" : "written at exit",
    compileCache,
    ready: () => {
      ready = true;
      // Also CODE_CACHE_AFTER_READY_MS after the start, if the process still runs: V8 drops the bytecode of
      // functions unused for a while, so a cache taken at the exit of a process that served for hours held little
      // of the start (2.9 MB against 5.4 MB, and a start of 339 ms instead of 207 ms).
      if (toWrite) setTimeout(write, CODE_CACHE_AFTER_READY_MS).unref();
    },
  };
  (globalThis as Record<symbol, unknown>)[STARTED_FROM] = started;

  const module = new Module(bundle, require.main);
  module.filename = bundle;
  module.paths = (Module as unknown as { _nodeModulePaths(from: string): string[] })._nodeModulePaths(
    path.dirname(bundle),
  );
  const wrapper = script.runInThisContext({ displayErrors: true }) as (
    exports: unknown,
    require: NodeJS.Require,
    module: Module,
    filename: string,
    dirname: string,
  ) => void;
  wrapper.call(module.exports, module.exports, Module.createRequire(bundle), module, bundle, path.dirname(bundle));
  return started;
}

/**
 * Starts the service: Node's compile cache on, then from the bundle when it is current and tracing is off. False
 * when the caller must load dist/ instead (what it started from is recorded for main.ts all the same).
 */
export function startFromBundle(bundle: string, env: NodeJS.ProcessEnv = process.env): boolean {
  const compileCache = enableNodeCompileCache();
  if (env.OTEL_EXPORTER_OTLP_ENDPOINT || !bundleIsCurrent(bundle)) {
    const started: StartedFrom = { compileCache, ready: () => undefined };
    (globalThis as Record<symbol, unknown>)[STARTED_FROM] = started;
    return false;
  }
  runBundle(bundle, compileCache);
  return true;
}
