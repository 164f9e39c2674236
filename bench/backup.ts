// npm run bench:backup: db:backup and db:restore at scale on the embedded FerretDB. Seeds BENCH_PROJECTS projects
// (each with its creation in the change log) into a fresh data directory, starts the service on it, and measures a
// project by id at 16 connections for BENCH_SECONDS alone, then while `npm run db:backup` runs beside it (the script
// itself, as a user runs it). Prints the backup's time and size, requests/s, p50 and p99 alone and during the
// backup, then the restore's time into another empty data directory and whether db:check passes there. No pass/fail.
import { spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { z } from "zod";
import { DEFAULT_DB_NAME } from "../src/db/database";
import { startFerretDb } from "../src/db/ferretdb";
import { openDatabase } from "../src/persistence";
import { parseEnv, wholeNumber } from "../src/shared/environment";
import { seedProjects } from "./bench-database";
import { startServiceProcess } from "./service-process";

const ENV = parseEnv(
  z.object({
    BENCH_PROJECTS: wholeNumber(100_000, 1, 10_000_000),
    BENCH_SECONDS: wholeNumber(10, 1, 600),
  }),
  process.env,
);
const ROOT = path.resolve(__dirname, "..", "..");
const CONNECTIONS = 16;
const PORT = 4620;
const URL_BASE = `http://127.0.0.1:${PORT}`;

const say = (message: string) => process.stderr.write(`${message}\n`);

function script(
  name: string,
  args: string[],
  env: Record<string, string>,
): { child: ChildProcess; done: Promise<number | null> } {
  const child = spawn(process.execPath, [path.join(ROOT, "dist", "scripts", `${name}.js`), ...args], {
    cwd: ROOT,
    env: { ...process.env, MONGODB_URI: "", EMBEDDED_DB: "ferretdb", LOG_LEVEL: "warn", ...env },
    stdio: ["ignore", "inherit", "pipe"],
  });
  child.stderr!.on("data", (chunk: Buffer) =>
    process.stderr.write(`  [${name}] ${chunk.toString().trimEnd().replace(/\n/g, `\n  [${name}] `)}\n`),
  );
  return { child, done: new Promise((resolve) => child.on("exit", resolve)) };
}

async function startService(dataDir: string): Promise<ChildProcess> {
  return (await startServiceProcess("the service", ROOT, PORT, dataDir, 600_000)).process;
}

interface Load {
  perSecond: number;
  p50: number;
  p99: number;
  failed: number;
}

/** A project by id at 16 connections until `until` resolves; latencies in ms. */
async function load(until: Promise<unknown>): Promise<Load> {
  const latencies: number[] = [];
  let failed = 0;
  let done = false;
  void until.then(() => (done = true));
  const started = performance.now();
  const worker = async () => {
    while (!done) {
      const t = performance.now();
      const ok = await fetch(`${URL_BASE}/graphql`, {
        method: "POST",
        headers: { "content-type": "application/json", "x-user-role": "admin" },
        body: JSON.stringify({
          query: "query ($id: Int!) { project(projectId: $id) { project_id project_name project_status revision } }",
          variables: { id: 1 + Math.floor(Math.random() * ENV.BENCH_PROJECTS) },
        }),
      }).then(
        async (r) => r.ok && !((await r.json()) as { errors?: unknown }).errors,
        () => false,
      );
      latencies.push(performance.now() - t);
      if (!ok) failed++;
    }
  };
  await Promise.all(Array.from({ length: CONNECTIONS }, worker));
  const seconds = (performance.now() - started) / 1000;
  latencies.sort((a, b) => a - b);
  const at = (q: number) => latencies[Math.min(latencies.length - 1, Math.floor(latencies.length * q))] ?? 0;
  return { perSecond: latencies.length / seconds, p50: at(0.5), p99: at(0.99), failed };
}

function sizeOf(dir: string): number {
  let total = 0;
  for (const entry of fs.readdirSync(dir, { recursive: true }) as string[]) {
    const stat = fs.statSync(path.join(dir, entry));
    if (stat.isFile()) total += stat.size;
  }
  return total;
}

const mib = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MiB`;
const row = (name: string, l: Load) =>
  `${name.padEnd(22)} ${l.perSecond.toFixed(0).padStart(7)} req/s  p50 ${l.p50.toFixed(1).padStart(6)} ms  p99 ${l.p99.toFixed(1).padStart(7)} ms  failed ${l.failed}`;

async function main(): Promise<void> {
  const work = fs.mkdtempSync(path.join(os.tmpdir(), "bench-backup-"));
  const dataDir = path.join(work, "data");
  const backupDir = path.join(work, "backup");
  const restoredDir = path.join(work, "restored");
  const loadBefore = os.loadavg();
  let service: ChildProcess | undefined;
  try {
    const server = await startFerretDb(path.join(dataDir, "ferretdb"), say);
    const db = await openDatabase(server.uri, { dbName: DEFAULT_DB_NAME });
    await seedProjects(db, ENV.BENCH_PROJECTS, {
      companies: 50,
      statuses: ["active", "planned", "done"],
      teachers: null,
    });
    await db.close();
    await server.stop();
    const dataSize = sizeOf(dataDir);

    service = await startService(dataDir);
    await load(new Promise((resolve) => setTimeout(resolve, 2000))); // warm-up
    const alone = await load(new Promise((resolve) => setTimeout(resolve, ENV.BENCH_SECONDS * 1000)));

    const startedBackup = performance.now();
    const backup = script("db-backup", [backupDir], { DATA_DIR: dataDir });
    const during = await load(backup.done);
    const backupSeconds = (performance.now() - startedBackup) / 1000;
    if ((await backup.done) !== 0) throw new Error("db:backup failed");
    service.kill("SIGTERM");
    await new Promise((resolve) => service!.once("exit", resolve));
    service = undefined;

    const startedRestore = performance.now();
    const restore = script("db-restore", [backupDir], { DATA_DIR: restoredDir });
    if ((await restore.done) !== 0) throw new Error("db:restore failed");
    const restoreSeconds = (performance.now() - startedRestore) / 1000;
    const check = await script("db-check", [], { DATA_DIR: restoredDir }).done;

    const manifest = JSON.parse(fs.readFileSync(path.join(backupDir, "manifest.json"), "utf8")) as {
      collections: Record<string, { count: number }>;
    };
    process.stdout.write(
      `\nbench:backup — ${ENV.BENCH_PROJECTS} projects; data directory ${mib(dataSize)}; node ${process.version}; ${os.cpus().length} cores; load average ${loadBefore.map((l) => l.toFixed(2)).join(" ")} before, ${os
        .loadavg()
        .map((l) => l.toFixed(2))
        .join(" ")} after\n` +
        `db:backup   ${backupSeconds.toFixed(1)} s, ${mib(sizeOf(backupDir))} (${Object.entries(manifest.collections)
          .map(([name, c]) => `${name} ${c.count}`)
          .join(", ")})\n` +
        `db:restore  ${restoreSeconds.toFixed(1)} s into an empty embedded database; db:check there exited ${check}\n` +
        `project by id, ${CONNECTIONS} connections:\n${row("alone", alone)}\n${row("during db:backup", during)}\n`,
    );
  } finally {
    if (service) service.kill("SIGTERM");
    fs.rmSync(work, { recursive: true, force: true });
  }
}

main().catch((err: unknown) => {
  process.stderr.write(`bench:backup failed: ${(err as Error).stack ?? String(err)}\n`);
  process.exit(1);
});
