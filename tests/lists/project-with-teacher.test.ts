// A project by id with its teacher is read in one command: an aggregation of the project by `_id` whose $lookup
// joins the teacher (on the embedded FerretDB through its patch, on MongoDB natively). It answers what the other
// way of reading teachers answers (a page of projects, whose teachers the loader reads by id): with a teacher, none,
// one that does not exist, and one the API cannot answer (null, reported), through aliases, fragments and next to a
// page that loads the same teacher. Either way a project's teacher holds only its stored fields
// (TEACHER_RELATION_FIELDS), and every field of Teacher answers there what teacher(teacherId) answers.
import pino from "pino";
import type { mongo } from "mongoose";
import { idKey } from "../../src/db/id-key";
import { openDatabase } from "../../src/persistence";
import { startTestApp, type GraphQLBody, type TestApp } from "../helpers/app";
import { commandsDuring, dropTestDatabase, testDbName, testMongoUri } from "../helpers/database";
import { ADMIN, insertProjects, insertTeachers, range } from "./support";

type Item = {
  project_id: number;
  teacher_id: number | null;
  teacher: { teacher_id: number; teacher_name: string } | null;
};
type Body = GraphQLBody<Record<string, { items?: Item[] } | Item | null>>;

const SELECTION = "project_id teacher_id teacher { teacher_id teacher_name }";
/** Projects 1-12: no teacher, teachers 1-5 (4 cannot be answered: its name is a number), and teacher 99, unknown. */
const TEACHER_OF = (project_id: number): number | null => [null, 1, 2, 3, 4, 5, 99][project_id % 7];

describe("a project by id with its teacher", () => {
  let t: TestApp;
  const warnings: string[] = [];
  beforeAll(async () => {
    const db = await openDatabase(testMongoUri(), { dbName: testDbName(), monitorCommands: true });
    const logger = pino({ level: "warn" }, { write: (line: string) => warnings.push(line) });
    t = await startTestApp({ db, logger });
    await insertTeachers(db, [1, 2, 3, 5]);
    await db.models.Teacher.collection.insertOne({
      _id: idKey(4) as unknown as mongo.ObjectId,
      teacher_id: 4,
      teacher_name: 42,
      created_at: new Date(),
      updated_at: new Date(),
    });
    await insertProjects(
      db,
      range(1, 12).map((project_id) => ({ project_id, teacher_id: TEACHER_OF(project_id) })),
    );
  });
  afterAll(async () => {
    await t.app.close();
    await dropTestDatabase(t.db);
  });

  /** The answer and the commands the request sent: each as its name and collection, and as the driver's events. */
  async function read(query: string): Promise<{ body: Body; commands: string[]; events: mongo.CommandStartedEvent[] }> {
    const { result, commands } = await commandsDuring(t.db, () =>
      t.http<Body>("POST", "/graphql", { body: { query }, headers: ADMIN }),
    );
    return {
      body: result.body,
      commands: commands.map((event) => `${event.commandName} ${String(event.command[event.commandName])}`),
      events: commands,
    };
  }

  it("when each project is read by id, then it answers its page item's teacher, in one command", async () => {
    const page = await read(`{ projects(limit: 100) { items { ${SELECTION} } } }`);
    expect(page.body.errors).toBeUndefined();
    const items = (page.body.data!.projects as { items: Item[] }).items;
    expect(items).toHaveLength(12);
    // Sanity: the page holds each case.
    expect(items.map((item) => item.teacher?.teacher_name ?? null)).toEqual(
      expect.arrayContaining(["Teacher 1", "Teacher 5", null]),
    );

    for (const item of items) {
      const { body, commands } = await read(`{ project(projectId: ${item.project_id}) { ${SELECTION} } }`);
      expect(body.errors).toBeUndefined();
      expect(body.data!.project).toEqual(item);
      expect(commands).toEqual(["aggregate projects"]);
    }
    expect(warnings.some((line) => line.includes("teachers 4 field teacher_name"))).toBe(true);
  });

  it("when projects come through aliases and fragments, next to a page loading the same teachers, then each answers alike", async () => {
    const { body, commands } = await read(
      `{ a: project(projectId: 1) { ...P } b: project(projectId: 8) { teacher { teacher_name } } c: project(projectId: 100) { ...P }
         projects(limit: 3) { items { ${SELECTION} } } }
       fragment P on Project { ${SELECTION} }`,
    );
    expect(body.errors).toBeUndefined();
    const items = (body.data!.projects as { items: Item[] }).items;
    expect(body.data!.a).toEqual(items[0]);
    expect(body.data!.b).toEqual({ teacher: { teacher_name: "Teacher 1" } });
    expect(body.data!.c).toBeNull();
    // Three reads by id and the page, each with its teachers in its own command: no read of teachers apart.
    expect(commands.filter((c) => c === "aggregate projects")).toHaveLength(4);
    expect(commands.filter((c) => c.startsWith("find teachers"))).toHaveLength(0);
  });

  it("when each field of Teacher is asked for through a project (by id, joined; in a page, by the loader), then it answers what teacher(teacherId) answers", async () => {
    // Every field of the type, so a field added to Teacher is compared too (a timestamp would need the relation's
    // fields, TEACHER_RELATION_FIELDS, to grow).
    const type = await read(`{ __type(name: "Teacher") { fields { name type { kind ofType { kind } } } } }`);
    const fields = (
      type.body.data!.__type as unknown as {
        fields: { name: string; type: { kind: string; ofType?: { kind: string } } }[];
      }
    ).fields;
    const selectionOf = (field: { name: string; type: { kind: string; ofType?: { kind: string } } }) => {
      const kind = field.type.kind === "NON_NULL" ? field.type.ofType!.kind : field.type.kind;
      if (kind === "SCALAR" || kind === "ENUM") return field.name;
      if (field.name === "projectsConnection")
        return `${field.name}(first: 2) { totalCount edges { node { project_id } } }`;
      return `${field.name}(limit: 2) { project_id }`;
    };
    expect(fields.map((f) => f.name)).toEqual(expect.arrayContaining(["teacher_id", "teacher_name", "projects"]));
    for (const field of fields) {
      const selection = selectionOf(field);
      const alone = await read(`{ teacher(teacherId: 2) { ${selection} } }`);
      expect(alone.body.errors).toBeUndefined();
      const expected = alone.body.data!.teacher;
      // Project 2's teacher is teacher 2.
      const byId = await read(`{ project(projectId: 2) { teacher { ${selection} } } }`);
      expect(byId.body.errors).toBeUndefined();
      expect((byId.body.data!.project as { teacher: unknown }).teacher).toEqual(expected);
      const page = await read(`{ projects(limit: 3) { items { project_id teacher { ${selection} } } } }`);
      expect(page.body.errors).toBeUndefined();
      const item = (page.body.data!.projects as { items: (Item & { teacher: unknown })[] }).items[1];
      expect(item).toEqual({ project_id: 2, teacher: expected });
    }
  });

  it("when teachers are read as projects' relations, then only the fields Teacher answers are checked: a broken timestamp no field of Teacher answers does not hide one", async () => {
    await t.db.models.Teacher.collection.insertOne({
      _id: idKey(6) as unknown as mongo.ObjectId,
      teacher_id: 6,
      teacher_name: "Teacher 6",
      created_at: "not a date" as unknown as Date,
      updated_at: new Date(),
    });
    await insertProjects(t.db, [
      { project_id: 20, teacher_id: 6 },
      { project_id: 21, teacher_id: 6 },
    ]);
    const page = await read(`{ projects(limit: 100, offset: 11) { items { project_id ${SELECTION} } } }`);
    expect(page.body.errors).toBeUndefined();
    expect((page.body.data!.projects as { items: Item[] }).items.filter((p) => p.teacher_id === 6)).toEqual([
      { project_id: 20, teacher_id: 6, teacher: { teacher_id: 6, teacher_name: "Teacher 6" } },
      { project_id: 21, teacher_id: 6, teacher: { teacher_id: 6, teacher_name: "Teacher 6" } },
    ]);
    const byId = await read(`{ project(projectId: 20) { ${SELECTION} } }`);
    expect(byId.body.data!.project).toEqual({
      project_id: 20,
      teacher_id: 6,
      teacher: { teacher_id: 6, teacher_name: "Teacher 6" },
    });
    // Both read their teachers in their own command (a $lookup of teachers, which reads only the relation's fields),
    // none apart.
    const events = [...page.events, ...byId.events];
    const lookups = events
      .filter((event) => event.commandName === "aggregate")
      .map((event) =>
        (event.command.pipeline as Record<string, { from?: string; pipeline?: unknown }>[]).flatMap((stage) =>
          stage.$lookup ? [{ from: stage.$lookup.from, pipeline: stage.$lookup.pipeline }] : [],
        ),
      );
    const join = { from: "teachers", pipeline: [{ $project: { _id: 0, teacher_id: 1, teacher_name: 1 } }] };
    expect(lookups).toEqual([[join], [join]]);
    expect(events.filter((event) => event.command.find === "teachers")).toEqual([]);
  });

  it("when a project by id is asked for without its teacher, then it is one find, with no join", async () => {
    const { body, commands } = await read(`{ project(projectId: 2) { project_id teacher_id } }`);
    expect(body.data!.project).toEqual({ project_id: 2, teacher_id: 2 });
    expect(commands).toEqual(["find projects"]);
  });
});
