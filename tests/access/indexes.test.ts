// The row rules are part of the database queries themselves, and an index serves them: with rules naming each field
// a rule may name (company_id, created_by, teacher_id, project_status, project_id), every way of reading and changing
// projects sends its rule in the command (the filter of a find, of a count, of the conditional update, of the change
// log's replay), and on the embedded FerretDB every SQL statement these requests ran searches an index and none scans
// a table; on MongoDB each find and count plans an index scan.
import type { mongo } from "mongoose";
import { parseAccessPolicy } from "../../src/components/projects";
import { openDatabase, type Database } from "../../src/persistence";
import {
  AccessNodesDocument,
  AccessProjectDocument,
  AccessProjectHistoryDocument,
  AccessProjectPageDocument,
  AccessProjectsConnectionDocument,
  AccessTeacherProjectsDocument,
  AssignTeacherDocument,
  ProjectChangedDocument,
  ProjectChangesDocument,
  UpdateProjectStatusDocument,
} from "../generated/graphql";
import { startTestApp, type Headers, type TestApp } from "../helpers/app";
import { dropTestDatabase, sqlPlansOf, testDbName, testMongoUri } from "../helpers/database";
import { liveClient, subscribe } from "../helpers/live";
import { insertProjects, insertTeachers, projectGlobalId, range } from "./support";

const ON_FERRETDB = process.env.TEST_DATABASE_KIND === "ferretdb";

/** A read of the change log with a row rule on the project state its entries hold. */
const isRuledReplay = (c: mongo.CommandStartedEvent) =>
  c.commandName === "find" &&
  c.command.find === "project_changes" &&
  Object.keys((c.command.filter ?? {}) as object).some((key) => key.startsWith("project."));

/** One role per field a rule may name (three roles, so three policies), read in header mode. */
const POLICIES: { name: string; policy: object; callers: Headers[] }[] = [
  {
    name: "company and creator (the contract's)",
    policy: {
      projects: {
        student: { read: { company_id: "$company_ids" }, change: { created_by: "$sub" } },
        teacher: { read: { company_id: "$company_ids" }, change: { teacher_id: "$teacher_id" } },
      },
    },
    callers: [
      { "x-user-role": "student", "x-user-id": "alice", "x-user-claims": '{"company_ids":[2,5,7]}' },
      { "x-user-role": "teacher", "x-user-id": "ted", "x-user-claims": '{"company_ids":3,"teacher_id":4}' },
    ],
  },
  {
    name: "creator, teacher and status",
    policy: {
      projects: {
        student: { read: { created_by: "$sub" }, change: { created_by: "$sub" } },
        teacher: { read: { teacher_id: "$teacher_id" }, change: {} },
        admin: { read: { project_status: ["active", "done"] }, change: {} },
      },
    },
    callers: [
      { "x-user-role": "student", "x-user-id": "bob", "x-user-claims": "{}" },
      { "x-user-role": "teacher", "x-user-id": "ted", "x-user-claims": '{"teacher_id":4}' },
      { "x-user-role": "admin", "x-user-id": "root", "x-user-claims": "{}" },
    ],
  },
  {
    name: "listed projects",
    policy: { projects: { student: { read: { project_id: "$project_ids" }, change: {} } } },
    callers: [{ "x-user-role": "student", "x-user-id": "carol", "x-user-claims": '{"project_ids":[3,40,41,300]}' }],
  },
];

describe("indexes behind the row rules", () => {
  let db: Database;
  const commands: mongo.CommandStartedEvent[] = [];
  beforeAll(async () => {
    const dbName = testDbName();
    db = await openDatabase(testMongoUri(), { dbName, monitorCommands: true });
    await insertTeachers(db, range(1, 8));
    await insertProjects(
      db,
      range(1, 400).map((project_id) => ({
        project_id,
        company_id: (project_id % 9) + 1,
        teacher_id: project_id % 5 === 0 ? null : (project_id % 8) + 1,
        created_by: ["alice", "bob", "carol"][project_id % 3],
        project_status: ["proposed", "active", "done"][project_id % 3],
      })),
    );
    // Changes in the log before the rules, so a replay from its first position has something to read.
    const unrestricted = await startTestApp({ db });
    for (const projectId of [1, 2, 3]) {
      await unrestricted.gql(
        UpdateProjectStatusDocument,
        { projectId, input: { project_status: "active" } },
        {
          "x-user-role": "admin",
        },
      );
    }
    await unrestricted.app.close();
    const listener = (event: mongo.CommandStartedEvent) => {
      if (event.databaseName === dbName) commands.push(event);
    };
    db.connection.getClient().on("commandStarted", listener);
    for (const { policy, callers } of POLICIES) {
      const t = await startTestApp({ db, config: { accessPolicy: parseAccessPolicy(JSON.stringify(policy)) } });
      try {
        for (const headers of callers) await readEverything(t, headers);
      } finally {
        await t.app.close();
      }
    }
    db.connection.getClient().off("commandStarted", listener);
  });
  afterAll(() => dropTestDatabase(db));

  /** Waits until the change log is read with a row rule (a replay's query) after the first `from` commands. */
  async function replayRead(from: number, sub: { errors?: unknown }): Promise<void> {
    for (let waited = 0; !commands.slice(from).some(isRuledReplay); waited += 50) {
      if (waited > 15_000 || sub.errors) {
        throw new Error(`no replay read the change log with the rule (${JSON.stringify(sub.errors)})`);
      }
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }

  async function readEverything(t: TestApp, headers: Headers): Promise<void> {
    const after = Buffer.from("v1:Project:40").toString("base64url");
    const results = [
      await t.gql(AccessProjectDocument, { projectId: 40 }, headers),
      await t.gql(AccessProjectHistoryDocument, { projectId: 41 }, headers),
      await t.gql(AccessProjectPageDocument, { offset: 5, limit: 20 }, headers),
      await t.gql(AccessProjectPageDocument, { filter: { company_id: 5 }, limit: 20 }, headers),
      await t.gql(AccessProjectsConnectionDocument, { first: 10, after }, headers),
      await t.gql(AccessProjectsConnectionDocument, { last: 10, filter: { teacher_id: 4 } }, headers),
      await t.gql(AccessTeacherProjectsDocument, { teacherId: 4, offset: 1, limit: 5, first: 5 }, headers),
      await t.gql(AccessNodesDocument, { ids: [3, 40, 41, 42].map(projectGlobalId) }, headers),
      await t.gql(UpdateProjectStatusDocument, { projectId: 40, input: { project_status: "active" } }, headers),
      await t.gql(AssignTeacherDocument, { projectId: 41, input: { new_teacher_id: 4 } }, headers),
    ];
    for (const result of results) expect(result.errors).toBeUndefined();

    // Live updates: a project's replay from its first revision, and every project's from a cursor.
    const live = liveClient(t, {
      "x-user-role": headers["x-user-role"],
      "x-user-id": headers["x-user-id"],
      "x-user-claims": headers["x-user-claims"],
    });
    try {
      const readable = (await t.gql(AccessProjectPageDocument, { limit: 1 }, headers)).data!.projects.items[0];
      let from = commands.length;
      const one = subscribe(live, ProjectChangedDocument, { projectId: readable.project_id, afterRevision: 0 });
      await replayRead(from, one);
      one.stop();
      from = commands.length;
      const all = subscribe(live, ProjectChangesDocument, { after: Buffer.from("v1:1").toString("base64url") });
      await replayRead(from, all);
      all.stop();
    } finally {
      await live.dispose();
    }
  }

  it("when restricted callers read and change projects, then each find, count and conditional update of projects carries its rule", () => {
    const onProjects = commands.filter((c) => c.command[c.commandName] === "projects");
    const named = (field: string) =>
      onProjects.filter((c) => JSON.stringify(c.command).includes(`"${field}"`)).map((c) => c.commandName);
    // Each rule field shows up in finds, counts (aggregate: countDocuments) and the conditional update.
    for (const field of ["company_id", "created_by", "teacher_id", "project_status", "project_id"]) {
      expect(named(field)).toEqual(expect.arrayContaining(["find", "aggregate"]));
    }
    const updates = onProjects.filter((c) => c.commandName === "findAndModify");
    expect(updates.length).toBeGreaterThan(0);
    for (const update of updates) expect(update.command.query.$and).toBeDefined();
    // The change log's replays read with the rule on the project state each entry holds, by position: every
    // project's (index seq), and one project's (index project_id, seq).
    const replays = commands.filter(isRuledReplay).map((c) =>
      Object.keys(c.command.filter as object)
        .filter((key) => !key.startsWith("project."))
        .sort()
        .join(","),
    );
    expect(new Set(replays)).toEqual(new Set(["seq", "project_id,seq"]));
  });

  if (ON_FERRETDB) {
    it("when the SQL statements FerretDB ran for these requests are planned by SQLite, then each searches an index and none scans a table", async () => {
      const statements = (await sqlPlansOf(db.connection.db!.databaseName))!;
      expect(statements.filter((s) => s.error)).toEqual([]);
      const scans = statements.flatMap((s) =>
        (s.plan ?? [])
          .filter(
            (line) => /^SCAN [^\s(]\S*$/.test(line) || (/^SCAN \S+ USING INDEX /.test(line) && !/ LIMIT /.test(s.sql)),
          )
          .filter((line) => !/^SCAN (_ferretdb_|sqlite_)/.test(line))
          .map((line) => `${line} for ${s.sql.slice(0, 300)}`),
      );
      expect(scans).toEqual([]);
    });
  }

  if (!ON_FERRETDB) {
    it("when the finds and counts of projects are explained on MongoDB, then each plans an index scan and no collection scan", async () => {
      const failures: string[] = [];
      for (const c of commands.filter((c) => c.command[c.commandName] === "projects")) {
        const explained =
          c.commandName === "find"
            ? { find: "projects", filter: c.command.filter, sort: c.command.sort, limit: c.command.limit }
            : c.commandName === "aggregate"
              ? { aggregate: "projects", pipeline: c.command.pipeline, cursor: {} }
              : undefined;
        if (!explained) continue;
        const answer = JSON.stringify(
          await db.connection.db!.command({ explain: explained, verbosity: "queryPlanner" }),
        );
        if (!/IXSCAN|COUNT_SCAN|IDHACK|EXPRESS_IXSCAN/.test(answer) || answer.includes("COLLSCAN")) {
          failures.push(JSON.stringify(explained).slice(0, 300));
        }
      }
      expect(failures).toEqual([]);
    });
  }
});
