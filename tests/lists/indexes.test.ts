// Every query the service sends is served by an index: lists and relation loaders (their filter fields lead an
// index and the sort key, the id, follows them, so a page is read in index order instead of sorting the matches),
// reads and writes by id, and the checks of the mutations.
//
// The query shapes are not written down here: they are captured from real GraphQL requests that exercise every
// query and mutation of the schema (a test checks that none is left out), so a new filter, a changed sort or a new
// operation cannot escape the check. On a real MongoDB the captured commands (driver command monitoring) are sent
// back as `explain` and must plan an index scan. On the embedded FerretDB, whose SQLite backend the project patches
// to push filters, sorts and counts down (tools/ferretdb), every SQL statement FerretDB ran for this file's
// database is planned with SQLite's EXPLAIN QUERY PLAN and must search an index, never scan a table.
import fs from "node:fs";
import path from "node:path";
import { buildSchema, Kind, type DocumentNode, type OperationDefinitionNode } from "graphql";
import type { mongo } from "mongoose";
import { openDatabase, type Database } from "../../src/persistence";
import {
  AssignTeacherDocument,
  BoardConnectionDocument,
  BoardCountsDocument,
  BoardProjectsDocument,
  StudentsBoardDocument,
  TeacherBoardDocument,
  TeachersBoardDocument,
  CreateProjectDocument,
  ArchiveProjectDocument,
  CreateStudentDocument,
  DeleteProjectDocument,
  DeleteStudentDocument,
  DeleteTeacherDocument,
  CreateTeacherDocument,
  GetProjectDocument,
  GetStudentDocument,
  ListProjectsDocument,
  ListStudentsDocument,
  ListTeachersDocument,
  NodeByIdDocument,
  NodesByIdsDocument,
  ProjectsConnectionCountedDocument,
  ProjectsConnectionPageDocument,
  StudentsConnectionPageDocument,
  TeachersConnectionPageDocument,
  TeachersWithProjectsConnectionCountedDocument,
  ProjectHistoryDocument,
  ProjectStatusesDocument,
  ProjectsWithTeachersDocument,
  TeacherProjectsPageDocument,
  TeachersWithProjectPagesDocument,
  UpdateProjectStatusDocument,
  UnarchiveProjectDocument,
  UpdateStudentDocument,
  UpdateTeacherDocument,
  RedeliverWebhookDocument,
  WebhookDeliveriesDocument,
} from "../generated/graphql";
import { startTestApp, type TestApp } from "../helpers/app";
import { dropTestDatabase, sqlPlansOf, testDbName, testMongoUri } from "../helpers/database";
import { ADMIN, STUDENT, TEACHER, insertProjects, insertStudents, insertTeachers, range } from "./support";

interface QueryShape {
  label: string;
  collection: string;
  /** Fields the filter fixes (equality, $in). */
  filterFields: string[];
  /** Fields the filter bounds ($gt, $gte, $lt, $lte: keyset pages on the sort key). */
  rangeFields: string[];
  sort: [string, number][];
  /** The command as sent, without session and routing fields, ready to be explained. */
  command: mongo.Document;
}

const ON_FERRETDB = process.env.TEST_DATABASE_KIND === "ferretdb";

function shapesOf(label: string, event: mongo.CommandStartedEvent): QueryShape[] {
  const c = event.command;
  if (event.commandName === "find") {
    return [
      {
        label: `${label}: find ${c.find}`,
        collection: c.find,
        ...splitFilter(c.filter ?? {}),
        sort: entries(c.sort),
        command: pick(c, ["find", "filter", "sort", "skip", "limit", "projection"]),
      },
    ];
  }
  if (event.commandName === "aggregate") {
    const pipeline = c.pipeline as mongo.Document[];
    const match = pipeline[0]?.$match ?? {};
    const lookups = pipeline.flatMap((stage) => (stage.$lookup ? [stage.$lookup as mongo.Document] : []));
    return [
      {
        label: `${label}: ${lookups.length > 0 ? "aggregate" : "count"} ${c.aggregate}`,
        collection: c.aggregate,
        ...splitFilter(match),
        // A page's $sort (a page of projects with their teachers) needs the index, as a find's sort does.
        // (A $sort after a $group orders the groups, not documents.)
        sort: entries(pipeline.slice(0, indexOfGroup(pipeline)).find((stage) => stage.$sort)?.$sort),
        command: { ...pick(c, ["aggregate", "pipeline"]), cursor: {} },
      },
      // Each $lookup reads its collection by foreignField: that read needs an index too.
      ...lookups.map((lookup) => ({
        label: `${label}: $lookup ${lookup.from}`,
        collection: lookup.from as string,
        filterFields: [lookup.foreignField as string],
        rangeFields: [],
        sort: [],
        command: { find: lookup.from, filter: { [lookup.foreignField]: 1 } },
      })),
    ];
  }
  return [];
}

/** Where a pipeline's $group is (its length when there is none). */
function indexOfGroup(pipeline: mongo.Document[]): number {
  const at = pipeline.findIndex((stage) => stage.$group);
  return at < 0 ? pipeline.length : at;
}

const RANGE = new Set(["$gt", "$gte", "$lt", "$lte"]);

/** Conditions no index range can seek ($ne, $nin: "still open"): rows the index read gives are tested against them. */
const NEGATION = new Set(["$ne", "$nin"]);

/** A filter's fields: those it fixes, and those it only bounds; negations need no place in the index. */
function splitFilter(filter: mongo.Document): { filterFields: string[]; rangeFields: string[] } {
  const ops = (value: unknown) =>
    !!value && typeof value === "object" && !(value instanceof Date) ? Object.keys(value) : [];
  const isNegation = (value: unknown) => ops(value).length > 0 && ops(value).every((op) => NEGATION.has(op));
  const isRange = (value: unknown) =>
    ops(value).length > 0 && ops(value).every((op) => RANGE.has(op) || NEGATION.has(op)) && !isNegation(value);
  const fields = Object.entries(filter).filter(([, v]) => !isNegation(v));
  return {
    filterFields: fields.filter(([, v]) => !isRange(v)).map(([k]) => k),
    rangeFields: fields.filter(([, v]) => isRange(v)).map(([k]) => k),
  };
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
  // A bounded field must be the next key (the range is then one stretch of the index): the sort key, on keyset pages.
  if (shape.rangeFields.some((field, i) => fields[equality + i]?.[0] !== field)) return false;
  if (shape.rangeFields.length > 0 && shape.sort.length === 0) return true;
  // The sort follows the index in its own direction or, every key at once, in the reverse one (an index is walked
  // either way). A sort key the filter fixes by equality (a keyset page's tie with its cursor) orders nothing.
  const sort = shape.sort.filter(([field]) => !fields.slice(0, equality).some(([key]) => key === field));
  const matches = (flip: number) =>
    sort.every(([field, dir], i) => fields[equality + i]?.[0] === field && fields[equality + i]?.[1] === dir * flip);
  return matches(1) || matches(-1);
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

/** A cursor and a global id as the service writes them (opaque to clients; the test only needs valid ones). */
const cursor = (kind: string, id: number) => Buffer.from(`v1:${kind}:${id}`).toString("base64url");
/** A cursor of another order than PROJECT_ID ASC, as the service writes it. */
const orderedCursor = (order: string, value: string | number, id: number) =>
  Buffer.from(`v2:Project:${order}:${JSON.stringify([value, id])}`).toString("base64url");
const globalId = (type: string, id: number) => Buffer.from(`${type}:${id}`).toString("base64url");

describe("indexes behind the lists", () => {
  let db: Database;
  let t: TestApp;
  const shapes: QueryShape[] = [];
  const sent: DocumentNode[] = [];

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
    // New ids continue after the inserted ones.
    for (const [sequence, seq] of [
      ["projects", 300],
      ["teachers", 20],
      ["students", 200],
    ] as const) {
      await db.models.Counter.updateOne({ _id: sequence }, { $set: { seq } }, { upsert: true });
    }

    let label = "";
    const client = db.connection.getClient();
    const listener = (event: mongo.CommandStartedEvent) => {
      if (event.databaseName !== dbName) return;
      shapes.push(...shapesOf(label, event));
    };
    client.on("commandStarted", listener);
    try {
      const newProject = {
        input: {
          project_name: "A new project",
          project_desc: "Made by the index test",
          company_id: 3,
          project_status: "proposed",
          start_date: "2026-01-01",
          end_date: "2026-06-30",
        },
      };
      const webhookCursor = Buffer.from("wd1:5:lms", "utf8").toString("base64url");
      const newStudent = { input: { student_name: "New student", email: "new.student@school.test", class_code: "C3" } };
      // Each request: a label, the document it sends (for the coverage check) and the call.
      const requests: [string, DocumentNode, () => Promise<{ errors?: unknown }>][] = [
        ["projects", ListProjectsDocument, () => t.gql(ListProjectsDocument, { offset: 20 }, STUDENT)],
        [
          "projects by company_id",
          ListProjectsDocument,
          () => t.gql(ListProjectsDocument, { filter: { company_id: 3 } }, STUDENT),
        ],
        [
          "projects by project_status",
          ListProjectsDocument,
          () => t.gql(ListProjectsDocument, { filter: { project_status: "completed" } }, STUDENT),
        ],
        [
          "projects by teacher_id",
          ListProjectsDocument,
          () => t.gql(ListProjectsDocument, { filter: { teacher_id: 5 } }, STUDENT),
        ],
        [
          "projects by all filters",
          ListProjectsDocument,
          () =>
            t.gql(
              ListProjectsDocument,
              { filter: { company_id: 3, project_status: "completed", teacher_id: 5 } },
              STUDENT,
            ),
        ],
        ["teachers", ListTeachersDocument, () => t.gql(ListTeachersDocument, {}, STUDENT)],
        ["students", ListStudentsDocument, () => t.gql(ListStudentsDocument, {}, TEACHER)],
        [
          "students by class_code",
          ListStudentsDocument,
          () => t.gql(ListStudentsDocument, { filter: { class_code: "C3" } }, TEACHER),
        ],
        ["relations", ProjectsWithTeachersDocument, () => t.gql(ProjectsWithTeachersDocument, { limit: 50 }, STUDENT)],
        [
          "teacher's projects",
          TeacherProjectsPageDocument,
          () => t.gql(TeacherProjectsPageDocument, { teacherId: 5, offset: 2, limit: 5 }, STUDENT),
        ],
        [
          "teachers' projects",
          TeachersWithProjectPagesDocument,
          () => t.gql(TeachersWithProjectPagesDocument, { limit: 20, projectsOffset: 0, projectsLimit: 20 }, STUDENT),
        ],
        ["project", GetProjectDocument, () => t.gql(GetProjectDocument, { projectId: 7 }, STUDENT)],
        ["student", GetStudentDocument, () => t.gql(GetStudentDocument, { studentId: 7 }, TEACHER)],
        ["project statuses", ProjectStatusesDocument, () => t.gql(ProjectStatusesDocument, {}, STUDENT)],
        [
          "createTeacher",
          CreateTeacherDocument,
          () => t.gql(CreateTeacherDocument, { input: { teacher_name: "New teacher" } }, ADMIN),
        ],
        [
          "updateTeacher",
          UpdateTeacherDocument,
          () => t.gql(UpdateTeacherDocument, { teacherId: 3, input: { teacher_name: "Renamed" } }, ADMIN),
        ],
        ["createProject", CreateProjectDocument, () => t.gql(CreateProjectDocument, newProject, STUDENT)],
        [
          "assignTeacher",
          AssignTeacherDocument,
          () => t.gql(AssignTeacherDocument, { projectId: 7, input: { new_teacher_id: 4 } }, TEACHER),
        ],
        [
          "updateProjectStatus",
          UpdateProjectStatusDocument,
          () => t.gql(UpdateProjectStatusDocument, { projectId: 7, input: { project_status: "in_progress" } }, TEACHER),
        ],
        ["createStudent", CreateStudentDocument, () => t.gql(CreateStudentDocument, newStudent, ADMIN)],
        [
          "updateStudent",
          UpdateStudentDocument,
          () => t.gql(UpdateStudentDocument, { studentId: 7, input: { class_code: "C4" } }, ADMIN),
        ],
        // A name or email already taken: the service then looks the duplicate up.
        ["createProject again", CreateProjectDocument, () => t.gql(CreateProjectDocument, newProject, STUDENT)],
        ["createStudent again", CreateStudentDocument, () => t.gql(CreateStudentDocument, newStudent, ADMIN)],
        // A teacher projects have (IN_USE: the count in the deleting transaction), and an erasure (its compact).
        ["deleteTeacher", DeleteTeacherDocument, () => t.gql(DeleteTeacherDocument, { teacherId: 5 }, ADMIN)],
        ["deleteStudent", DeleteStudentDocument, () => t.gql(DeleteStudentDocument, { studentId: 9 }, ADMIN)],
        // A project's whole life: archived, unarchived, then deleted (its last log entry).
        ["archiveProject", ArchiveProjectDocument, () => t.gql(ArchiveProjectDocument, { projectId: 8 }, ADMIN)],
        ["unarchiveProject", UnarchiveProjectDocument, () => t.gql(UnarchiveProjectDocument, { projectId: 8 }, ADMIN)],
        ["deleteProject", DeleteProjectDocument, () => t.gql(DeleteProjectDocument, { projectId: 8 }, ADMIN)],
        // Webhook deliveries (admin): every filter, after a cursor ("wd1:<seq>:<endpoint>"), and a redelivery.
        ["webhookDeliveries", WebhookDeliveriesDocument, () => t.gql(WebhookDeliveriesDocument, { first: 10 }, ADMIN)],
        [
          "webhookDeliveries after a cursor",
          WebhookDeliveriesDocument,
          () => t.gql(WebhookDeliveriesDocument, { first: 10, after: webhookCursor }, ADMIN),
        ],
        [
          "webhookDeliveries of an endpoint after a cursor",
          WebhookDeliveriesDocument,
          () => t.gql(WebhookDeliveriesDocument, { endpoint: "lms", first: 10, after: webhookCursor }, ADMIN),
        ],
        [
          "webhookDeliveries by status",
          WebhookDeliveriesDocument,
          () => t.gql(WebhookDeliveriesDocument, { status: "FAILED", first: 10 }, ADMIN),
        ],
        [
          "webhookDeliveries of an endpoint by status",
          WebhookDeliveriesDocument,
          () => t.gql(WebhookDeliveriesDocument, { endpoint: "lms", status: "PENDING", first: 10 }, ADMIN),
        ],
        [
          "redeliverWebhook",
          RedeliverWebhookDocument,
          () => t.gql(RedeliverWebhookDocument, { id: "msg_lms_5" }, ADMIN),
        ],
        [
          "project history",
          ProjectHistoryDocument,
          () => t.gql(ProjectHistoryDocument, { projectId: 7, offset: 0, limit: 10 }, STUDENT),
        ],
        [
          "projectsConnection after a cursor, by teacher",
          ProjectsConnectionPageDocument,
          () =>
            t.gql(
              ProjectsConnectionPageDocument,
              { first: 10, after: cursor("Project", 100), filter: { teacher_id: 5 } },
              STUDENT,
            ),
        ],
        [
          "projectsConnection backward, by company",
          ProjectsConnectionPageDocument,
          () =>
            t.gql(
              ProjectsConnectionPageDocument,
              { last: 10, before: cursor("Project", 200), filter: { company_id: 3 } },
              STUDENT,
            ),
        ],
        [
          "projectsConnection counted, by status",
          ProjectsConnectionCountedDocument,
          () =>
            t.gql(ProjectsConnectionCountedDocument, { first: 10, filter: { project_status: "completed" } }, STUDENT),
        ],
        [
          "teachersConnection",
          TeachersConnectionPageDocument,
          () => t.gql(TeachersConnectionPageDocument, { last: 5 }, STUDENT),
        ],
        [
          "studentsConnection by class",
          StudentsConnectionPageDocument,
          () => t.gql(StudentsConnectionPageDocument, { first: 5, filter: { class_code: "C3" } }, TEACHER),
        ],
        [
          "teachers with a counted projectsConnection",
          TeachersWithProjectsConnectionCountedDocument,
          () => t.gql(TeachersWithProjectsConnectionCountedDocument, { teachers: 5, first: 5 }, STUDENT),
        ],
        ["node", NodeByIdDocument, () => t.gql(NodeByIdDocument, { id: globalId("Project", 7) }, TEACHER)],
        // Lists a board can ask for (contract, sixth revision): every order, a where of each kind, cursors deep in
        // an order, a company's column by deadline, counts by group, a teacher's lists.
        ...(
          [
            "PROJECT_ID",
            "PROJECT_NAME",
            "PROJECT_STATUS",
            "COMPANY_ID",
            "START_DATE",
            "END_DATE",
            "CREATED_AT",
            "UPDATED_AT",
          ] as const
        ).flatMap((field) =>
          (["ASC", "DESC"] as const).map((direction): [string, DocumentNode, () => Promise<{ errors?: unknown }>] => [
            `board: ordered by ${field} ${direction}`,
            BoardProjectsDocument,
            () => t.gql(BoardProjectsDocument, { orderBy: { field, direction }, limit: 10 }, STUDENT),
          ]),
        ),
        [
          "board: due this month, by deadline",
          BoardProjectsDocument,
          () =>
            t.gql(
              BoardProjectsDocument,
              {
                where: { end_date: { gte: "2025-06-01", lt: "2025-07-01" } },
                orderBy: { field: "END_DATE", direction: "ASC" },
              },
              STUDENT,
            ),
        ],
        [
          "board: still open and overdue, by deadline",
          BoardProjectsDocument,
          () =>
            t.gql(
              BoardProjectsDocument,
              {
                where: { project_status: { ne: "completed" }, end_date: { lt: "2025-07-01" } },
                orderBy: { field: "END_DATE", direction: "ASC" },
                limit: 10,
              },
              STUDENT,
            ),
        ],
        [
          "board: none of these statuses, newest first",
          BoardProjectsDocument,
          () =>
            t.gql(
              BoardProjectsDocument,
              {
                where: { project_status: { notIn: ["completed", "cancelled"] } },
                orderBy: { field: "CREATED_AT", direction: "DESC" },
                limit: 10,
              },
              STUDENT,
            ),
        ],
        [
          "board: a name typed into a search box",
          BoardProjectsDocument,
          () =>
            t.gql(
              BoardProjectsDocument,
              {
                where: { project_name: { startsWith: "proj" } },
                orderBy: { field: "PROJECT_NAME", direction: "ASC" },
                limit: 10,
              },
              STUDENT,
            ),
        ],
        [
          "board: by name after a cursor",
          BoardConnectionDocument,
          () =>
            t.gql(
              BoardConnectionDocument,
              {
                orderBy: { field: "PROJECT_NAME", direction: "ASC" },
                first: 10,
                after: orderedCursor("PROJECT_NAME:ASC", "project 150", 150),
              },
              STUDENT,
            ),
        ],
        [
          "board: a company's column by deadline, backward from a cursor",
          BoardConnectionDocument,
          () =>
            t.gql(
              BoardConnectionDocument,
              {
                where: { company_id: { eq: 3 } },
                orderBy: { field: "END_DATE", direction: "DESC" },
                last: 5,
                before: orderedCursor("END_DATE:DESC", "2025-06-30", 120),
              },
              STUDENT,
            ),
        ],
        [
          "teachers by name, a prefix, after a cursor",
          TeachersBoardDocument,
          () =>
            t.gql(
              TeachersBoardDocument,
              {
                where: { teacher_name: { startsWith: "teach" } },
                orderBy: { field: "TEACHER_NAME", direction: "DESC" },
                first: 5,
                after: Buffer.from('v2:Teacher:TEACHER_NAME:DESC:["teacher 9",9]').toString("base64url"),
              },
              STUDENT,
            ),
        ],
        [
          "students of a class by name, and by class code",
          StudentsBoardDocument,
          () =>
            t.gql(
              StudentsBoardDocument,
              {
                where: { student_name: { startsWith: "stud" } },
                orderBy: { field: "STUDENT_NAME", direction: "ASC" },
                first: 5,
              },
              TEACHER,
            ),
        ],
        [
          "students by class code, backward",
          StudentsBoardDocument,
          () =>
            t.gql(
              StudentsBoardDocument,
              {
                orderBy: { field: "CLASS_CODE", direction: "ASC" },
                last: 5,
                before: Buffer.from('v2:Student:CLASS_CODE:ASC:["C5",100]').toString("base64url"),
              },
              TEACHER,
            ),
        ],
        [
          "board: created in a range, newest first, after a cursor",
          BoardConnectionDocument,
          () =>
            t.gql(
              BoardConnectionDocument,
              {
                where: { created_at: { gte: "2020-01-01T00:00:00Z" } },
                orderBy: { field: "CREATED_AT", direction: "DESC" },
                first: 5,
                after: orderedCursor("CREATED_AT:DESC", new Date().toISOString(), 120),
              },
              STUDENT,
            ),
        ],
        [
          "board: columns counted by status",
          BoardCountsDocument,
          () => t.gql(BoardCountsDocument, { where: { company_id: { eq: 3 } }, groupBy: "PROJECT_STATUS" }, STUDENT),
        ],
        [
          "board: a teacher's lists by deadline",
          TeacherBoardDocument,
          () =>
            t.gql(
              TeacherBoardDocument,
              { teacherId: 5, orderBy: { field: "END_DATE", direction: "ASC" }, first: 3 },
              STUDENT,
            ),
        ],
        [
          "nodes",
          NodesByIdsDocument,
          () =>
            t.gql(
              NodesByIdsDocument,
              { ids: [globalId("Project", 8), globalId("Teacher", 3), globalId("Student", 9)] },
              TEACHER,
            ),
        ],
      ];
      sent.push(...requests.map(([, document]) => document));
      for (const [name, , run] of requests) {
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

  it("when the requests are made, then together they use every query and mutation of the schema", () => {
    const schema = buildSchema(fs.readFileSync(path.join(__dirname, "../../schema/schema.graphql"), "utf8"));
    const fields = [schema.getQueryType()!, schema.getMutationType()!].flatMap((type) =>
      Object.keys(type.getFields()).map((name) => `${type.name}.${name}`),
    );
    const used = new Set(
      sent.flatMap((document) =>
        document.definitions
          .filter((d): d is OperationDefinitionNode => d.kind === Kind.OPERATION_DEFINITION)
          .flatMap((op) =>
            op.selectionSet.selections.flatMap((sel) =>
              sel.kind === Kind.FIELD ? [`${op.operation === "query" ? "Query" : "Mutation"}.${sel.name.value}`] : [],
            ),
          ),
      ),
    );
    expect(fields.filter((f) => !used.has(f))).toEqual([]);
  });

  it("when the lists and relations are queried, then every query they send is captured", () => {
    // Sanity of the capture itself: one find per list request plus its count, the loader finds, and a project's read.
    expect(shapes.map((s) => s.label)).toEqual(
      expect.arrayContaining([
        "projects by company_id: find projects",
        "projects by company_id: count projects",
        "students by class_code: find students",
        // A page with its teachers, and a project by id with its teacher: one aggregation each, whose $lookup reads
        // the teachers.
        "relations: aggregate projects",
        "relations: $lookup teachers",
        "project: aggregate projects",
        "project: $lookup teachers",
      ]),
    );
    // The page with its teachers ($lookup), its count, and a page of projects per distinct teacher of the page.
    const teachersOfPage = new Set(
      range(1, 50)
        .filter((id) => id % 3 !== 0)
        .map((id) => (id % 20) + 1),
    );
    expect(shapes.filter((s) => s.label.startsWith("relations:"))).toHaveLength(3 + teachersOfPage.size);
  });

  it("when a list or loader query filters or sorts, then an index starts with its filter fields followed by the sort key", async () => {
    const indexesOf = new Map<string, Record<string, number>[]>();
    // project_revisions is legacy, only read by the one-time migration (where it exists).
    const { ProjectRevision: _legacy, ...models } = db.models;
    for (const model of Object.values(models)) {
      const indexes = (await model.collection.indexes()) as { key: Record<string, number> }[];
      indexesOf.set(
        model.collection.collectionName,
        indexes.map((i) => i.key),
      );
    }
    const needIndex = shapes.filter((s) => s.filterFields.length > 0 || s.rangeFields.length > 0 || s.sort.length > 0);
    expect(needIndex.length).toBeGreaterThanOrEqual(15);
    const unserved = needIndex
      .filter((shape) => !(indexesOf.get(shape.collection) ?? []).some((key) => serves(key, shape)))
      .map(
        (s) =>
          `${s.label} (filter ${[...s.filterFields, ...s.rangeFields].join(",") || "none"}, sort ${s.sort.map(([f]) => f).join(",") || "none"})`,
      );
    expect(unserved).toEqual([]);
  });

  // On the embedded FerretDB: the plans of the SQL statements themselves.
  if (ON_FERRETDB) {
    it("when the SQL statements FerretDB ran for these requests are planned by SQLite, then each searches an index and none scans a table", async () => {
      const statements = (await sqlPlansOf(db.connection.db!.databaseName))!;
      const onCollections = statements.filter((s) =>
        s.plan?.some((line) => /^(SCAN|SEARCH) (?!_ferretdb_|sqlite_)\S+/.test(line)),
      );
      // Sanity: the statements of the lists are there (an ordered page, a filtered count).
      expect(onCollections.some((s) => / ORDER BY .* LIMIT /.test(s.sql))).toBe(true);
      expect(onCollections.some((s) => /^SELECT count\(\*\) FROM "[^"]+" WHERE /.test(s.sql))).toBe(true);
      expect(statements.filter((s) => s.error)).toEqual([]);
      const scans = onCollections.flatMap((s) =>
        // A table scan; or an index walked whole (without LIMIT), reading every document. A count may walk the
        // smallest index (no document is read); the merged reads of an $in are scanned as a subquery.
        s
          .plan!.filter(
            (line) => /^SCAN [^\s(]\S*$/.test(line) || (/^SCAN \S+ USING INDEX /.test(line) && !/ LIMIT /.test(s.sql)),
          )
          .map((line) => `${line} for ${s.sql.slice(0, 300)}`),
      );
      expect(scans).toEqual([]);
    });
  }

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
