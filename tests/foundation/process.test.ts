// When the service runs as a process, then it prints one start-up line (URL, database, auth mode), and on
// SIGTERM it drains, closes the database, stops the embedded database and exits 0 — also when the signal goes to
// `npm start` — and a shutdown that cannot finish ends after its bound with exit code 1.
import { spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import http from "node:http";
import os from "node:os";
import path from "node:path";
import readline from "node:readline";
import { testMongoUri } from "../helpers/database";
import { buildClientSchema, buildSchema, getIntrospectionQuery, printSchema, type IntrospectionQuery } from "graphql";

const REPO = path.resolve(__dirname, "../..");

interface Started {
  child: ChildProcess;
  lines: string[];
  ready: { msg: string; pid: number };
  url: string;
}

/** The caller's environment without the service's own variables, so each test sets exactly what it means. */
function machineEnv(): NodeJS.ProcessEnv {
  const own =
    /^(PORT|HOST|MONGODB_URI|DATA_DIR|EMBEDDED_DB|NODE_ENV|AUTH_JWT_.*|AUTH_JWKS_URL|PROJECT_STATUS_WORKFLOW|LOG_LEVEL|TEST_.*)$/;
  return Object.fromEntries(Object.entries(process.env).filter(([name]) => !own.test(name)));
}

/** The JSON log entry of a line, or undefined for other output (npm's own lines). */
function logEntry(line: string): { msg?: string; pid?: number } | undefined {
  try {
    return JSON.parse(line);
  } catch {
    return undefined;
  }
}

async function startService(
  env: Record<string, string>,
  command = [process.execPath, path.join(REPO, "dist/src/index.js")],
): Promise<Started> {
  const child = spawn(command[0], command.slice(1), {
    cwd: REPO,
    env: { ...machineEnv(), PORT: "0", ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  const lines: string[] = [];
  const ready = await new Promise<{ msg: string; pid: number }>((resolve, reject) => {
    readline.createInterface({ input: child.stdout! }).on("line", (line) => {
      lines.push(line);
      const entry = logEntry(line);
      if (String(entry?.msg).startsWith("Ready:")) resolve(entry as { msg: string; pid: number });
    });
    child.once("exit", (code) => reject(new Error(`service exited with ${code}: ${lines.join("\n")}`)));
  });
  const url = /Ready: (\S+)\/graphql/.exec(ready.msg)![1];
  return { child, lines, ready, url };
}

/** Ids of running processes whose command line contains `text` (Linux /proc). */
function processesWith(text: string): number[] {
  return fs
    .readdirSync("/proc")
    .filter((name) => /^\d+$/.test(name))
    .filter((pid) => {
      try {
        return fs.readFileSync(`/proc/${pid}/cmdline`, "utf8").includes(text);
      } catch {
        return false;
      }
    })
    .map(Number);
}

/** The parent's id of a process, from /proc/<pid>/stat (undefined once it has gone). */
function parentOf(pid: number): number | undefined {
  try {
    return Number(fs.readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1].split(" ")[1]);
  } catch {
    return undefined;
  }
}

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

function exitCode(child: ChildProcess): Promise<number | null> {
  return new Promise((resolve) => child.once("exit", (code) => resolve(code)));
}

describe("service process", () => {
  it("when started on MONGODB_URI, then one line names URL, database and auth mode; SIGTERM exits 0", async () => {
    const uri = `${testMongoUri().replace(/\/$/, "")}/t_process_${process.pid}`;
    const s = await startService({ MONGODB_URI: uri });
    expect(s.ready.msg).toMatch(
      /^Ready: http:\/\/127\.0\.0\.1:\d+\/graphql \| database: MongoDB at MONGODB_URI \| auth: header mode$/,
    );
    expect(s.lines.filter((l) => l.includes("trusted as sent"))).toHaveLength(1);

    const health = await fetch(`${s.url}/readyz`);
    expect(health.status).toBe(200);

    const exited = exitCode(s.child);
    s.child.kill("SIGTERM");
    expect(await exited).toBe(0);
    expect(s.lines.some((l) => JSON.parse(l).msg === "Stopped")).toBe(true);
  });

  it("when a request is in flight at SIGTERM, then it still gets its answer before the process exits", async () => {
    const uri = `${testMongoUri().replace(/\/$/, "")}/t_process_drain_${process.pid}`;
    const s = await startService({ MONGODB_URI: uri });
    const exited = exitCode(s.child);
    // Start the request and send half its body, so it is surely in flight when the signal arrives.
    const body = JSON.stringify({ query: 'mutation { createTeacher(input: { teacher_name: "Late" }) { success } }' });
    let answer = "";
    const request = http.request(`${s.url}/graphql`, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        "content-length": Buffer.byteLength(body),
        "x-user-role": "admin",
      },
    });
    const response = new Promise<number>((resolve, reject) => {
      request.on("response", (res) => {
        res.on("data", (chunk) => (answer += chunk));
        res.on("end", () => resolve(res.statusCode ?? 0));
      });
      request.on("error", reject);
    });
    request.write(body.slice(0, 10));
    await new Promise((r) => setTimeout(r, 200));
    s.child.kill("SIGTERM");
    await new Promise((r) => setTimeout(r, 200));
    request.end(body.slice(10));
    expect(await response).toBe(200);
    expect(JSON.parse(answer).data.createTeacher.success).toBe(true);
    expect(await exited).toBe(0);
  });

  it("when started on the embedded FerretDB, then its files go to DATA_DIR and SIGTERM stops FerretDB too", async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "project-service-proc-"));
    try {
      const s = await startService({ EMBEDDED_DB: "ferretdb", DATA_DIR: dataDir });
      expect(s.ready.msg).toContain(`database: embedded FerretDB 1.24 (SQLite in ${path.join(dataDir, "ferretdb")})`);
      const exited = exitCode(s.child);
      s.child.kill("SIGTERM");
      expect(await exited).toBe(0);
      expect(fs.readdirSync(path.join(dataDir, "ferretdb")).some((f) => f.endsWith(".sqlite"))).toBe(true);
      const { status } = await fetch(`${s.url}/healthz`).catch(() => ({ status: 0 }));
      expect(status).toBe(0);
    } finally {
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  });

  it.each(["SIGTERM", "SIGINT"] as const)(
    "when the npm start process receives %s, then the service and its FerretDB stop: no orphan keeps serving",
    async (signal) => {
      const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "project-service-npm-"));
      try {
        const s = await startService({ EMBEDDED_DB: "ferretdb", DATA_DIR: dataDir }, ["npm", "start", "--silent"]);
        const service = s.ready.pid;
        const [ferretdb] = processesWith(dataDir).filter((pid) => pid !== service && pid !== s.child.pid);
        expect(service).not.toBe(s.child.pid);
        expect(ferretdb).toEqual(expect.any(Number));
        expect((await fetch(`${s.url}/readyz`)).status).toBe(200);

        const exited = exitCode(s.child);
        s.child.kill(signal);
        await exited;

        expect(s.lines.some((l) => logEntry(l)?.msg === "Stopped")).toBe(true);
        expect(isRunning(service)).toBe(false);
        expect(isRunning(ferretdb)).toBe(false);
        const { status } = await fetch(`${s.url}/healthz`).catch(() => ({ status: 0 }));
        expect(status).toBe(0);
      } finally {
        fs.rmSync(dataDir, { recursive: true, force: true });
      }
    },
    // The first `npm start` after a fresh clone compiles dist/ once (scripts/run.js).
    180_000,
  );

  it("when npm start runs after a build, then it bundles, no esbuild stays beside the service, and a later start compiles the bundle from V8's code cache", async () => {
    const uri = `${testMongoUri().replace(/\/$/, "")}/t_process_bundle_${process.pid}`;
    const startedFrom = (s: Started) =>
      s.lines.map((l) => String(logEntry(l)?.msg)).find((msg) => msg.startsWith("Started from"));
    const query = async (s: Started) => {
      const res = await fetch(`${s.url}/graphql`, {
        method: "POST",
        headers: { "content-type": "application/json", "x-user-role": "admin" },
        body: JSON.stringify({ query: "{ projects(limit: 1) { total } teachersConnection(first: 1) { totalCount } }" }),
      });
      return res.json();
    };
    const npmStart = ["npm", "start", "--silent"];
    // Node >= 22: Node's compile cache is on for what require loads beside the bundle.
    const compileCache = Number(process.versions.node.split(".")[0]) >= 22 ? "in \\S+" : "none before Node 22";

    // Without its manifest the bundle counts as stale, as after a tsc run: npm start bundles again first.
    fs.rmSync(path.join(REPO, "dist/src/main.bundle.js.json"), { force: true });
    const first = await startService({ MONGODB_URI: uri, LOG_LEVEL: "debug" }, npmStart);
    expect(first.lines.join("\n")).not.toContain("Started from dist/, module by module");
    expect(startedFrom(first)).toMatch(
      new RegExp(
        `^Started from dist/src/main\\.bundle\\.js \\(V8 code cache (used|written at exit); Node's compile cache ${compileCache}\\)$`,
      ),
    );
    // esbuild runs as a child process of the bundling one, which is the service itself (scripts/run.js).
    expect(processesWith("esbuild").filter((pid) => parentOf(pid) === first.ready.pid)).toEqual([]);
    expect(await query(first)).toEqual({ data: { projects: { total: 0 }, teachersConnection: { totalCount: 0 } } });
    // The bundle keeps no function names of its own (scripts/bundle.ts): the types type-graphql named after classes
    // are the committed schema's.
    const introspection = await fetch(`${first.url}/graphql`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-user-role": "admin" },
      body: JSON.stringify({ query: getIntrospectionQuery({ specifiedByUrl: true }) }),
    });
    const served = printSchema(buildClientSchema(((await introspection.json()) as { data: IntrospectionQuery }).data));
    expect(served).toBe(printSchema(buildSchema(fs.readFileSync(path.join(REPO, "schema/schema.graphql"), "utf8"))));
    let exited = exitCode(first.child);
    first.child.kill("SIGTERM");
    expect(await exited).toBe(0);

    const second = await startService({ MONGODB_URI: uri, LOG_LEVEL: "debug" }, npmStart);
    expect(startedFrom(second)).toMatch(
      new RegExp(
        `^Started from dist/src/main\\.bundle\\.js \\(V8 code cache used; Node's compile cache ${compileCache}\\)$`,
      ),
    );
    expect(await query(second)).toEqual({ data: { projects: { total: 0 }, teachersConnection: { totalCount: 0 } } });
    exited = exitCode(second.child);
    second.child.kill("SIGTERM");
    expect(await exited).toBe(0);
  }, 60_000);

  it("when the service is started as `node dist/src/main.js`, then it starts from dist/, module by module", async () => {
    const uri = `${testMongoUri().replace(/\/$/, "")}/t_process_unbundled_${process.pid}`;
    const s = await startService({ MONGODB_URI: uri, LOG_LEVEL: "debug" }, [
      process.execPath,
      path.join(REPO, "dist/src/main.js"),
    ]);
    expect(s.lines.some((l) => logEntry(l)?.msg === "Started from dist/, module by module")).toBe(true);
    const exited = exitCode(s.child);
    s.child.kill("SIGTERM");
    expect(await exited).toBe(0);
  });

  it("when a request holds the shutdown (its body never completes), then the process exits 1 after the bound with a log line", async () => {
    const uri = `${testMongoUri().replace(/\/$/, "")}/t_process_bound_${process.pid}`;
    const s = await startService({ MONGODB_URI: uri });
    const exited = exitCode(s.child);
    const request = http.request(`${s.url}/graphql`, {
      method: "POST",
      headers: { "content-type": "application/json", "content-length": 1000, "x-user-role": "admin" },
    });
    request.on("error", () => undefined);
    request.write('{"query": "');
    await new Promise((r) => setTimeout(r, 200));

    s.child.kill("SIGTERM");

    expect(await exited).toBe(1);
    expect(s.lines.some((l) => /Shutdown did not finish within 10 s/.test(String(logEntry(l)?.msg)))).toBe(true);
    request.destroy();
  });
});
