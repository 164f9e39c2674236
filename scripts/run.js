// Launcher for the package.json scripts that need the compiled code: `node scripts/run.js dist/src/index.js [args]`.
// It compiles (tsc -p tsconfig.build.json) only when dist/ is older than the sources, then loads the target module
// IN THIS PROCESS, so the signals npm forwards (SIGTERM, SIGINT) reach the service itself and no shell or second
// node sits between them. Plain CommonJS on purpose: it must run before anything is compiled.
"use strict";
const { spawnSync } = require("node:child_process");
const fs = require("node:fs");
const path = require("node:path");

const ROOT = path.resolve(__dirname, "..");
/** Written after every successful build by this launcher; its mtime is "when dist/ was last built". */
const STAMP = path.join(ROOT, "dist", ".build-stamp");
/** tsc's own build-info files: a build by `npm run build` or `npm test` (same outDir) also counts. */
const BUILD_INFO = [STAMP, path.join(ROOT, "dist", ".tsbuildinfo"), path.join(ROOT, "dist", ".tsbuildinfo.build")];
/** What the build reads: folders compiled by tsconfig.build.json, and the files that change how it compiles. */
const SOURCES = ["src", "scripts", "bench", "tsconfig.json", "tsconfig.build.json", "package.json"];

/** The newest modification time (ms) under `entry`, a file or a folder walked recursively. */
function newestMtime(entry) {
  let stat;
  try {
    stat = fs.statSync(entry);
  } catch {
    return 0;
  }
  if (!stat.isDirectory()) return stat.mtimeMs;
  let newest = stat.mtimeMs; // a deleted file changes its folder's mtime
  for (const name of fs.readdirSync(entry)) newest = Math.max(newest, newestMtime(path.join(entry, name)));
  return newest;
}

function builtAt() {
  let newest = -1;
  for (const file of BUILD_INFO) {
    try {
      newest = Math.max(newest, fs.statSync(file).mtimeMs);
    } catch {
      // not built that way yet
    }
  }
  return newest;
}

function buildIfStale(target) {
  const sourcesAt = Math.max(...SOURCES.map((entry) => newestMtime(path.join(ROOT, entry))));
  if (fs.existsSync(target) && builtAt() >= sourcesAt) return;
  const started = Date.now();
  process.stderr.write("Compiling TypeScript (dist/ is older than the sources)…\n");
  const tsc = require.resolve("typescript/bin/tsc", { paths: [ROOT] });
  const result = spawnSync(process.execPath, [tsc, "-p", path.join(ROOT, "tsconfig.build.json")], {
    cwd: ROOT,
    stdio: "inherit",
  });
  if (result.status !== 0) {
    process.stderr.write("Compilation failed; see the errors above\n");
    process.exit(result.status ?? 1);
  }
  fs.mkdirSync(path.dirname(STAMP), { recursive: true });
  // The stamp's time is the build's start: a source saved during the build makes the next start build again.
  fs.writeFileSync(STAMP, `${new Date(started).toISOString()}\n`);
  fs.utimesSync(STAMP, new Date(started), new Date(started));
  process.stderr.write(`Compiled in ${((Date.now() - started) / 1000).toFixed(1)} s\n`);
}

function main() {
  const [relativeTarget, ...args] = process.argv.slice(2);
  if (!relativeTarget) {
    process.stderr.write("usage: node scripts/run.js <compiled module, e.g. dist/src/index.js> [arguments]\n");
    process.exit(2);
  }
  const target = path.resolve(ROOT, relativeTarget);
  buildIfStale(target);
  // The target sees the arguments as if it had been started itself (node <target> args…).
  process.argv = [process.argv[0], target, ...args];
  require(target);
}

main();
