// Starting the service from its bundle, with V8's code cache: what makes a cold start cheap.
//
// Loading the service's ~1,500 CommonJS modules one by one (resolving, reading and compiling each, then compiling
// every function the start runs) was about two thirds of a start. `npm run build` also writes the compiled service
// (dist/src/main.js and everything it loads at start) as one file, dist/src/main.bundle.js (scripts/bundle.ts), and
// src/index.ts starts from it when it matches the compiled code. The first start from a bundle keeps V8's code cache
// of it (the compiled functions, taken at exit, so it covers what the start and the first requests ran) beside it;
// later starts skip that compiling. Node 22 has this built in (module.enableCompileCache); Node 20 does not.
//
// Correctness before speed: the bundle is used only when every compiled file it was built from is unchanged (size
// and time, recorded in its manifest at build time), so a `tsc` run after the build makes starts use dist/ again
// until the next build (npm start rebuilds it first). The code cache is used only for the same bundle (length and
// CRC-32 of its text), the same Node version and architecture, and V8 rejects it itself when its flags differ; a
// rejected or missing cache is written again, at the exit of a start that got as far as listening. Tracing (OTEL_EXPORTER_OTLP_ENDPOINT) starts from dist/: its instrumentations
// patch modules as `require` loads them, which a bundle does not. `node dist/src/main.js` starts without the bundle.
import fs from "node:fs";
import Module from "node:module";
import path from "node:path";
import vm from "node:vm";
import zlib from "node:zlib";

/** What src/index.ts started from, for the start-up log (main.ts reads it and says when the start is over). */
export interface StartedFrom {
  bundle: string;
  /**
   * "used": compiled from the cache; "written at exit": none or a stale one, kept when the process ends if the start
   * got as far as ready() (a start that failed early would leave a cache of little of the service); "off": no cache
   * on this Node (zlib.crc32 is missing before Node 20.15).
   */
  codeCache: "used" | "written at exit" | "off";
  /** Called by main.ts once the service listens. */
  ready(): void;
}

export const STARTED_FROM = Symbol.for("project-service.started-from");

interface Manifest {
  /** The compiled files the bundle holds, relative to its folder, with their size and modification time. */
  inputs: Record<string, { size: number; mtimeMs: number }>;
}

interface CacheHeader {
  node: string;
  arch: string;
  /** The bundle's length and CRC-32: V8 itself compares only the length of the source. */
  bundleLength: number;
  bundleCrc: number;
}

export const manifestOf = (bundle: string): string => `${bundle}.json`;
const cacheOf = (bundle: string): string => `${bundle}.cache`;

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

const crc32 = (zlib as { crc32?: (data: string) => number }).crc32;

function headerFor(source: string): CacheHeader {
  return { node: process.version, arch: process.arch, bundleLength: source.length, bundleCrc: crc32!(source) };
}

/** The cached data for this bundle, if the cache file is for it. Format: one JSON header line, then V8's data. */
function readCache(bundle: string, header: CacheHeader): Buffer | undefined {
  let file: Buffer;
  try {
    file = fs.readFileSync(cacheOf(bundle));
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
    fs.writeFileSync(temporary, Buffer.concat([Buffer.from(`${JSON.stringify(header)}\n`), data]));
    fs.renameSync(temporary, cacheOf(bundle));
  } catch {
    fs.rmSync(temporary, { force: true });
  }
}

/**
 * Runs the bundle as a CommonJS module with V8's code cache. Returns what it started from; the cache is written
 * when the process exits, if it was missing or not accepted.
 */
export function runBundle(bundle: string): StartedFrom {
  const source = fs.readFileSync(bundle, "utf8");
  const header = crc32 ? headerFor(source) : undefined;
  const cachedData = header && readCache(bundle, header);
  const script = new vm.Script(Module.wrap(source), { filename: bundle, cachedData });
  const used = cachedData !== undefined && !script.cachedDataRejected;
  let ready = false;
  if (header && !used) {
    process.once("exit", () => {
      if (ready) writeCache(bundle, header, script.createCachedData());
    });
  }
  const started: StartedFrom = {
    bundle,
    codeCache: !header ? "off" : used ? "used" : "written at exit",
    ready: () => (ready = true),
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

/** Starts from the bundle when it is current and tracing is off; false when the caller must load dist/ instead. */
export function startFromBundle(bundle: string, env: NodeJS.ProcessEnv = process.env): boolean {
  if (env.OTEL_EXPORTER_OTLP_ENDPOINT || !bundleIsCurrent(bundle)) return false;
  runBundle(bundle);
  return true;
}
