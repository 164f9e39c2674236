// When the database stalls (its process paused with SIGSTOP) or disappears, then every request still gets its answer
// after DB_TIMEOUT_MS — INTERNAL_SERVER_ERROR in the mutation payload, as a query error and as a REST 500, with the
// driver's error in the log and not in the answer — /readyz answers 503, and the service recovers when the
// database comes back. The test runs a FerretDB (or mongod) of its own: pausing the run's shared one would stall
// every other test file.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { Writable } from "node:stream";
import type { FastifyInstance } from "fastify";
import pino from "pino";
import { createApp } from "../../src/app";
import { openDatabase, type Database } from "../../src/persistence";
import { loadToolConfig } from "../../src/db/tool-config";
import { startEmbeddedDatabase, type EmbeddedDatabase } from "../../src/db/embedded";
import type { RestBody, TeacherDocumentBody } from "../helpers/app";
import { testAppConfig } from "../helpers/app-config";
import { ADMIN } from "../helpers/fixtures";

const DB_TIMEOUT_MS = 500;
const LEAKS = /Mongo|mongoose|timed out|127\.0\.0\.1|\.sock\b|\n\s+at /i;

describe("a stalled or vanished database", () => {
  let dataDir: string;
  let server: EmbeddedDatabase;
  let db: Database;
  let app: FastifyInstance;
  let url: string;
  const logLines: string[] = [];

  beforeAll(async () => {
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "project-service-stall-"));
    const mode = loadToolConfig().embeddedDb;
    server = await startEmbeddedDatabase({ mode, dataDir, progress: () => undefined });
    db = await openDatabase(server.uri, { dbName: "stall", timeoutMs: DB_TIMEOUT_MS });
    const sink = new Writable({
      write(chunk, _encoding, done) {
        logLines.push(String(chunk));
        done();
      },
    });
    app = await createApp({
      config: testAppConfig(),
      logger: pino({ level: "info" }, sink),
      db,
    });
    await app.listen({ port: 0, host: "127.0.0.1" });
    const address = app.server.address();
    url = `http://127.0.0.1:${typeof address === "object" && address ? address.port : 0}`;
  });

  afterAll(async () => {
    resume();
    await app?.close();
    await db?.close().catch(() => undefined);
    await server?.stop();
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  /** SIGCONT, unless the process is already gone. */
  const resume = () => {
    try {
      if (server?.pid) process.kill(server.pid, "SIGCONT");
    } catch {
      // already stopped
    }
  };

  const graphql = async (query: string) => {
    const res = await fetch(`${url}/graphql`, {
      method: "POST",
      headers: { "content-type": "application/json", ...ADMIN },
      body: JSON.stringify({ query }),
    });
    return { status: res.status, body: (await res.json()) as TeacherDocumentBody };
  };
  const createTeacher = () =>
    graphql('mutation { createTeacher(input: { teacher_name: "Ada" }) { success code message data { teacher_id } } }');
  const readTeacher = () => graphql("{ teacher(teacherId: 1) { teacher_id } }");
  const renameTeacher = async () => {
    const res = await fetch(`${url}/teachers/1`, {
      method: "PUT",
      headers: { "content-type": "application/json", ...ADMIN },
      body: JSON.stringify({ teacher_name: "Grace" }),
    });
    return { status: res.status, body: (await res.json()) as RestBody };
  };
  const ready = async () => (await fetch(`${url}/readyz`)).status;

  /** Polls /readyz until it answers `status` (a bounded number of times: the driver notices a change within ~1 s). */
  async function waitForReadiness(status: number): Promise<number> {
    let last = 0;
    for (let i = 0; i < 40 && last !== status; i++) {
      last = await ready();
      if (last !== status) await new Promise((r) => setTimeout(r, 250));
    }
    return last;
  }

  it("when the database is paused, then requests fail with INTERNAL_SERVER_ERROR instead of waiting, /readyz is 503, and all recover on resume", async () => {
    expect((await createTeacher()).body.data!.createTeacher.success).toBe(true);
    expect(await ready()).toBe(200);
    expect(server.pid).toEqual(expect.any(Number));

    process.kill(server.pid!, "SIGSTOP");
    try {
      // Each of these would wait for as long as the database stays paused without the driver's timeouts.
      const mutation = await createTeacher();
      expect(mutation.status).toBe(200);
      expect(mutation.body.data!.createTeacher).toMatchObject({
        success: false,
        code: "INTERNAL_SERVER_ERROR",
        data: null,
      });
      expect(mutation.body.data!.createTeacher.message).not.toMatch(LEAKS);

      const query = await readTeacher();
      expect(query.body.errors![0].extensions!.code).toBe("INTERNAL_SERVER_ERROR");
      expect(query.body.errors![0].message).not.toMatch(LEAKS);

      const rest = await renameTeacher();
      expect(rest.status).toBe(500);
      expect(rest.body).toMatchObject({ success: false, code: "INTERNAL_SERVER_ERROR" });
      expect(rest.body.message).not.toMatch(LEAKS);

      expect(await ready()).toBe(503);
      const readiness = await fetch(`${url}/readyz`);
      expect(readiness.status).toBe(503);
      expect(await readiness.json()).toMatchObject({
        success: false,
        code: "INTERNAL_SERVER_ERROR",
        status: "unavailable",
      });
      // /healthz does not depend on the database.
      expect((await fetch(`${url}/healthz`)).status).toBe(200);
    } finally {
      resume();
    }

    // The failures are logged with the driver's own error, which the answers above did not carry.
    const internal = logLines.filter((line) => line.includes('"internal error"'));
    expect(internal.length).toBeGreaterThanOrEqual(3);
    expect(internal.some((line) => /Mongo\w*Error|PoolCleared|timed out/i.test(line))).toBe(true);

    expect(await waitForReadiness(200)).toBe(200);
    const after = await createTeacher();
    expect(after.body.data!.createTeacher.success).toBe(true);
    expect((await renameTeacher()).status).toBe(200);
  });

  it("when the database process is gone, then requests fail with INTERNAL_SERVER_ERROR and /readyz is 503", async () => {
    await server.stop();

    const mutation = await createTeacher();
    expect(mutation.body.data!.createTeacher).toMatchObject({ success: false, code: "INTERNAL_SERVER_ERROR" });
    expect((await readTeacher()).body.errors![0].extensions!.code).toBe("INTERNAL_SERVER_ERROR");
    expect((await renameTeacher()).status).toBe(500);
    expect(await waitForReadiness(503)).toBe(503);
  });
});
