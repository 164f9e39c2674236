// When the embedded FerretDB runs as a child of the service, then it listens on a Unix socket only its user may
// connect to, it never outlives its parent (a parent killed without any chance to clean up still leaves no FerretDB
// behind), a second one refuses the data folder the first serves, and Go runs it with the settings startFerretDb chose.
import { spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import readline from "node:readline";
import { MongoClient } from "mongodb";
import { ferretDbBinaryPath, startFerretDb } from "../../src/db/ferretdb";

const REPO = path.resolve(__dirname, "../..");

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

async function waitFor(condition: () => boolean, ms: number): Promise<boolean> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (condition()) return true;
    await new Promise((r) => setTimeout(r, 100));
  }
  return condition();
}

describe("embedded FerretDB process", () => {
  it("when the parent process is killed with SIGKILL, then the FerretDB child exits by itself and leaves no socket or socket folder", async () => {
    // Upper case in the path: the socket lies in a temporary folder of its own, which no parent is left to remove.
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "project-service-Orphan-"));
    // A parent that starts FerretDB the way the service does, prints the child's pid and URI, then waits.
    const script = `
      const { startFerretDb } = require(${JSON.stringify(path.join(REPO, "dist/src/db/ferretdb.js"))});
      startFerretDb(${JSON.stringify(dataDir)}, () => {}).then((db) => {
        const { execSync } = require("node:child_process");
        const pid = execSync("pgrep -P " + process.pid).toString().trim().split("\\n")[0];
        console.log(pid + " " + db.uri);
        setInterval(() => {}, 1000);
      });`;
    const parent = spawn(process.execPath, ["-e", script], { stdio: ["ignore", "pipe", "inherit"] });
    const line = await new Promise<string>((resolve) =>
      readline.createInterface({ input: parent.stdout! }).once("line", resolve),
    );
    const [pidText, uri] = line.split(" ");
    const childPid = Number(pidText);
    // A Unix socket (its path escaped as the URI's host), which only this user may connect to (write permission).
    expect(uri).toMatch(/^mongodb:\/\/%2F[^/]+%2Fmongodb\.sock\/$/);
    const socket = decodeURIComponent(new URL(uri).host);
    expect(path.basename(path.dirname(socket))).toMatch(/^ferretdb-[0-9a-f]{12}$/);
    expect(fs.statSync(socket).isSocket()).toBe(true);
    expect(fs.statSync(socket).mode & 0o777).toBe(0o600);
    expect(alive(childPid)).toBe(true);

    parent.kill("SIGKILL");
    expect(await waitFor(() => !alive(childPid), 10_000)).toBe(true);
    expect(fs.existsSync(socket)).toBe(false);
    expect(fs.existsSync(path.dirname(socket))).toBe(false);
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  it("when a second FerretDB starts on the data folder a running one serves, then it refuses with one line and the first still answers", async () => {
    // A lower-case path, short enough: the socket lies in the data folder itself (else each would get its own).
    const dataDir = path.join("/tmp", `embedded-twice-${process.pid}`);
    fs.rmSync(dataDir, { recursive: true, force: true });
    const first = await startFerretDb(dataDir, () => {});
    try {
      const second = startFerretDb(dataDir, () => {});

      await expect(second).rejects.toThrow(
        `another FerretDB serves ${dataDir} already (its socket ${path.join(dataDir, "mongodb.sock")} answers): stop it first`,
      );
      const client = new MongoClient(first.uri, { serverSelectionTimeoutMS: 5000 });
      try {
        expect(await client.db("admin").command({ ping: 1 })).toMatchObject({ ok: 1 });
      } finally {
        await client.close();
      }
    } finally {
      await first.stop();
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  });

  it("when FerretDB starts, then Go runs it with one processor and the collector's settings, unless the environment sets them", async () => {
    const goEnvOf = (pid: number) =>
      Object.fromEntries(
        fs
          .readFileSync(`/proc/${pid}/environ`, "utf8")
          .split("\0")
          .map((entry) => entry.split("="))
          .filter(([name]) => ["GOMAXPROCS", "GOGC", "GOMEMLIMIT"].includes(name)),
      );
    const saved = { GOMAXPROCS: process.env.GOMAXPROCS, GOGC: process.env.GOGC };
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "project-service-goenv-"));
    try {
      delete process.env.GOMAXPROCS;
      delete process.env.GOGC;
      const first = await startFerretDb(path.join(dataDir, "a"), () => {});
      try {
        expect(goEnvOf(first.pid!)).toEqual({ GOMAXPROCS: "1", GOGC: "400", GOMEMLIMIT: "512MiB" });
      } finally {
        await first.stop();
      }
      process.env.GOMAXPROCS = "2";
      const second = await startFerretDb(path.join(dataDir, "b"), () => {});
      try {
        expect(goEnvOf(second.pid!)).toMatchObject({ GOMAXPROCS: "2", GOGC: "400" });
      } finally {
        await second.stop();
      }
    } finally {
      for (const [name, value] of Object.entries(saved)) {
        if (value === undefined) delete process.env[name];
        else process.env[name] = value;
      }
      fs.rmSync(dataDir, { recursive: true, force: true });
    }
  });

  it("when the binary path is computed, then it lies in a cache outside the clone, keyed by the Go sources", () => {
    const binary = ferretDbBinaryPath();
    expect(binary.startsWith(REPO + path.sep)).toBe(false);
    expect(path.basename(path.dirname(binary))).toMatch(/^ferretdb-[0-9a-f]{16}$/);
  });
});
