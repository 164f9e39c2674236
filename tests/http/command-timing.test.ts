// When the service serves reads and writes, then the database timings GET /metrics records (by Mongoose middleware,
// src/db/command-timing.ts, instead of the driver's command monitoring, which decodes every reply twice) name the
// same commands, as many times, as the driver itself reports sending: the cheap path is compared with the driver's
// own account, command by command.
import { onCommandTiming, type CommandTiming } from "../../src/db/command-timing";
import { openDatabase, type Database } from "../../src/persistence";
import { startTestApp, type TestApp } from "../helpers/app";
import { dropTestDatabase, testDbName, testMongoUri } from "../helpers/database";

const ADMIN = { "content-type": "application/json", "x-user-role": "admin" };

async function graphql(t: TestApp, query: string, variables: object = {}) {
  const response = await fetch(`${t.url}/graphql`, {
    method: "POST",
    headers: ADMIN,
    body: JSON.stringify({ query, variables }),
  });
  return (await response.json()) as { data?: Record<string, unknown>; errors?: unknown[] };
}

/** Commands that are not operations on data: the driver's own (handshakes, sessions, the cursors of a timed find),
 * and buildInfo, asked once per process to learn which server it is (not timed). */
const NOT_TIMED = new Set([
  "hello",
  "isMaster",
  "endSessions",
  "getMore",
  "killCursors",
  "saslStart",
  "saslContinue",
  "buildInfo",
]);

const counts = (names: string[]) => {
  const result: Record<string, number> = {};
  for (const name of names) result[name] = (result[name] ?? 0) + 1;
  return result;
};

describe("database timings for GET /metrics", () => {
  let db: Database;
  let t: TestApp;
  beforeAll(async () => {
    db = await openDatabase(testMongoUri(), { dbName: testDbName(), monitorCommands: true });
    t = await startTestApp({ db });
  });
  afterAll(async () => {
    await t.close();
    await dropTestDatabase(db);
  });

  it("when the service reads and writes, then the timed commands are the ones the driver sends", async () => {
    const client = db.connection.getClient();
    const sent: string[] = [];
    const timed: CommandTiming[] = [];
    const onSent = (event: { commandName: string }) => {
      if (!NOT_TIMED.has(event.commandName)) sent.push(event.commandName);
    };
    client.on("commandStarted", onSent);
    const stop = onCommandTiming(client, (timing) => timed.push(timing));
    try {
      const teacher = await graphql(
        t,
        'mutation { createTeacher(input: { teacher_name: "Ada" }) { success code message data { teacher_id } } }',
      );
      expect(teacher.data!.createTeacher).toMatchObject({ code: null, success: true });
      const teacherId = (teacher.data!.createTeacher as { data: { teacher_id: number } }).data.teacher_id;
      const created = await graphql(
        t,
        `
          mutation {
            createProject(
              input: {
                project_name: "Timed"
                project_desc: "d"
                company_id: 1
                project_status: "active"
                start_date: "2026-01-01"
                end_date: "2026-02-01"
              }
            ) {
              success
              data {
                project_id
              }
            }
          }
        `,
      );
      expect(created.errors).toBeUndefined();
      const projectId = (created.data!.createProject as { data: { project_id: number } }).data.project_id;
      expect(
        (
          await graphql(
            t,
            `
              mutation ($p: Int!, $t: Int!) {
                assignTeacher(projectId: $p, input: { new_teacher_id: $t }) {
                  success
                }
              }
            `,
            {
              p: projectId,
              t: teacherId,
            },
          )
        ).errors,
      ).toBeUndefined();
      const read = await graphql(
        t,
        `
          query ($p: Int!) {
            project(projectId: $p) {
              project_name
              teacher {
                teacher_name
                projects {
                  project_id
                }
              }
            }
            projects(limit: 10) {
              total
              items {
                project_id
                teacher {
                  teacher_name
                }
              }
            }
            teachers {
              total
            }
          }
        `,
        { p: projectId },
      );
      expect(read.errors).toBeUndefined();
      // A refused write: the project's name is taken.
      await graphql(
        t,
        `
          mutation {
            createProject(
              input: {
                project_name: "Timed"
                project_desc: "d"
                company_id: 1
                project_status: "active"
                start_date: "2026-01-01"
                end_date: "2026-02-01"
              }
            ) {
              success
            }
          }
        `,
      );
      expect(await db.ping()).toBe(true);
    } finally {
      client.off("commandStarted", onSent);
      stop();
    }

    expect(counts(timed.map((timing) => timing.command))).toEqual(counts(sent));
    expect([...new Set(sent)]).toEqual(
      expect.arrayContaining(["find", "insert", "findAndModify", "aggregate", "ping"]),
    );
    for (const timing of timed) expect(timing.duration).toBeGreaterThanOrEqual(0);
    expect(timed.some((timing) => timing.outcome === "error")).toBe(true);
  });
});
