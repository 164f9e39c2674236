// The bench's configuration (npm run bench, bench:limits, bench:connections): the tools' database variables (src/db/tool-config.ts)
// and the BENCH_* knobs, validated like every variable (one line naming a bad one).
import { z } from "zod";
import { loadToolConfig, TOOL_VARIABLES, type ToolConfig } from "../src/db/tool-config";
import { oneOf, optionalString, parseEnv, wholeNumber } from "../src/shared/environment";

export interface BenchConfig extends ToolConfig {
  /** BENCH_CONCURRENCY: requests in flight at once (default 10). */
  concurrency: number;
  /** BENCH_REQUESTS: requests per measured operation (default 400). */
  requests: number;
  /** BENCH_PROJECTS: projects in the database while measuring (default: just those the bench creates). */
  projects: number;
  /** BENCH_POOL_SIZE: the connection pool instead of the service's choice. */
  poolSize?: number;
  /** BENCH_RUNS: runs per query in bench:limits and bench:connections (default 10). */
  runs: number;
  /** BENCH_PUSHDOWN=off: the embedded FerretDB without its pushdown to SQLite, as FerretDB itself (default on). */
  ferretdbPushdown: boolean;
  /** BENCH_CPU_PROF=1: bench:startup writes a V8 CPU profile of each start of the service (default off). */
  cpuProfile: boolean;
  /** BENCH_NODES: comma-separated Node binaries bench:startup compares (default: the Node running it). */
  nodes: string[];
  /** NODE_ENV, only printed with the results. */
  nodeEnv?: string;
}

const BENCH_VARIABLES = z.object({
  ...TOOL_VARIABLES.shape,
  BENCH_CONCURRENCY: wholeNumber(10, 1, 1000),
  BENCH_REQUESTS: wholeNumber(400, 1, 1_000_000),
  BENCH_PROJECTS: wholeNumber(0, 0, 10_000_000),
  BENCH_POOL_SIZE: wholeNumber(0, 1, 1000),
  BENCH_RUNS: wholeNumber(10, 1, 10_000),
  BENCH_PUSHDOWN: oneOf(["on", "off"], "on"),
  BENCH_CPU_PROF: oneOf(["0", "1"], "0"),
  BENCH_NODES: optionalString,
  NODE_ENV: optionalString,
});

export function loadBenchConfig(env: NodeJS.ProcessEnv = process.env): BenchConfig {
  const e = parseEnv(BENCH_VARIABLES, env);
  return {
    ...loadToolConfig(env),
    concurrency: e.BENCH_CONCURRENCY,
    requests: e.BENCH_REQUESTS,
    projects: e.BENCH_PROJECTS,
    poolSize: e.BENCH_POOL_SIZE === 0 ? undefined : e.BENCH_POOL_SIZE,
    runs: e.BENCH_RUNS,
    ferretdbPushdown: e.BENCH_PUSHDOWN === "on",
    cpuProfile: e.BENCH_CPU_PROF === "1",
    nodes: e.BENCH_NODES ? e.BENCH_NODES.split(",").map((node) => node.trim()) : [],
    nodeEnv: e.NODE_ENV,
  };
}
