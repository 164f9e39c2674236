// The query cost limit: every list counts as its limit times the cost of its items, and a document over
// MAX_QUERY_COST is refused before it runs (HTTP 400, BAD_REQUEST, the message names the cost and the maximum),
// while sensible frontend pages and the most a document may ask for are answered.
import { getIntrospectionQuery, parse } from "graphql";
import type { mongo } from "mongoose";
import { openDatabase, type Database } from "../../src/persistence";
import { MAX_QUERY_COST, queryCost } from "../../src/graphql/query-cost";
import { getSchema } from "../../src/graphql/schema";
import {
  CreateTeacherReadingNestedProjectsDocument,
  NestedTeacherProjectsDocument,
  NestedTeacherProjectsThreeAliasesDocument,
  ProjectsPageWithTeacherDocument,
  ProjectsWithTeacherProjectPagesDocument,
  TeachersPageWithProjectsDocument,
  TeachersWithProjectPagesDocument,
} from "../generated/graphql";
import { startTestApp, type GraphQLBody, type GraphQLResponse, type TestApp } from "../helpers/app";
import { dropTestDatabase, testDbName, testMongoUri } from "../helpers/database";
import { ADMIN, STUDENT, insertProjects, insertTeachers, range } from "../lists/support";

describe("query cost limit", () => {
  let db: Database;
  let t: TestApp;
  let dbName: string;

  beforeAll(async () => {
    dbName = testDbName();
    db = await openDatabase(testMongoUri(), { dbName, monitorCommands: true });
    t = await startTestApp({ db });
    // The report's data: one teacher with 150 projects, a few other teachers with a few projects.
    await insertTeachers(db, range(1, 25));
    await insertProjects(db, [
      ...range(1, 150).map((project_id) => ({ project_id, teacher_id: 1 })),
      ...range(151, 250).map((project_id) => ({ project_id, teacher_id: 2 + (project_id % 24) })),
    ]);
  });
  afterAll(async () => {
    await t.app.close();
    await dropTestDatabase(db);
  });

  /** Runs the call and returns its response with the database commands sent meanwhile. */
  async function watchingCommands<T>(call: () => Promise<GraphQLResponse<T>>) {
    const commands: string[] = [];
    const listener = (event: mongo.CommandStartedEvent) => {
      if (event.databaseName === dbName) commands.push(event.commandName);
    };
    const client = db.connection.getClient();
    client.on("commandStarted", listener);
    try {
      return { res: await call(), commands };
    } finally {
      client.off("commandStarted", listener);
    }
  }

  function expectRefused(res: GraphQLResponse<unknown>, cost: number): void {
    expect(res.status).toBe(400);
    expect(res.data ?? undefined).toBeUndefined();
    expect(res.errors).toHaveLength(1);
    expect(res.errors![0].extensions?.code).toBe("BAD_REQUEST");
    expect(res.errors![0].message).toBe(
      `Query cost ${cost} exceeds the maximum of ${MAX_QUERY_COST}: every list counts as its limit times the cost of ` +
        `its fields; ask for smaller pages or fewer nested lists`,
    );
  }

  it("when the reported query (100 projects x 20 teacher projects x 20 teacher projects) is sent, then it is refused with 400 before any database command", async () => {
    const { res, commands } = await watchingCommands(() =>
      t.gql(NestedTeacherProjectsDocument, { teacherId: 1 }, STUDENT),
    );
    expectRefused(res, 214_301);
    expect(commands).toEqual([]);
  });

  it("when its three-alias form is sent, then it is refused with 400 before any database command", async () => {
    const { res, commands } = await watchingCommands(() =>
      t.gql(NestedTeacherProjectsThreeAliasesDocument, { teacherId: 1 }, STUDENT),
    );
    expectRefused(res, 3 * 214_301);
    expect(commands).toEqual([]);
  });

  it("when a mutation selects more than the maximum cost, then it is refused with 400 and nothing is created", async () => {
    const teacher_name = `Over budget ${Date.now()}`;
    const res = await t.gql(CreateTeacherReadingNestedProjectsDocument, { input: { teacher_name } }, ADMIN);
    expectRefused(res, 10_205);
    expect(await db.models.Teacher.countDocuments({ teacher_name })).toBe(0);
  });

  it("when the limits come from variables, then the cost counts them: 100 teachers x 100 projects is refused, 100 x 20 answered", async () => {
    const big = await t.gql(
      TeachersWithProjectPagesDocument,
      { limit: 100, projectsOffset: 0, projectsLimit: 100 },
      STUDENT,
    );
    expectRefused(big, 20_301);

    const small = await t.gql(
      TeachersWithProjectPagesDocument,
      { limit: 100, projectsOffset: 0, projectsLimit: 20 },
      STUDENT,
    );
    expect(small.status).toBe(200);
    expect(small.errors).toBeUndefined();
    expect(small.data!.teachers.items).toHaveLength(25);
    expect(small.data!.teachers.items[0].projects.map((p) => p.project_id)).toEqual(range(1, 20));
  });

  it("when a page of 100 projects with their teacher is asked, then it is answered", async () => {
    const res = await t.gql(ProjectsPageWithTeacherDocument, {}, STUDENT);
    expect(res.status).toBe(200);
    expect(res.errors).toBeUndefined();
    expect(res.data!.projects.items).toHaveLength(100);
    expect(res.data!.projects.items.every((p) => p.teacher?.teacher_id === 1)).toBe(true);
  });

  it("when a page of 20 teachers with 20 projects each is asked, then it is answered", async () => {
    const res = await t.gql(TeachersPageWithProjectsDocument, {}, STUDENT);
    expect(res.status).toBe(200);
    expect(res.errors).toBeUndefined();
    expect(res.data!.teachers.items).toHaveLength(20);
    expect(res.data!.teachers.items[0].projects.map((p) => p.project_id)).toEqual(range(1, 20));
    for (const teacher of res.data!.teachers.items) {
      expect(teacher.projects.every((p) => p.teacher_id === teacher.teacher_id)).toBe(true);
    }
  });

  it("when a query just under the maximum (100 projects, each with 95 of its teacher's projects) is asked, then it is answered in full", async () => {
    const res = await t.gql(ProjectsWithTeacherProjectPagesDocument, { teacherId: 1 }, STUDENT);
    expect(res.status).toBe(200);
    expect(res.errors).toBeUndefined();
    const items = res.data!.projects.items;
    expect(items.map((p) => p.project_id)).toEqual(range(1, 100));
    for (const item of items) expect(item.teacher!.projects.map((p) => p.project_id)).toEqual(range(1, 95));
  });

  it("when an explorer sends the standard introspection query, then its cost fits and it is answered", async () => {
    expect(queryCost(getSchema(), parse(getIntrospectionQuery()))).toBeLessThan(MAX_QUERY_COST);
    const res = await t.http<GraphQLBody<{ __schema: { queryType: { name: string } } }>>("POST", "/graphql", {
      body: { query: getIntrospectionQuery() },
      headers: STUDENT,
    });
    expect(res.status).toBe(200);
    expect(res.body.errors).toBeUndefined();
    expect(res.body.data!.__schema.queryType.name).toBe("Query");
  });

  it("the documented costs hold: the examples of the README cost what it says", () => {
    const schema = getSchema();
    expect(MAX_QUERY_COST).toBe(10_000);
    expect(queryCost(schema, ProjectsPageWithTeacherDocument, {})).toBe(1_901);
    expect(queryCost(schema, TeachersPageWithProjectsDocument, {})).toBe(4_561);
    expect(queryCost(schema, ProjectsWithTeacherProjectPagesDocument, { teacherId: 1 })).toBe(9_901);
    expect(queryCost(schema, NestedTeacherProjectsDocument, { teacherId: 1 })).toBe(214_301);
    const hundredByHundred =
      "{ projects(limit: 100) { items { project_id teacher { projects(limit: 100) { project_id } } } } }";
    expect(queryCost(schema, parse(hundredByHundred))).toBe(10_401);
  });
});
