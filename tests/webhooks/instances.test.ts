// Webhooks with real service processes (dist/src/index.js) on one database by MONGODB_URI, as a deployment runs
// them: a process killed with SIGKILL between a change's commit and its delivery loses nothing (another instance
// delivers it once the dead one's lease runs out), and two instances on one database deliver every change exactly
// once between them (one attempt at a time: the endpoint's lease). Receivers are real, verifying with standardwebhooks.
import { spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import readline from "node:readline";
import { dropTestDatabase, openTestDatabase, testDbName, testMongoUri } from "../helpers/database";
import { newSecret, startReceiver, verified, type Receiver } from "../helpers/webhook-receiver";
import { projectInput } from "../operations/support";

const REPO = path.resolve(__dirname, "../..");
const HEADERS = { "content-type": "application/json", "x-user-role": "admin" };

interface Instance {
  child: ChildProcess;
  url: string;
}

function webhooksFile(endpoints: unknown[]): string {
  const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "webhooks-")), "webhooks.json");
  fs.writeFileSync(file, JSON.stringify({ endpoints }));
  return file;
}

async function startInstance(uri: string, env: Record<string, string>): Promise<Instance> {
  const inherited = Object.fromEntries(
    Object.entries(process.env).filter(([name]) => !/^(PORT|MONGODB_URI|DATA_DIR|TEST_.*|WEBHOOKS.*)$/.test(name)),
  );
  const child = spawn(process.execPath, [path.join(REPO, "dist/src/index.js")], {
    cwd: REPO,
    env: {
      ...inherited,
      PORT: "0",
      MONGODB_URI: uri,
      RATE_LIMIT_PER_MINUTE: "0",
      LOG_LEVEL: "info",
      SUBSCRIPTION_POLL_MS: "50",
      WEBHOOKS_RETRY_SCALE: "0.0001",
      WEBHOOKS_LEASE_MS: "2000",
      ...env,
    },
    stdio: ["ignore", "pipe", "inherit"],
  });
  const url = await new Promise<string>((resolve, reject) => {
    const lines: string[] = [];
    readline.createInterface({ input: child.stdout! }).on("line", (line) => {
      lines.push(line);
      const ready = /"msg":"Ready: (http:\/\/[^/]+)\/graphql/.exec(line);
      if (ready) resolve(ready[1]);
    });
    child.once("exit", (code) => reject(new Error(`instance exited with ${code}: ${lines.join("\n")}`)));
  });
  return { child, url };
}

async function stop(instance: Instance, signal: NodeJS.Signals = "SIGTERM"): Promise<void> {
  if (instance.child.exitCode !== null || instance.child.signalCode !== null) return;
  const exited = new Promise((resolve) => instance.child.once("exit", resolve));
  instance.child.kill(signal);
  await exited;
}

async function call(url: string, method: string, body: unknown): Promise<{ status: number; body: unknown }> {
  const response = await fetch(url, { method, headers: HEADERS, body: JSON.stringify(body) });
  return { status: response.status, body: await response.json() };
}

async function createProject(url: string): Promise<number> {
  const made = await call(`${url}/projects`, "POST", projectInput());
  expect(made.status).toBe(201);
  return (made.body as { data: { project_id: number } }).data.project_id;
}

describe("webhooks across service processes", () => {
  const dbName = testDbName();
  const uri = `${testMongoUri().replace(/\/$/, "")}/${dbName}`;
  const instances: Instance[] = [];
  const receivers: Receiver[] = [];
  afterEach(async () => {
    await Promise.all(instances.splice(0).map((i) => stop(i)));
    await Promise.all(receivers.splice(0).map((r) => r.close()));
  });
  afterAll(async () => {
    const db = await openTestDatabase(dbName);
    await dropTestDatabase(db);
  });

  it("when the instance is killed with SIGKILL while its change is being delivered, then another instance on the database delivers it (same webhook-id)", async () => {
    const secret = newSecret();
    const receiver = await startReceiver((n) => (n === 1 ? "hang" : { status: 200 }));
    receivers.push(receiver);
    const file = webhooksFile([{ id: "crash", url: receiver.url, secret }]);
    const first = await startInstance(uri, { WEBHOOKS: file });
    instances.push(first);

    const projectId = await createProject(first.url);
    // The change is committed and its first attempt is under way (the receiver holds it): kill the process now.
    const [held] = await receiver.waitFor(1);
    await stop(first, "SIGKILL");

    const second = await startInstance(uri, { WEBHOOKS: file });
    instances.push(second);
    const [, delivered] = await receiver.waitFor(2, 30_000);
    expect(delivered.headers["webhook-id"]).toBe(held.headers["webhook-id"]);
    expect(verified(secret, delivered)).toMatchObject({ type: "project.created", data: { project_id: projectId } });
  }, 60_000);

  it("when two instances share the database and both take changes, then every change is delivered exactly once, in order per project", async () => {
    const secret = newSecret();
    const receiver = await startReceiver();
    receivers.push(receiver);
    const file = webhooksFile([{ id: "shared", url: receiver.url, secret }]);
    const pair = await Promise.all([startInstance(uri, { WEBHOOKS: file }), startInstance(uri, { WEBHOOKS: file })]);
    instances.push(...pair);

    const projects = await Promise.all(pair.map((instance) => createProject(instance.url)));
    await Promise.all(
      pair.flatMap((instance, i) =>
        projects.flatMap((projectId) =>
          Array.from({ length: 5 }, (_, k) =>
            call(`${instance.url}/projects/${projectId}/updateStatus`, "PUT", { project_status: `s${i}-${k}` }),
          ),
        ),
      ),
    );
    // 2 creations and 2 x 2 x 5 status changes.
    const all = await receiver.waitFor(22, 30_000);
    // A little longer: nothing arrives twice.
    await new Promise((resolve) => setTimeout(resolve, 1000));
    expect(receiver.received).toHaveLength(22);
    const ids = all.map((r) => r.headers["webhook-id"]);
    expect(new Set(ids).size).toBe(22);
    for (const projectId of projects) {
      const revisions = all
        .map((r) => verified(secret, r))
        .filter((b) => b.data.project_id === projectId)
        .map((b) => b.data.change.revision);
      expect(revisions).toEqual(Array.from({ length: 11 }, (_, i) => i + 1));
    }
  }, 90_000);

  it.each([
    ["not JSON", "{", "Invalid WEBHOOKS"],
    [
      "an unknown event",
      JSON.stringify({
        endpoints: [
          {
            id: "a",
            url: "https://example.org/h",
            secret: "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw",
            events: ["project.renamed"],
          },
        ],
      }),
      "endpoints[0].events[0]: unknown event",
    ],
    [
      "an unknown field",
      JSON.stringify({
        endpoints: [
          { id: "a", url: "https://example.org/h", secret: "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw", retries: 3 },
        ],
      }),
      "endpoints[0].retries: unknown field",
    ],
    [
      "a duplicate id",
      JSON.stringify({
        endpoints: [
          { id: "a", url: "https://example.org/h", secret: "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw" },
          { id: "a", url: "https://example.org/i", secret: "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw" },
        ],
      }),
      'endpoints[1].id: "a" is the id of an earlier endpoint',
    ],
    [
      "a bad URL",
      JSON.stringify({
        endpoints: [{ id: "a", url: "ftp://example.org/h", secret: "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw" }],
      }),
      "endpoints[0].url: expected an absolute https URL",
    ],
    [
      "a short secret",
      JSON.stringify({ endpoints: [{ id: "a", url: "https://example.org/h", secret: "whsec_c2hvcnQ=" }] }),
      'endpoints[0].secret: expected "whsec_" and the base64 of 24 to 64 random bytes (value hidden',
    ],
    [
      "a bad where",
      JSON.stringify({
        endpoints: [
          {
            id: "a",
            url: "https://example.org/h",
            secret: "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw",
            where: { or: [{}, {}, { end_date: { gte: "2025-02-30" } }] },
          },
        ],
      }),
      "endpoints[0].where.or[2].end_date.gte: expected a calendar date",
    ],
  ])(
    "when WEBHOOKS holds %s, then the process stops at start with one line naming the place",
    async (_what, text, expected) => {
      const file = webhooksFile([]);
      fs.writeFileSync(file, text);
      const child = spawn(process.execPath, [path.join(REPO, "dist/src/index.js")], {
        cwd: REPO,
        env: { ...process.env, PORT: "0", MONGODB_URI: uri, WEBHOOKS: file, WEBHOOKS_ALLOW_PRIVATE: "false" },
        stdio: ["ignore", "pipe", "pipe"],
      });
      let stderr = "";
      child.stderr!.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
      const code = await new Promise((resolve) => child.once("exit", resolve));
      expect(code).toBe(1);
      const lines = stderr.trim().split("\n");
      expect(lines).toHaveLength(1);
      expect(lines[0]).toContain(`Invalid WEBHOOKS (${JSON.stringify(file)}): `);
      expect(lines[0]).toContain(expected);
      // A secret never shows.
      expect(lines[0]).not.toContain("MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw");
      expect(lines[0]).not.toContain("c2hvcnQ");
    },
  );
});
