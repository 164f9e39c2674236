// A database written by the version before single-update changes (commit 61c39db) opens unchanged: the fixture in
// tests/fixtures/main-61c39db (written by that commit's code, see make-fixture.test.ts.txt there) holds projects,
// teachers, revisions, change-log entries, a void entry and a project whose newest logged revision its document does
// not show yet (a writer of that version died between its two writes). Opened by this version, the service answers
// the same projects, histories and cursors as that version did, and new changes continue the log after them. A field
// added since is answered at the default its declaration gives a document that lacks it (PROJECT_FIELDS), so adding
// an optional field changes neither the fixture nor this test.
import fs from "node:fs";
import path from "node:path";
import mongoose from "mongoose";
import type { ProjectChangeEvent } from "../../src/components/projects";
import { PROJECT_FIELDS } from "../../src/components/projects/persistence";
import { storedDefaults } from "../../src/db/stored-fields";
import { openDatabase, type Database } from "../../src/persistence";
import { createServices, type Services } from "../../src/services";
import { dropTestDatabase, testDbName, testMongoUri } from "../helpers/database";
import { silentLogger } from "../helpers/fixtures";

const FIXTURE = path.join(__dirname, "../fixtures/main-61c39db");

interface Answers {
  cursor: string;
  projects: (Record<string, unknown> & { project_id: number; revision: number })[];
  histories: unknown[];
  events: { project: Record<string, unknown> | null }[];
}

const answers = JSON.parse(fs.readFileSync(path.join(FIXTURE, "answers.json"), "utf8")) as Answers;

/** As the answer travels: JSON. */
const plain = (value: unknown): unknown => JSON.parse(JSON.stringify(value));

const DEFAULTS = new Map(storedDefaults(PROJECT_FIELDS));

/**
 * A project as this version answers it, compared with that version's answer: the fields that version answered, and
 * each field added since (one that answer lacks) at its declared default; a field without a default fails here.
 */
function asThatVersion(now: unknown, then: Record<string, unknown> | null | undefined): unknown {
  const project = plain(now) as Record<string, unknown> | null;
  if (!project || !then) return project;
  const addedSince = Object.keys(project).filter((field) => !(field in then));
  expect(addedSince.map((field) => [field, project[field]])).toEqual(
    addedSince.map((field) => [field, DEFAULTS.has(field) ? DEFAULTS.get(field) : "(a field without a default)"]),
  );
  return Object.fromEntries(Object.entries(project).filter(([field]) => field in then));
}

describe("a database written by the version before single-update changes", () => {
  let db: Database;
  let services: Services;
  beforeAll(async () => {
    const dbName = testDbName();
    const dump = mongoose.mongo.BSON.EJSON.parse(fs.readFileSync(path.join(FIXTURE, "database.ejson"), "utf8"), {
      relaxed: false,
    }) as Record<string, mongoose.mongo.Document[]>;
    const raw = await mongoose.createConnection(testMongoUri(), { dbName }).asPromise();
    try {
      for (const [name, docs] of Object.entries(dump)) {
        if (docs.length > 0) await raw.db!.collection(name).insertMany(docs);
      }
    } finally {
      await raw.close();
    }
    db = await openDatabase(testMongoUri(), { dbName });
    services = createServices(db, undefined, silentLogger);
  });
  afterAll(async () => {
    services.projectChanges.stop();
    await dropTestDatabase(db);
  });

  it("when it is opened, then projects and their histories read as that version answered them", async () => {
    const projects = await Promise.all(answers.projects.map((p) => services.projects.get(p.project_id)));
    const histories = await Promise.all(projects.map((p) => services.projects.history(p!, { offset: 0, limit: 20 })));

    expect(projects.map((project, i) => asThatVersion(project, answers.projects[i]))).toEqual(answers.projects);
    expect(plain(histories)).toEqual(answers.histories);
  });

  it("when the log is replayed from a cursor that version handed out, then the same events come with the same cursors, and a new change follows them", async () => {
    const events = await services.projectChanges.subscribeAll({ after: answers.cursor }, { onOverflow: () => {} });
    const replayed: ProjectChangeEvent[] = [];
    for (let i = 0; i < answers.events.length; i++) replayed.push((await events.next()).value as ProjectChangeEvent);

    const [first] = answers.projects;
    const changed = await services.projects.updateStatus(first.project_id, { project_status: "done" });
    const next = (await events.next()).value as ProjectChangeEvent;
    await events.return!();

    expect(
      plain(
        replayed.map(({ cursor, project_id, change, project }, i) => ({
          cursor,
          project_id,
          change,
          project: asThatVersion(project, answers.events[i].project),
        })),
      ),
    ).toEqual(answers.events);
    expect(changed.revision).toBe(first.revision + 1);
    expect(next).toMatchObject({ project_id: first.project_id, change: { revision: first.revision + 1 } });
    expect(next.seq).toBeGreaterThan(replayed[replayed.length - 1].seq);
  });
});
