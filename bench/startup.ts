// npm run bench:startup: how long a cold start takes until GET /readyz answers 200, for the service
// (`node dist/src/index.js`, as `npm start` runs it with dist/ current: from its bundle with V8's code cache,
// src/start-bundle.ts), for the service from dist/ module by module (`node dist/src/main.js`), and for a bare
// reference server (Fastify + graphql-js + the MongoDB driver, bench/bare-server.ts), all on the same running
// database (the embedded one, or MONGODB_URI), in turn, BENCH_RUNS times each. Prints the medians and the ratios to
// the bare server. With BENCH_CPU_PROF=1 each
// run of the service also writes a V8 CPU profile (node --cpu-prof) into a folder it names, for a look at where the
// start-up time goes (Chrome DevTools' Performance tab opens them).
import { spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import readline from "node:readline";
import { loadBenchConfig } from "./bench-config";
import { databaseUri, startBenchServer } from "./bench-database";
import { buildBundle } from "../scripts/bundle";
import { bundleIsCurrent } from "../src/start-bundle";

const BENCH = loadBenchConfig();
const DIST = path.join(__dirname, "..");
const SERVICE = path.join(DIST, "src", "index.js");
const UNBUNDLED = path.join(DIST, "src", "main.js");
const BARE = path.join(DIST, "bench", "bare-server.js");
const PROFILE = BENCH.cpuProfile;
const PROFILE_DIR = PROFILE ? fs.mkdtempSync(path.join(os.tmpdir(), "project-service-startup-prof-")) : "";

/** CPU time (user + system) a process has used so far, in milliseconds (Linux /proc). */
function cpuMs(pid: number): number {
  const fields = fs.readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1].split(" ");
  // utime and stime are fields 14 and 15 of the line, in clock ticks (100 per second here).
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

interface Start {
  /** Milliseconds from spawning until /readyz answered 200. */
  wall: number;
  /** CPU the process used until then: less disturbed than wall time by other work on a shared machine. */
  cpu: number;
}

/** Spawns `script` and times it until its /readyz answers 200. */
async function coldStart(script: string, env: NodeJS.ProcessEnv, profile: boolean): Promise<Start> {
  const started = performance.now();
  const args = profile ? ["--cpu-prof", `--cpu-prof-dir=${PROFILE_DIR}`, script] : [script];
  const child = spawn(process.execPath, args, { env, stdio: ["ignore", "pipe", "inherit"] });
  try {
    const url = await new Promise<string>((resolve, reject) => {
      readline.createInterface({ input: child.stdout! }).on("line", (line) => {
        const match = /Ready: (http:\/\/[^\s/|]+)/.exec(line);
        if (match) resolve(match[1].replace("localhost", "127.0.0.1"));
      });
      child.once("exit", (code) => reject(new Error(`${path.basename(script)} exited with ${code}`)));
    });
    for (;;) {
      const response = await fetch(`${url}/readyz`).catch(() => undefined);
      if (response?.status === 200) return { wall: performance.now() - started, cpu: cpuMs(child.pid!) };
      await new Promise((resolve) => setTimeout(resolve, 2));
    }
  } finally {
    child.kill("SIGTERM");
    await new Promise((resolve) => child.once("exit", resolve));
  }
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

async function main(): Promise<void> {
  const server = await startBenchServer("startup", { quiet: true });
  const dbUri = databaseUri(server, "bench_startup");
  const env = {
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    MONGODB_URI: dbUri,
    PORT: "0",
    LOG_LEVEL: "info",
    NODE_ENV: BENCH.nodeEnv,
    ...(BENCH.nodeEnv === "production" ? { AUTH_JWT_SECRET: "bench-secret-of-at-least-thirty-two-bytes" } : {}),
  };
  try {
    // As npm start does: the bundle matches dist/ (built again if a tsc run changed dist/ since).
    if (!bundleIsCurrent(path.join(DIST, "src", "main.bundle.js"))) buildBundle(path.join(DIST, "src"));
    // One start of each first, unmeasured: the database creates its collections and indexes, the OS caches files,
    // and the service keeps its bundle's code cache (as the first `npm start` after a build does).
    await coldStart(SERVICE, env, false);
    await coldStart(UNBUNDLED, env, false);
    await coldStart(BARE, env, false);
    const service: Start[] = [];
    const unbundled: Start[] = [];
    const bare: Start[] = [];
    for (let run = 0; run < BENCH.runs; run++) {
      service.push(await coldStart(SERVICE, env, PROFILE));
      unbundled.push(await coldStart(UNBUNDLED, env, false));
      bare.push(await coldStart(BARE, env, false));
      const [s, u, b] = [service.at(-1)!, unbundled.at(-1)!, bare.at(-1)!];
      process.stderr.write(
        `run ${run + 1}/${BENCH.runs}: service ${s.wall.toFixed(0)} ms (CPU ${s.cpu}), from dist/ ${u.wall.toFixed(0)} ms (CPU ${u.cpu}), bare ${b.wall.toFixed(0)} ms (CPU ${b.cpu})\n`,
      );
    }
    console.log(
      `Cold start to /readyz 200, median of ${BENCH.runs} (NODE_ENV=${BENCH.nodeEnv ?? "unset"}, load ${os.loadavg()[0].toFixed(1)}):`,
    );
    for (const measure of ["wall", "cpu"] as const) {
      const [s, u, b] = [service, unbundled, bare].map((starts) => median(starts.map((x) => x[measure])));
      console.log(
        `  ${measure === "wall" ? "wall time" : "CPU time "}: service ${s.toFixed(0)} ms (${(s / b).toFixed(2)}×), from dist/ module by module ${u.toFixed(0)} ms (${(u / b).toFixed(2)}×), bare Fastify + graphql-js + driver ${b.toFixed(0)} ms`,
      );
    }
    if (PROFILE) console.log(`  CPU profiles of the service's starts: ${PROFILE_DIR}`);
  } finally {
    await server.stop();
  }
}

void main().catch((err: unknown) => {
  console.error(err);
  process.exitCode = 1;
});
