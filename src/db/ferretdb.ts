// The embedded FerretDB: the project's own Go program (tools/ferretdb) built once into a cache outside the
// clone, keyed by a hash of its sources, then started as a child process on 127.0.0.1 with an ephemeral port.
import { spawn, type ChildProcess } from "node:child_process";
import crypto from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import readline from "node:readline";
import { REPO_ROOT } from "../shared/package-root";
import { loadToolConfig } from "./tool-config";
import type { EmbeddedDatabase, Progress } from "./embedded-server";

const SOURCE_DIR = path.join(REPO_ROOT, "tools", "ferretdb");
const SOURCE_FILES = ["go.mod", "go.sum", "main.go"];
const BINARY_NAME = process.platform === "win32" ? "ferretdb-embedded.exe" : "ferretdb-embedded";
const START_TIMEOUT_MS = 30_000;
const STOP_TIMEOUT_MS = 8_000;

/** The cache folder shared by every clone on this machine (PROJECT_SERVICE_CACHE overrides it; see tool-config.ts). */
function cacheRoot(): string {
  return loadToolConfig().cacheDir;
}

/** Where the binary for the current sources lives: keyed by go.sum, go.mod and main.go. */
export function ferretDbBinaryPath(): string {
  const hash = crypto.createHash("sha256");
  for (const file of SOURCE_FILES) hash.update(fs.readFileSync(path.join(SOURCE_DIR, file)));
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

/** Builds the FerretDB program unless the cache already holds it; reports progress while building. */
async function ensureFerretDbBinary(progress: Progress): Promise<string> {
  const binary = ferretDbBinaryPath();
  if (fs.existsSync(binary)) return binary;
  if (!hasGo()) {
    throw new Error("EMBEDDED_DB=ferretdb needs Go on PATH to build tools/ferretdb (or set MONGODB_URI)");
  }
  fs.mkdirSync(path.dirname(binary), { recursive: true });
  const temp = `${binary}.${process.pid}.${Date.now()}.tmp`;
  progress(`Building FerretDB 1.24 from tools/ferretdb into ${path.dirname(binary)} (first run only; a few minutes)`);
  const started = Date.now();
  let steps = 0;
  let last = "";
  const ticker = setInterval(() => {
    const secs = Math.round((Date.now() - started) / 1000);
    progress(`Building FerretDB: ${steps} modules and packages done, ${secs}s elapsed${last ? ` (${last})` : ""}`);
  }, 10_000);
  ticker.unref();
  try {
    await new Promise<void>((resolve, reject) => {
      // -v names each package as it is compiled; "go: downloading" lines name modules being fetched.
      const child = spawn("go", ["build", "-v", "-trimpath", "-o", temp, "."], {
        cwd: SOURCE_DIR,
        env: { ...process.env, GOFLAGS: "-mod=readonly", CGO_ENABLED: "0" },
        stdio: ["ignore", "inherit", "pipe"],
      });
      const tail: string[] = [];
      readline.createInterface({ input: child.stderr! }).on("line", (line) => {
        steps += 1;
        last = line.replace(/^go: /, "");
        tail.push(line);
        if (tail.length > 20) tail.shift();
      });
      child.on("error", reject);
      child.on("exit", (code) => {
        if (code === 0) resolve();
        else reject(new Error(`go build of tools/ferretdb failed (exit ${code}): ${tail.slice(-5).join(" | ")}`));
      });
    });
    fs.renameSync(temp, binary);
  } finally {
    clearInterval(ticker);
    fs.rmSync(temp, { force: true });
  }
  progress(`Built FerretDB in ${Math.round((Date.now() - started) / 1000)}s; cached at ${binary}`);
  return binary;
}

/** Starts FerretDB on an ephemeral loopback port, keeping its SQLite files in dataDir. */
export async function startFerretDb(dataDir: string, progress: Progress): Promise<EmbeddedDatabase> {
  const binary = await ensureFerretDbBinary(progress);
  fs.mkdirSync(dataDir, { recursive: true });
  // stdin stays a pipe we never close: when this process dies, FerretDB reads EOF and exits.
  const child = spawn(binary, [dataDir], { stdio: ["pipe", "pipe", "pipe"] });
  const stderr: string[] = [];
  readline.createInterface({ input: child.stderr! }).on("line", (line) => {
    stderr.push(line);
    if (stderr.length > 50) stderr.shift();
  });
  const uri = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error("FerretDB did not report its address within 30s")),
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
  return {
    uri,
    kind: "ferretdb",
    description: `embedded FerretDB 1.24 (SQLite in ${dataDir})`,
    pid: child.pid,
    stop: () => stopChild(child),
  };
}

async function stopChild(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  child.kill("SIGTERM");
  const timer = setTimeout(() => child.kill("SIGKILL"), STOP_TIMEOUT_MS);
  await exited;
  clearTimeout(timer);
}
