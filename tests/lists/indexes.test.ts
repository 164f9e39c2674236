// Every query the lists and the relation loaders send is served by an index: its filter fields lead an index
// and the sort key (the id) follows them, so a page is read in index order instead of sorting the matches.
//
// The query shapes are not written down here: they are captured, through the driver's command monitoring, from
// real GraphQL requests, so a new filter or a changed sort cannot escape the check.
//
// On a real MongoDB the captured commands are also sent back as `explain` and must plan an index scan. That part
// is left out on the embedded FerretDB 1.24: its SQLite backend does not push filters or sorts on ordinary fields
// down to SQLite (explain reports `filterPushdown: false` and a plain `SCAN` of the collection's table for every
// filter, even though the SQLite indexes exist), so its explain output cannot say whether an index would be used.
import type { mongo } from "mongoose";
import { openDatabase, type Database } from "../../src/db/database";
import {
  ListProjectsDocument,
  ListStudentsDocument,
  ListTeachersDocument,
  ProjectsWithTeachersDocument,
} from "../generated/graphql";
import { startTestApp, type TestApp } from "../helpers/app";
import { dropTestDatabase, testDbName, testMongoUri } from "../helpers/database";
import { STUDENT, TEACHER, insertProjects, insertStudents, insertTeachers, range } from "./support";

interface QueryShape {
  label: string;
  collection: string;
  filterFields: string[];
  sort: [string, number][];
  /** The command as sent, without session and routing fields, ready to be explained. */
  command: mongo.Document;
}

const ON_FERRETDB = process.env.TEST_DATABASE_KIND === "ferretdb";

function shapeOf(label: string, event: mongo.CommandStartedEvent): QueryShape | undefined {
  const c = event.command;
  if (event.commandName === "find") {
    return {
      label: `${label}: find ${c.find}`,
      collection: c.find,
      filterFields: Object.keys(c.filter ?? {}),
      sort: entries(c.sort),
      command: pick(c, ["find", "filter", "sort", "skip", "limit", "projection"]),
    };
  }
  if (event.commandName === "aggregate") {
    const match = (c.pipeline as mongo.Document[])[0]?.$match ?? {};
    return {
      label: `${label}: count ${c.aggregate}`,
      collection: c.aggregate,
      filterFields: Object.keys(match),
      sort: [],
      command: { ...pick(c, ["aggregate", "pipeline"]), cursor: {} },
    };
  }
  return undefined;
}

/** The driver sends sort as a Map (to keep key order); accept a plain object too. */
function entries(sort: unknown): [string, number][] {
  if (sort instanceof Map) return [...sort.entries()];
  return Object.entries((sort ?? {}) as Record<string, number>);
}

function pick(doc: mongo.Document, keys: string[]): mongo.Document {
  return Object.fromEntries(keys.filter((k) => doc[k] !== undefined).map((k) => [k, doc[k]]));
}

/** True when the index's leading fields are filter fields (at least one when the query filters) and the sort
 *  keys, with their directions, come right after them. */
function serves(indexKey: Record<string, number>, shape: QueryShape): boolean {
  const fields = Object.entries(indexKey);
  let equality = 0;
  while (equality < fields.length && shape.filterFields.includes(fields[equality][0])) equality++;
  if (shape.filterFields.length > 0 && equality === 0) return false;
  return shape.sort.every(
    ([field, dir], i) => fields[equality + i]?.[0] === field && fields[equality + i]?.[1] === dir,
  );
}

/** Every plan stage name anywhere in an explain answer (classic and slot-based plans, find and aggregate). */
function stagesIn(value: unknown, out: string[] = []): string[] {
  if (Array.isArray(value)) value.forEach((v) => stagesIn(v, out));
  else if (value && typeof value === "object") {
    for (const [key, v] of Object.entries(value)) {
      if (key === "stage" && typeof v === "string") out.push(v);
      else stagesIn(v, out);
    }
  }
  return out;
}

describe("indexes behind the lists", () => {
  let db: Database;
  let t: TestApp;
  const shapes: QueryShape[] = [];

  beforeAll(async () => {
    const dbName = testDbName();
    db = await openDatabase(testMongoUri(), { dbName, monitorCommands: true });
    t = await startTestApp({ db });
    await insertTeachers(db, range(1, 20));
    await insertProjects(
      db,
      range(1, 300).map((project_id) => ({
        project_id,
        company_id: (project_id % 15) + 1,
        project_status: ["proposed", "in_progress", "completed", "cancelled"][project_id % 4],
        teacher_id: project_id % 3 === 0 ? null : (project_id % 20) + 1,
      })),
    );
    await insertStudents(
      db,
      range(1, 200).map((student_id) => ({ student_id, class_code: `C${student_id % 8}` })),
    );

    let label = "";
    const client = db.connection.getClient();
    const listener = (event: mongo.CommandStartedEvent) => {
      if (event.databaseName !== dbName) return;
      const shape = shapeOf(label, event);
      if (shape) shapes.push(shape);
    };
    client.on("commandStarted", listener);
    try {
      const requests: [string, () => Promise<{ errors?: unknown }>][] = [
        ["projects", () => t.gql(ListProjectsDocument, { offset: 20 }, STUDENT)],
        ["projects by company_id", () => t.gql(ListProjectsDocument, { filter: { company_id: 3 } }, STUDENT)],
        [
          "projects by project_status",
          () => t.gql(ListProjectsDocument, { filter: { project_status: "completed" } }, STUDENT),
        ],
        ["projects by teacher_id", () => t.gql(ListProjectsDocument, { filter: { teacher_id: 5 } }, STUDENT)],
        [
          "projects by all filters",
          () =>
            t.gql(
              ListProjectsDocument,
              { filter: { company_id: 3, project_status: "completed", teacher_id: 5 } },
              STUDENT,
            ),
        ],
        ["teachers", () => t.gql(ListTeachersDocument, {}, STUDENT)],
        ["students", () => t.gql(ListStudentsDocument, {}, TEACHER)],
        ["students by class_code", () => t.gql(ListStudentsDocument, { filter: { class_code: "C3" } }, TEACHER)],
        ["relations", () => t.gql(ProjectsWithTeachersDocument, { limit: 50 }, STUDENT)],
      ];
      for (const [name, run] of requests) {
        label = name;
        expect((await run()).errors).toBeUndefined();
      }
    } finally {
      client.off("commandStarted", listener);
    }
  });
  afterAll(async () => {
    await t.app.close();
    await dropTestDatabase(db);
  });

  it("when the lists and relations are queried, then every query they send is captured", () => {
    // Sanity of the capture itself: one find per list request plus its count, and the two loader finds.
    expect(shapes.map((s) => s.label)).toEqual(
      expect.arrayContaining([
        "projects by company_id: find projects",
        "projects by company_id: count projects",
        "students by class_code: find students",
        "relations: find teachers",
      ]),
    );
    expect(shapes.filter((s) => s.label.startsWith("relations:"))).toHaveLength(4);
  });

  it("when a list or loader query filters or sorts, then an index starts with its filter fields followed by the sort key", async () => {
    const indexesOf = new Map<string, Record<string, number>[]>();
    for (const model of Object.values(db.models)) {
      const indexes = (await model.collection.indexes()) as { key: Record<string, number> }[];
      indexesOf.set(
        model.collection.collectionName,
        indexes.map((i) => i.key),
      );
    }
    const needIndex = shapes.filter((s) => s.filterFields.length > 0 || s.sort.length > 0);
    expect(needIndex.length).toBeGreaterThanOrEqual(15);
    const unserved = needIndex
      .filter((shape) => !(indexesOf.get(shape.collection) ?? []).some((key) => serves(key, shape)))
      .map(
        (s) =>
          `${s.label} (filter ${s.filterFields.join(",") || "none"}, sort ${s.sort.map(([f]) => f).join(",") || "none"})`,
      );
    expect(unserved).toEqual([]);
  });

  // Registered only on a real MongoDB (MONGODB_URI or an embedded mongod), where explain shows index use.
  if (!ON_FERRETDB) {
    it("when the captured queries are explained on MongoDB, then each plans an index scan and no collection scan", async () => {
      const failures: string[] = [];
      // A count of a whole collection needs no index (and MongoDB may rightly scan it).
      for (const shape of shapes.filter((s) => s.filterFields.length > 0 || s.sort.length > 0)) {
        const answer = await db.connection.db!.command({ explain: shape.command, verbosity: "queryPlanner" });
        const stages = stagesIn(answer);
        expect(stages.length).toBeGreaterThan(0); // a MongoDB plan, not FerretDB's
        const indexed = stages.some((s) => /IXSCAN|COUNT_SCAN|DISTINCT_SCAN|IDHACK/.test(s));
        if (!indexed || stages.includes("COLLSCAN")) failures.push(`${shape.label}: ${stages.join(" < ")}`);
      }
      expect(failures).toEqual([]);
    });
  }
});
