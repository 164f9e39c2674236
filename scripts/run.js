// Launcher for the package.json scripts that need the compiled code: `node scripts/run.js dist/src/index.js [args]`.
// It compiles (tsc -p tsconfig.build.json) only when dist/ is older than the sources, bundles the service again when
// its bundle no longer matches dist/ (scripts/bundle.ts, src/start-bundle.ts), then loads the target module
// IN THIS PROCESS, so the signals npm forwards (SIGTERM, SIGINT) reach the service itself and no shell or second
// node sits between them. Plain CommonJS on purpose: it must run before anything is compiled.
"use strict";
const { spawn } = require("node:child_process");
const fs = require("node:fs");
const path = require("node:path");

const ROOT = path.resolve(__dirname, "..");
/** Written after every successful build by this launcher; its mtime is "when dist/ was last built". */
const STAMP = path.join(ROOT, "dist", ".build-stamp");
/** Folders compiled by tsconfig.build.json: each .ts file there must have a compiled .js at least as new. */
const SOURCE_DIRS = ["src", "scripts", "bench"];
/** Files that change how everything compiles: newer than the last build means a full build. */
const BUILD_FILES = ["tsconfig.json", "tsconfig.build.json", "package.json"];
/** The service's entry point: started from its bundle (bundleIfStale). */
const SERVICE = path.join(ROOT, "dist", "src", "index.js");

function mtime(file) {
  try {
    return fs.statSync(file).mtimeMs;
  } catch {
    return -1;
  }
}

/**
 * The first source newer than both its compiled file and the last full build, walking `dir` recursively. Per file,
 * so any tsc run that emitted (npm run build, the tsc of npm test) counts, and a type check with --noEmit does not.
 */
function staleSourceIn(dir, builtAt) {
  let entries;
  try {
    entries = fs.readdirSync(dir, { withFileTypes: true });
  } catch {
    return undefined;
  }
  for (const entry of entries) {
    const file = path.join(dir, entry.name);
    if (entry.isDirectory()) {
      const stale = staleSourceIn(file, builtAt);
      if (stale) return stale;
    } else if (entry.name.endsWith(".ts") && !entry.name.endsWith(".d.ts")) {
      const compiled = path.join(ROOT, "dist", path.relative(ROOT, file)).replace(/\.ts$/, ".js");
      // A file saved without a change is not re-emitted by incremental tsc: a full build after it also counts.
      if (Math.max(mtime(compiled), builtAt) < mtime(file)) return path.relative(ROOT, file);
    }
  }
  return undefined;
}

/** Why dist/ must be built again, or undefined when it is current. */
function staleness(target) {
  if (mtime(target) < 0) return `${path.relative(ROOT, target)} does not exist`;
  const builtAt = Math.max(mtime(STAMP), mtime(path.join(ROOT, "dist", ".tsbuildinfo.build")));
  const changed = BUILD_FILES.find((file) => mtime(path.join(ROOT, file)) > builtAt);
  if (changed) return `${changed} changed`;
  for (const dir of SOURCE_DIRS) {
    const stale = staleSourceIn(path.join(ROOT, dir), builtAt);
    if (stale) return `${stale} changed`;
  }
  return undefined;
}

/** Compiles when dist/ is stale; a signal during the build stops tsc too and ends this process. */
function buildIfStale(target, then) {
  const reason = staleness(target);
  if (!reason) return then();
  const started = Date.now();
  process.stderr.write(`Compiling TypeScript into dist/ (${reason})…\n`);
  const tsc = require.resolve("typescript/bin/tsc", { paths: [ROOT] });
  const child = spawn(process.execPath, [tsc, "-p", path.join(ROOT, "tsconfig.build.json")], {
    cwd: ROOT,
    stdio: "inherit",
  });
  const forward = (signal) => child.kill(signal);
  process.on("SIGTERM", forward);
  process.on("SIGINT", forward);
  child.on("exit", (code, signal) => {
    process.off("SIGTERM", forward);
    process.off("SIGINT", forward);
    if (signal) process.exit(1);
    if (code !== 0) {
      process.stderr.write("Compilation failed; see the errors above\n");
      process.exit(code ?? 1);
    }
    fs.mkdirSync(path.dirname(STAMP), { recursive: true });
    // The stamp's time is the build's start: a source saved during the build makes the next start build again.
    fs.writeFileSync(STAMP, `${new Date(started).toISOString()}\n`);
    fs.utimesSync(STAMP, new Date(started), new Date(started));
    process.stderr.write(`Compiled in ${((Date.now() - started) / 1000).toFixed(1)} s\n`);
    then();
  });
}

/**
 * The service starts from its bundle (src/start-bundle.ts): bundles it again when it no longer matches dist/, as
 * after a `tsc` run. Without esbuild (installed without dev dependencies) the service starts from dist/. esbuild's
 * child process has ended when this resolves (scripts/bundle.ts), so none stays beside the service.
 */
async function bundleIfStale() {
  const { bundleIsCurrent } = require(path.join(ROOT, "dist", "src", "start-bundle.js"));
  if (bundleIsCurrent(path.join(ROOT, "dist", "src", "main.bundle.js"))) return;
  let buildBundle;
  try {
    ({ buildBundle } = require(path.join(ROOT, "dist", "scripts", "bundle.js")));
  } catch {
    return;
  }
  const started = Date.now();
  await buildBundle(path.join(ROOT, "dist", "src"));
  process.stderr.write(`Bundled the service in ${((Date.now() - started) / 1000).toFixed(1)} s\n`);
}

function main() {
  const [relativeTarget, ...args] = process.argv.slice(2);
  if (!relativeTarget) {
    process.stderr.write("usage: node scripts/run.js <compiled module, e.g. dist/src/index.js> [arguments]\n");
    process.exit(2);
  }
  const target = path.resolve(ROOT, relativeTarget);
  buildIfStale(target, async () => {
    if (target === SERVICE) await bundleIfStale();
    // The target sees the arguments as if it had been started itself (node <target> args…).
    process.argv = [process.argv[0], target, ...args];
    require(target);
  });
}

main();
