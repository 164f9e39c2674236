// When the embedded database's process dies while the service runs (kill -9, as a crash or the OOM killer would),
// then the service logs one line naming the signal, answers every request at once with the documented failure and
// /readyz 503 meanwhile, starts the database again on the same data and socket, answers again, and has lost no
// acknowledged write; /metrics counts the restart. A database that dies again and again (5 times within 2 minutes)
// makes the service exit 1 with one line, through its normal shutdown. The service runs as a real process
// (dist/src/index.js), on a data folder of its own.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import {
  childrenOf,
  graphqlAsAdmin,
  startServiceProcess,
  until,
  type ServiceProcess,
} from "../helpers/service-process";

const KIND = process.env.TEST_DATABASE_KIND === "mongod" ? "mongod" : "ferretdb";
const CHILD_COMMAND = KIND === "ferretdb" ? "ferretdb-embedded" : "mongod";
const EXITED =
  /^The embedded (FerretDB|mongod) exited \(signal SIGKILL\); starting it again on the same data and address in \d+ s/;

interface Answer {
  /** ms since the start of the load */
  at: number;
  ms: number;
  success: boolean;
  code: string | null;
  teacherId?: number;
}

describe("a supervised embedded database", () => {
  let dataDir: string;
  let service: ServiceProcess | undefined;

  beforeEach(() => {
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "project-service-supervised-"));
  });
  afterEach(async () => {
    await service?.stop();
    service = undefined;
    fs.rmSync(dataDir, { recursive: true, force: true });
  });

  const start = async () =>
    (service = await startServiceProcess({ DATA_DIR: dataDir, EMBEDDED_DB: KIND, LOG_LEVEL: "info" }));
  const theChild = (s: ServiceProcess) => childrenOf(s.child.pid!, CHILD_COMMAND)[0];
  const ready = async (s: ServiceProcess) => (await fetch(`${s.url}/readyz`)).status === 200;

  it("when its process is killed with SIGKILL under load, then the service fails fast meanwhile, answers again, and every acknowledged write is stored", async () => {
    const s = await start();
    const answers: Answer[] = [];
    const began = performance.now();
    let loading = true;
    const worker = async (n: number) => {
      for (let i = 0; loading; i++) {
        const sent = performance.now();
        const { status, body } = await graphqlAsAdmin<{
          createTeacher: { success: boolean; code: string | null; data: { teacher_id: number } | null };
        }>(
          s.url,
          `mutation { createTeacher(input: { teacher_name: "Load ${n}-${i}" }) { success code data { teacher_id } } }`,
        );
        const payload = body.data?.createTeacher;
        answers.push({
          at: sent - began,
          ms: performance.now() - sent,
          success: payload?.success ?? false,
          // Anything but the payload shows in the assertion on the codes below.
          code: payload ? payload.code : `HTTP ${status}: ${JSON.stringify(body)}`,
          teacherId: payload?.data?.teacher_id,
        });
      }
    };
    const workers = [1, 2, 3, 4].map(worker);
    await until(() => answers.filter((a) => a.success).length >= 50);

    const child = theChild(s);
    const killedAt = performance.now() - began;
    process.kill(child, "SIGKILL");
    const readyWhileDown = await until(() => s.log.some((e) => EXITED.test(e.msg))).then(() =>
      fetch(`${s.url}/readyz`),
    );
    await until(() => answers.filter((a) => a.success && a.at > killedAt).length >= 50);
    loading = false;
    await Promise.all(workers);

    // One line names the signal; the service is back on a new process of the same data.
    expect(s.log.filter((e) => EXITED.test(e.msg))).toHaveLength(1);
    expect(s.log.filter((e) => /is back and answering \(restart 1;/.test(e.msg))).toHaveLength(1);
    expect(theChild(s)).not.toBe(child);
    expect(readyWhileDown.status).toBe(503);
    expect(await readyWhileDown.json()).toMatchObject({ status: "unavailable", code: "INTERNAL_SERVER_ERROR" });
    expect(await ready(s)).toBe(true);

    // Meanwhile: the documented answer, never anything else.
    const failed = answers.filter((a) => !a.success);
    expect(failed.length).toBeGreaterThan(0);
    expect(new Set(failed.map((a) => a.code))).toEqual(new Set(["INTERNAL_SERVER_ERROR"]));

    // Every acknowledged write is stored, as acknowledged.
    const acknowledged = answers.filter((a) => a.success).map((a) => a.teacherId!);
    const stored = new Set<number>();
    for (let offset = 0; ; offset += 100) {
      const { body } = await graphqlAsAdmin<{ teachers: { items: { teacher_id: number }[] } }>(
        s.url,
        `{ teachers(offset: ${offset}, limit: 100) { items { teacher_id } } }`,
      );
      const items = body.data!.teachers.items;
      for (const item of items) stored.add(item.teacher_id);
      if (items.length < 100) break;
    }
    expect(acknowledged.filter((id) => !stored.has(id))).toEqual([]);

    const metrics = await (await fetch(`${s.url}/metrics`)).text();
    expect(metrics).toMatch(/^embedded_database_restarts_total 1$/m);
    expect(metrics).toMatch(/^embedded_database_up 1$/m);

    // Measured, not asserted (docs/operations.md, "When the embedded database dies").
    // Answering again: the first answer of a request sent after the last one that failed.
    const lastFailureSent = Math.max(...failed.map((a) => a.at));
    const answeringAgain = Math.min(
      ...answers.filter((a) => a.success && a.at > lastFailureSent).map((a) => a.at + a.ms),
    );
    const failureMs = failed.map((a) => a.ms).sort((a, b) => a - b);
    const slowestFailure = failureMs.at(-1)!;
    const medianFailure = failureMs[Math.floor(failureMs.length / 2)];
    process.stderr.write(
      `[supervision] ${KIND}: answering again ${Math.round(answeringAgain - killedAt)} ms after kill -9; ` +
        `${failed.length} requests failed meanwhile, in ${Math.round(medianFailure)} ms (median), the slowest in ${Math.round(slowestFailure)} ms; ` +
        `${acknowledged.length} acknowledged writes, ${acknowledged.filter((id) => stored.has(id)).length} stored\n`,
    );
  }, 120_000);

  it("when its process dies 5 times within 2 minutes, then the service exits 1 with one line", async () => {
    const s = await start();
    let killed: number | undefined;
    let kills = 0;
    let exited = false;
    void s.exited.then(() => (exited = true));
    while (!exited) {
      // The next death once the database is back, on a new process.
      await until(async () => exited || (theChild(s) !== undefined && theChild(s) !== killed && (await ready(s))));
      if (exited) break;
      killed = theChild(s);
      process.kill(killed, "SIGKILL");
      kills++;
      await until(() => exited || s.log.filter((e) => /^The embedded .* exited/.test(e.msg)).length === kills);
    }

    expect(await s.exited).toBe(1);
    expect(kills).toBe(5);
    const gaveUp = s.log.filter((e) => /crash loop/.test(e.msg));
    expect(gaveUp).toHaveLength(1);
    expect(gaveUp[0]).toMatchObject({ level: 60 });
    expect(gaveUp[0].msg).toMatch(
      /^The embedded (FerretDB|mongod) exited \(signal SIGKILL\): 5 times within 120 s, a crash loop; giving up, the service exits/,
    );
    expect(s.log.filter((e) => EXITED.test(e.msg))).toHaveLength(4);
    // Through the normal shutdown: nothing left running.
    expect(s.log.at(-1)?.msg).toBe("Stopped");
    expect(childrenOf(s.child.pid!, CHILD_COMMAND)).toEqual([]);
  }, 180_000);
});
