// When a page is asked for without its total, then no count is sent (a count walks every matching index entry)
// and has_more still answers right, learnt from reading limit + 1 items.
import type { mongo } from "mongoose";
import { openDatabase } from "../../src/persistence";
import { PagesWithoutTotalDocument, PagesWithTotalInFragmentDocument } from "../generated/graphql";
import { startTestApp, type TestApp } from "../helpers/app";
import { dropTestDatabase, testDbName, testMongoUri } from "../helpers/database";
import { ADMIN, insertProjects, insertStudents, insertTeachers, range } from "./support";

describe("database commands of a page", () => {
  let t: TestApp;
  let dbName: string;
  beforeAll(async () => {
    dbName = testDbName();
    const db = await openDatabase(testMongoUri(), { dbName, monitorCommands: true });
    t = await startTestApp({ db });
    await insertProjects(
      db,
      range(1, 3).map((project_id) => ({ project_id })),
    );
    await insertTeachers(db, range(1, 2));
    await insertStudents(
      db,
      range(1, 2).map((student_id) => ({ student_id, class_code: "A1" })),
    );
  });
  afterAll(async () => {
    await t.app.close();
    await dropTestDatabase(t.db);
  });

  async function commandsOf<T>(run: () => Promise<T>): Promise<{ result: T; commands: string[] }> {
    const seen: mongo.CommandStartedEvent[] = [];
    const listener = (event: mongo.CommandStartedEvent) => {
      if (event.databaseName === dbName) seen.push(event);
    };
    const client = t.db.connection.getClient();
    client.on("commandStarted", listener);
    try {
      const result = await run();
      return { result, commands: seen.map((e) => `${e.commandName} ${String(e.command[e.commandName])}`).sort() };
    } finally {
      client.off("commandStarted", listener);
    }
  }

  it("when total is not selected, then each list sends one find and has_more is right on both sides of the end", async () => {
    const { result: short, commands } = await commandsOf(() => t.gql(PagesWithoutTotalDocument, { limit: 2 }, ADMIN));
    const exact = await t.gql(PagesWithoutTotalDocument, { limit: 3 }, ADMIN);

    expect(short.errors).toBeUndefined();
    expect(commands).toEqual(["find projects", "find students", "find teachers"]);
    expect(short.data!.projects).toEqual({ has_more: true, items: [{ project_id: 1 }, { project_id: 2 }] });
    expect(short.data!.teachers).toEqual({ has_more: false, items: [{ teacher_id: 1 }, { teacher_id: 2 }] });
    expect(short.data!.students).toEqual({ has_more: false, items: [{ student_id: 1 }, { student_id: 2 }] });
    expect(exact.data!.projects.has_more).toBe(false);
    expect(exact.data!.projects.items).toHaveLength(3);
  });

  it("when total is selected (here through an inline fragment), then it is counted", async () => {
    const { result, commands } = await commandsOf(() => t.gql(PagesWithTotalInFragmentDocument, { limit: 2 }, ADMIN));

    expect(result.data!.projects).toEqual({ total: 3, has_more: true });
    expect(commands).toEqual(["aggregate projects", "find projects"]);
  });
});
