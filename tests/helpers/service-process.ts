// The service as a real process (dist/src/index.js: build first), for tests of what an operator sees: its log lines,
// its exit code, its child processes. Requests go over HTTP to the port it reports in its Ready line.
import { spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import http from "node:http";
import path from "node:path";
import readline from "node:readline";

const REPO = path.resolve(__dirname, "../..");

export interface LogEntry {
  level: number;
  msg: string;
  [field: string]: unknown;
}

export interface ServiceProcess {
  child: ChildProcess;
  /** Every JSON log line so far. */
  log: LogEntry[];
  url: string;
  /** Resolves with the exit code (null when a signal ended it), once its output is all read. */
  exited: Promise<number | null>;
  /** SIGTERM, then waits for the exit. */
  stop(): Promise<number | null>;
}

/** The caller's environment without the service's own variables, so each test sets exactly what it means. */
function machineEnv(): NodeJS.ProcessEnv {
  const own =
    /^(PORT|HOST|MONGODB_URI|DATA_DIR|EMBEDDED_DB|NODE_ENV|AUTH_JWT_.*|AUTH_JWKS_URL|PROJECT_STATUS_WORKFLOW|LOG_LEVEL|RATE_LIMIT_PER_MINUTE|TEST_.*)$/;
  return Object.fromEntries(Object.entries(process.env).filter(([name]) => !own.test(name)));
}

/** Starts the service with env (PORT 0, rate limit off) and waits for its Ready line. */
export async function startServiceProcess(env: Record<string, string>): Promise<ServiceProcess> {
  const child = spawn(process.execPath, [path.join(REPO, "dist/src/index.js")], {
    cwd: REPO,
    env: { ...machineEnv(), PORT: "0", RATE_LIMIT_PER_MINUTE: "0", ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  const log: LogEntry[] = [];
  const output: string[] = [];
  // "close", not "exit": by then every line it wrote has been read.
  const exited = new Promise<number | null>((resolve) => child.once("close", (code) => resolve(code)));
  const ready = await new Promise<string>((resolve, reject) => {
    readline.createInterface({ input: child.stdout! }).on("line", (line) => {
      output.push(line);
      try {
        const entry = JSON.parse(line) as LogEntry;
        log.push(entry);
        if (entry.msg.startsWith("Ready:")) resolve(entry.msg);
      } catch {
        // not a log line
      }
    });
    readline.createInterface({ input: child.stderr! }).on("line", (line) => output.push(line));
    void exited.then((code) => reject(new Error(`service exited with ${code}: ${output.join("\n")}`)));
  });
  const url = /Ready: (\S+)\/graphql/.exec(ready)![1];
  return {
    child,
    log,
    url,
    exited,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill("SIGTERM");
      return exited;
    },
  };
}

/** The running children of a process whose command line contains `text` (Linux /proc). */
export function childrenOf(pid: number, text: string): number[] {
  return fs
    .readdirSync("/proc")
    .filter((name) => /^\d+$/.test(name))
    .filter((name) => {
      try {
        const stat = fs.readFileSync(`/proc/${name}/stat`, "utf8");
        const [state, parent] = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
        return (
          Number(parent) === pid && state !== "Z" && fs.readFileSync(`/proc/${name}/cmdline`, "utf8").includes(text)
        );
      } catch {
        return false;
      }
    })
    .map(Number);
}

/** Waits until `condition` holds, checking every 50 ms; the test's own timeout bounds it. */
export async function until(condition: () => boolean | Promise<boolean>): Promise<void> {
  while (!(await condition())) await new Promise((resolve) => setTimeout(resolve, 50));
}

/**
 * A GraphQL request as an admin in header mode: the HTTP status and the body. One connection per request (no
 * keep-alive), so a test that sends thousands never meets a pooled connection the server has just closed as idle.
 */
export function graphqlAsAdmin<T = Record<string, unknown>>(
  url: string,
  query: string,
): Promise<{ status: number; body: { data?: T; errors?: { extensions?: { code?: string } }[] } }> {
  const payload = JSON.stringify({ query });
  return new Promise((resolve, reject) => {
    const request = http.request(
      `${url}/graphql`,
      {
        method: "POST",
        agent: false,
        headers: {
          "content-type": "application/json",
          "content-length": Buffer.byteLength(payload),
          "x-user-role": "admin",
        },
      },
      (response) => {
        let text = "";
        response.setEncoding("utf8");
        response.on("data", (chunk: string) => (text += chunk));
        response.on("end", () => resolve({ status: response.statusCode ?? 0, body: JSON.parse(text) as { data?: T } }));
        response.on("error", reject);
      },
    );
    request.on("error", reject);
    request.end(payload);
  });
}
