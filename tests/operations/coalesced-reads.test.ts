// Reads by id joined into one command while the database is busy (src/db/coalesced-reads.ts): on the embedded
// FerretDB, requests for projects by id that arrive while other reads are on their way go as one command, and each
// caller still gets exactly what its own command would have given (its own project and teacher, the fields it asked
// for, what its row rules let it read, null for none). The first part drives CoalescedReads itself with reads whose
// answers the test hands out, to show when reads wait, join and fail; the second goes through the service on the
// tests' FerretDB, counting the commands the driver sends.
import type { mongo } from "mongoose";
import { CoalescedReads, type ReadMany } from "../../src/db/coalesced-reads";
import { openDatabase, type Database } from "../../src/persistence";
import { startTestApp, type TestApp } from "../helpers/app";
import { dropTestDatabase, testDbName, testMongoUri } from "../helpers/database";
import { ADMIN } from "../helpers/fixtures";
import {
  CALLERS,
  contractPolicy,
  headerModeHeaders,
  insertProjects,
  insertTeachers,
  mayRead,
  range,
} from "../access/support";

/** A read the test answers by hand: the keys each command asked for, and a way to answer or fail each. */
function handAnswered() {
  const sent: { keys: readonly string[]; answer(found: Record<string, string>): void; fail(err: Error): void }[] = [];
  const readMany: ReadMany<string> = (keys) =>
    new Promise((resolve, reject) => {
      sent.push({ keys, answer: (found) => resolve(new Map(Object.entries(found))), fail: reject });
    });
  return { sent, readMany };
}

/** Lets every promise callback that is ready run. */
const settle = () => new Promise((resolve) => setImmediate(resolve));

describe("CoalescedReads: when reads wait, join and fail", () => {
  it("when nothing is on its way, then a read goes at once, alone", async () => {
    const reads = new CoalescedReads({ maxInFlight: 1, waitMs: 5000 });
    const { sent, readMany } = handAnswered();
    const one = reads.read("shape", "7", readMany);
    expect(sent.map((s) => s.keys)).toEqual([["7"]]);
    sent[0].answer({ "7": "project 7" });
    await expect(one).resolves.toBe("project 7");
    const two = reads.read("shape", "8", readMany);
    expect(sent.map((s) => s.keys)).toEqual([["7"], ["8"]]);
    sent[1].answer({});
    await expect(two).resolves.toBeUndefined();
  });

  it("when reads come while maxInFlight are on their way, then they wait and go as one command per shape when one comes back, each answered with its own key's document", async () => {
    const reads = new CoalescedReads({ maxInFlight: 2, waitMs: 5000 });
    const { sent, readMany } = handAnswered();
    const first = reads.read("a", "1", readMany);
    const second = reads.read("b", "2", readMany);
    const waiting = [
      reads.read("a", "3", readMany),
      reads.read("a", "4", readMany),
      reads.read("b", "5", readMany),
      reads.read("a", "3", readMany),
      reads.read("a", "404", readMany),
    ];
    expect(sent.map((s) => s.keys)).toEqual([["1"], ["2"]]);
    expect(reads.load).toEqual({ inFlight: 2, waiting: 5 });

    sent[0].answer({ "1": "one" });
    await settle();
    // The oldest shape goes first, its key asked for twice read once.
    expect(sent.map((s) => s.keys)).toEqual([["1"], ["2"], ["3", "4", "404"]]);
    sent[1].answer({ "2": "two" });
    await settle();
    expect(sent.map((s) => s.keys)).toEqual([["1"], ["2"], ["3", "4", "404"], ["5"]]);
    sent[2].answer({ "3": "three", "4": "four" });
    sent[3].answer({ "5": "five" });

    await expect(Promise.all([first, second, ...waiting])).resolves.toEqual([
      "one",
      "two",
      "three",
      "four",
      "five",
      "three",
      undefined,
    ]);
    expect(reads.load).toEqual({ inFlight: 0, waiting: 0 });
  });

  it("when more reads of one shape wait than maxBatch, then they go in batches of maxBatch", async () => {
    const reads = new CoalescedReads({ maxInFlight: 1, maxBatch: 2, waitMs: 5000 });
    const { sent, readMany } = handAnswered();
    const all = ["1", "2", "3", "4", "5"].map((key) => reads.read("a", key, readMany));
    sent[0].answer({ "1": "x1" });
    await settle();
    sent[1].answer({ "2": "x2", "3": "x3" });
    await settle();
    sent[2].answer({ "4": "x4", "5": "x5" });
    await expect(Promise.all(all)).resolves.toEqual(["x1", "x2", "x3", "x4", "x5"]);
    expect(sent.map((s) => s.keys)).toEqual([["1"], ["2", "3"], ["4", "5"]]);
  });

  it("when a batch fails, then each of its reads fails with its error, and the reads waiting behind it still go", async () => {
    const reads = new CoalescedReads({ maxInFlight: 1, waitMs: 5000 });
    const { sent, readMany } = handAnswered();
    const first = reads.read("a", "1", readMany);
    const batch = [reads.read("a", "2", readMany), reads.read("a", "3", readMany)];
    sent[0].answer({ "1": "one" });
    await settle();
    const behind = reads.read("a", "4", readMany);
    const outcomes = Promise.allSettled(batch);
    const failure = new Error("the database went away");
    sent[1].fail(failure);
    await settle();
    sent[2].answer({ "4": "four" });
    await expect(first).resolves.toBe("one");
    expect(await outcomes).toEqual([
      { status: "rejected", reason: failure },
      { status: "rejected", reason: failure },
    ]);
    await expect(behind).resolves.toBe("four");
  });

  it("when readMany throws instead of answering, then the read fails and the next one goes", async () => {
    const reads = new CoalescedReads({ maxInFlight: 1, waitMs: 5000 });
    const broken: ReadMany<string> = () => {
      throw new Error("bad read");
    };
    await expect(reads.read("a", "1", broken)).rejects.toThrow("bad read");
    const { sent, readMany } = handAnswered();
    const next = reads.read("a", "2", readMany);
    sent[0].answer({ "2": "two" });
    await expect(next).resolves.toBe("two");
  });

  it("when a read waits longer than waitMs, then it fails with a clear error and is never sent", async () => {
    const reads = new CoalescedReads({ maxInFlight: 1, waitMs: 30 });
    const { sent, readMany } = handAnswered();
    const first = reads.read("a", "1", readMany);
    const late = reads.read("a", "2", readMany);
    await expect(late).rejects.toThrow("a read by id waited 30 ms for the database without being sent");
    expect(reads.load).toEqual({ inFlight: 1, waiting: 0 });
    sent[0].answer({ "1": "one" });
    await expect(first).resolves.toBe("one");
    await settle();
    expect(sent.map((s) => s.keys)).toEqual([["1"]]);
  });

  it("when maxInFlight is not a positive number, then it is refused", () => {
    expect(() => new CoalescedReads({ maxInFlight: 0, waitMs: 5000 })).toThrow("maxInFlight must be at least 1, got 0");
  });
});

const PROJECT_QUERY =
  "query ($id: Int!) { project(projectId: $id) { project_id company_id project_name teacher { teacher_id teacher_name } } }";
const NAME_ONLY_QUERY = "query ($id: Int!) { project(projectId: $id) { project_name } }";

/** 60 projects of three companies; every fourth without a teacher, the others with one of three teachers. */
const PROJECTS = range(1, 60).map((project_id) => ({
  project_id,
  company_id: (project_id % 3) + 1,
  created_by: "alice",
  teacher_id: project_id % 4 === 0 ? null : (project_id % 3) + 1,
}));
const MISSING = [1000, 2000];

type ProjectAnswer = {
  project_id: number;
  company_id: number;
  project_name: string;
  teacher: { teacher_id: number; teacher_name: string } | null;
} | null;

/** The answer a project by id must give: from the rows the test stored, not from the service. */
function expectedProject(id: number): ProjectAnswer {
  const p = PROJECTS.find((project) => project.project_id === id);
  if (!p) return null;
  return {
    project_id: id,
    company_id: p.company_id,
    project_name: `Project ${id}`,
    teacher: p.teacher_id === null ? null : { teacher_id: p.teacher_id, teacher_name: `Teacher ${p.teacher_id}` },
  };
}

describe("projects by id, many at once, on the embedded database", () => {
  let db: Database;
  let t: TestApp;
  let commands: mongo.CommandStartedEvent[];
  const listener = (event: mongo.CommandStartedEvent) => {
    const read = event.commandName === "aggregate" || event.commandName === "find";
    if (read && event.databaseName === db.connection.db!.databaseName) commands.push(event);
  };

  beforeAll(async () => {
    // One read on its way at a time: every read that comes meanwhile waits and joins.
    db = await openDatabase(testMongoUri(), {
      dbName: testDbName(),
      monitorCommands: true,
      readsAtOnce: 1,
    });
    t = await startTestApp({ db, config: { accessPolicy: contractPolicy() } });
    await insertTeachers(db, [1, 2, 3]);
    await insertProjects(db, PROJECTS);
    db.connection.getClient().on("commandStarted", listener);
  });
  beforeEach(() => {
    commands = [];
  });
  afterAll(async () => {
    db.connection.getClient().off("commandStarted", listener);
    await t.app.close();
    await dropTestDatabase(db);
  });

  /**
   * Runs `asks` at once while the one place for a read on its way is taken by a read of the test's own, held until
   * all of them wait: then they go, joined by shape.
   */
  async function allAtOnce<T>(asks: (() => Promise<T>)[]): Promise<T[]> {
    let release!: () => void;
    const held = db.reads.read(
      "the test's own read",
      "held",
      () => new Promise<Map<string, string>>((resolve) => (release = () => resolve(new Map<string, string>()))),
    );
    const answers = Promise.all(asks.map((ask) => ask()));
    while (db.reads.load.waiting < asks.length) await new Promise((resolve) => setTimeout(resolve, 5));
    release();
    await held;
    return answers;
  }

  async function project(query: string, id: number, headers: Record<string, string>) {
    const res = await t.http<{ data?: { project: unknown }; errors?: unknown }>("POST", "/graphql", {
      body: { query, variables: { id } },
      headers,
    });
    expect(res.status).toBe(200);
    expect(res.body.errors).toBeUndefined();
    return res.body.data!.project;
  }

  it("when one caller reads projects one after another, then each read is its own command by _id", async () => {
    for (const id of [1, 4, 1000]) expect(await project(PROJECT_QUERY, id, ADMIN)).toEqual(expectedProject(id));
    expect(commands).toHaveLength(3);
    for (const c of commands) expect(c.command.pipeline[0].$match._id).toEqual(expect.any(String));
  });

  it("when 62 requests for projects by id with their teachers come at once, then each gets its own project and teacher (null for a missing id), in one command", async () => {
    const ids = [...range(1, 60), ...MISSING];
    const answers = await allAtOnce(ids.map((id) => () => project(PROJECT_QUERY, id, ADMIN)));
    expect(answers).toEqual(ids.map(expectedProject));

    // All 62 waited behind the held read: one command for all of them, with their teachers joined.
    expect(commands).toHaveLength(1);
    const [match, limit, , lookup] = commands[0].command.pipeline;
    expect([...match.$match._id.$in].sort()).toEqual(ids.map(String).sort());
    expect(limit).toEqual({ $limit: ids.length });
    expect(lookup.$lookup.from).toBe("teachers");
  });

  it("when callers with different row rules and different fields read every project at once, then each gets exactly what its own read gives: the fields it asked for, of the projects it may read", async () => {
    const callers = CALLERS.filter((who) => who.role).slice(0, 5);
    const asks = callers.flatMap((who) =>
      [...range(1, 60), ...MISSING].flatMap((id) => [
        { who, id, query: PROJECT_QUERY },
        { who, id, query: NAME_ONLY_QUERY },
      ]),
    );
    const answers = await allAtOnce(asks.map((a) => () => project(a.query, a.id, headerModeHeaders(a.who))));
    asks.forEach((a, i) => {
      const stored = PROJECTS.find((p) => p.project_id === a.id);
      const readable = stored !== undefined && mayRead(a.who, stored);
      const expected = readable ? expectedProject(a.id) : null;
      expect({ ...a, who: a.who.name, answer: answers[i] }).toEqual({
        ...a,
        who: a.who.name,
        answer: a.query === NAME_ONLY_QUERY && expected ? { project_name: expected.project_name } : expected,
      });
    });
    // One command per caller's rules and read: the joined one and the one without a teacher.
    expect(commands).toHaveLength(callers.length * 2);
  });
});

describe("how many reads by id go at once, by the server reached", () => {
  let db: Database;
  beforeAll(async () => {
    // As another instance of the service (or a benchmark) opens it: through its URI, with no limit of its own.
    db = await openDatabase(testMongoUri(), { dbName: testDbName() });
  });
  afterAll(async () => {
    await dropTestDatabase(db);
  });

  it("when two reads are on their way to FerretDB reached through MONGODB_URI, then the next one waits to join; on MongoDB it goes at once", async () => {
    const info = await db.connection.db!.admin().command({ buildInfo: 1 });
    const onFerretDb = "ferretdbVersion" in info;
    const { sent, readMany } = handAnswered();

    const reads = ["a", "b", "c"].map((key) => db.reads.read("the test's read", key, readMany));

    expect({ onFerretDb, ...db.reads.load, sent: sent.length }).toEqual(
      onFerretDb ? { onFerretDb, inFlight: 2, waiting: 1, sent: 2 } : { onFerretDb, inFlight: 3, waiting: 0, sent: 3 },
    );
    for (const command of sent.slice(0, 2)) command.answer({ [command.keys[0]]: command.keys[0].toUpperCase() });
    while (sent.length < 3) await new Promise((resolve) => setTimeout(resolve, 5));
    sent[2].answer({ c: "C" });
    expect(await Promise.all(reads)).toEqual(["A", "B", "C"]);
  });
});
