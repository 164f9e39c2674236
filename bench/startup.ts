// npm run bench:startup: how long a cold start takes until GET /readyz answers 200, on each Node of BENCH_NODES
// (default: the one running the bench), in turn, BENCH_RUNS rounds, every variant once per round:
// - the service as `npm start` and the container start it (`node dist/src/index.js`: from its bundle with V8's
//   code cache, src/start-bundle.ts);
// - on Node >= 22 also the bundle with Node's compile cache (module.enableCompileCache) instead of V8's code cache;
// - the bundle with no cache (`node dist/src/main.bundle.js`), the service from dist/ module by module
//   (`node dist/src/main.js`), and a bare reference server (Fastify + graphql-js + the MongoDB driver,
//   bench/bare-server.ts);
// all on the same running database (the embedded one, or MONGODB_URI). Prints the medians, the ratios to the bare
// server on the same Node, and the load average. With BENCH_CPU_PROF=1 each run of the service also writes a V8 CPU
// profile (node --cpu-prof) into a folder it names, for a look at where the start-up time goes (Chrome DevTools'
// Performance tab opens them).
import { execFileSync, spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import readline from "node:readline";
import { loadBenchConfig } from "./bench-config";
import { databaseUri, startBenchServer } from "./bench-database";
import { buildBundle } from "../scripts/bundle";
import { bundleIsCurrent } from "../src/start-bundle";
import { startNodeArgs } from "./service-process";

const BENCH = loadBenchConfig();
const DIST = path.join(__dirname, "..");
const SERVICE = path.join(DIST, "src", "index.js");
const UNBUNDLED = path.join(DIST, "src", "main.js");
const BUNDLE = path.join(DIST, "src", "main.bundle.js");
const BARE = path.join(DIST, "bench", "bare-server.js");
/** The bundle loaded by `require` with Node's compile cache on (Node >= 22), instead of V8's code cache. */
const COMPILE_CACHE_PROGRAM = `require("node:module").enableCompileCache(); require(${JSON.stringify(BUNDLE)})`;
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

interface Variant {
  name: string;
  node: string;
  /** What follows `node` on the command line. */
  args: string[];
  profile?: boolean;
}

/** Spawns the variant and times it until its /readyz answers 200. */
async function coldStart(variant: Variant, env: NodeJS.ProcessEnv): Promise<Start> {
  const started = performance.now();
  const profile = variant.profile && PROFILE ? ["--cpu-prof", `--cpu-prof-dir=${PROFILE_DIR}`] : [];
  const child = spawn(variant.node, [...profile, ...variant.args], { env, stdio: ["ignore", "pipe", "inherit"] });
  try {
    const url = await new Promise<string>((resolve, reject) => {
      readline.createInterface({ input: child.stdout! }).on("line", (line) => {
        const match = /Ready: (http:\/\/[^\s/|]+)/.exec(line);
        if (match) resolve(match[1].replace("localhost", "127.0.0.1"));
      });
      child.once("exit", (code) => reject(new Error(`${variant.name} exited with ${code}`)));
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
    if (!bundleIsCurrent(BUNDLE)) await buildBundle(path.join(DIST, "src"));
    const variants: Variant[] = [];
    for (const node of BENCH.nodes.length > 0 ? BENCH.nodes : [process.execPath]) {
      const version = execFileSync(node, ["--version"], { encoding: "utf8" }).trim();
      const major = Number(/^v(\d+)/.exec(version)![1]);
      variants.push({
        name: `${version} service (npm start: bundle, V8 code cache)`,
        node,
        args: [...startNodeArgs(path.join(DIST, "..")), SERVICE],
        profile: true,
      });
      if (major >= 22) {
        variants.push({ name: `${version} bundle, Node's compile cache`, node, args: ["-e", COMPILE_CACHE_PROGRAM] });
      }
      variants.push({ name: `${version} bundle, no cache`, node, args: [BUNDLE] });
      variants.push({ name: `${version} from dist/ module by module`, node, args: [UNBUNDLED] });
      variants.push({ name: `${version} bare Fastify + graphql-js + driver`, node, args: [BARE] });
    }
    // One start of each first, unmeasured: the database creates its collections and indexes, the OS caches files,
    // and the caches of compiled code are written (as by the first `npm start` after a build).
    for (const variant of variants) await coldStart({ ...variant, profile: false }, env);
    const starts = new Map<Variant, Start[]>(variants.map((variant) => [variant, []]));
    for (let run = 0; run < BENCH.runs; run++) {
      const line: string[] = [];
      for (const variant of variants) {
        const start = await coldStart(variant, env);
        starts.get(variant)!.push(start);
        line.push(`${variant.name} ${start.wall.toFixed(0)} ms (CPU ${start.cpu})`);
      }
      process.stderr.write(`run ${run + 1}/${BENCH.runs}: ${line.join(", ")}\n`);
    }
    const load = os
      .loadavg()
      .map((l) => l.toFixed(1))
      .join(" ");
    console.log(
      `Cold start to /readyz 200, median of ${BENCH.runs} (NODE_ENV=${BENCH.nodeEnv ?? "unset"}, load average ${load}, ${os.cpus().length} CPUs):`,
    );
    console.log("| variant | wall | CPU | ratio to bare on the same Node (wall / CPU) |\n|---|---|---|---|");
    const medians = (variant: Variant) => ({
      wall: median(starts.get(variant)!.map((s) => s.wall)),
      cpu: median(starts.get(variant)!.map((s) => s.cpu)),
    });
    for (const variant of variants) {
      const bare = medians(variants.find((v) => v.node === variant.node && v.args[0] === BARE)!);
      const { wall, cpu } = medians(variant);
      console.log(
        `| ${variant.name} | ${wall.toFixed(0)} ms | ${cpu.toFixed(0)} ms | ${(wall / bare.wall).toFixed(2)}× / ${(cpu / bare.cpu).toFixed(2)}× |`,
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
