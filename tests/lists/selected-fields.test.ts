// A page of projects, a connection of projects, a teacher's page of projects, and a project by id, read only the fields the selection needs (a projection of the find,
// or the $project of a project's aggregation with its teacher, applied by the embedded FerretDB's fast read path or by MongoDB), and answer exactly what a read of whole records
// answers: for every field of Project alone, for random sets of fields, through fragments and aliases (a page's
// documents without `_id`, which no record holds; a project by id with it, its key). The record
// guard then checks the fields answered: a stored value breaking a field nobody asked for no longer hides the project
// from that page, nor fails the read by id.
import { openDatabase } from "../../src/persistence";
import { startTestApp, type GraphQLBody, type TestApp } from "../helpers/app";
import { commandsDuring, dropTestDatabase, testDbName, testMongoUri } from "../helpers/database";
import { ADMIN, insertProjects, insertTeachers, range } from "./support";

type Item = Record<string, unknown>;
type PageBody = GraphQLBody<{
  projects?: { items: Item[] };
  projectsConnection?: { edges?: { cursor: string; node: Item }[]; nodes?: Item[]; pageInfo?: Item };
  project?: Item | null;
  teachers?: { items: { teacher_id: number; projects: Item[] }[] };
}>;

/** Every field of Project, each with what it selects below it. */
const ALL_FIELDS: Record<string, string> = {
  id: "id",
  project_id: "project_id",
  project_name: "project_name",
  project_desc: "project_desc",
  company_id: "company_id",
  project_status: "project_status",
  project_url: "project_url",
  start_date: "start_date",
  end_date: "end_date",
  teacher_id: "teacher_id",
  revision: "revision",
  created_by: "created_by",
  created_at: "created_at",
  updated_at: "updated_at",
  teacher: "teacher { teacher_id teacher_name }",
  history: "history(limit: 2) { total items { revision operation } }",
  __typename: "__typename",
};

/** The stored fields a selection of these Project fields reads (the find's projection), _id aside. */
const READS: Record<string, string[]> = {
  id: ["project_id"],
  teacher: ["teacher_id"],
  history: ["project_id", "revision"],
};

describe("reads of projects take the fields the query asks for", () => {
  let t: TestApp;
  beforeAll(async () => {
    const db = await openDatabase(testMongoUri(), { dbName: testDbName(), monitorCommands: true });
    t = await startTestApp({ db });
    await insertTeachers(db, range(1, 3));
    await insertProjects(
      db,
      range(1, 30).map((project_id) => ({
        project_id,
        teacher_id: project_id % 4 === 0 ? null : 1 + (project_id % 3),
        project_url: project_id % 2 ? `https://example.org/${project_id}` : null,
        company_id: 1 + (project_id % 5),
        revision: 1 + (project_id % 3),
        created_by: project_id % 3 ? `user-${project_id}` : null,
      })),
    );
  });
  afterAll(async () => {
    await t.app.close();
    await dropTestDatabase(t.db);
  });

  async function read(query: string): Promise<{ body: PageBody; projections: unknown[] }> {
    const { result, commands } = await commandsDuring(t.db, () =>
      t.http<PageBody>("POST", "/graphql", { body: { query }, headers: ADMIN }),
    );
    const projections = commands.flatMap((event) => {
      if (event.commandName === "find" && event.command.find === "projects") return [event.command.projection ?? null];
      // A project by id with its teacher: one aggregation, whose $project is the projection.
      if (event.commandName === "aggregate" && event.command.aggregate === "projects") {
        const stages = event.command.pipeline as Record<string, unknown>[];
        return [stages.find((stage) => "$project" in stage)?.$project ?? null];
      }
      return [];
    });
    return { body: result.body, projections };
  }

  async function page(query: string): Promise<{ items: Item[]; projections: unknown[] }> {
    const { body, projections } = await read(query);
    expect(body.errors).toBeUndefined();
    return { items: body.data!.projects!.items, projections };
  }

  const pageOf = (selection: string) => `{ projects(limit: 25, offset: 3) { items { ${selection} } } }`;

  /** The whole page's items, each restricted to these fields. */
  async function expectedItems(fields: string[]): Promise<Item[]> {
    const whole = await page(pageOf(Object.values(ALL_FIELDS).join(" ")));
    return whole.items.map((item) => Object.fromEntries(fields.map((f) => [f, item[f]])));
  }

  it("when each field of Project is asked for alone, then the find reads only what it needs and the items are the whole page's", async () => {
    for (const [field, selection] of Object.entries(ALL_FIELDS)) {
      const { items, projections } = await page(pageOf(selection));
      expect(items).toEqual(await expectedItems([field]));
      const reads = new Set(["project_id", ...(READS[field] ?? (field === "__typename" ? [] : [field]))]);
      expect(projections).toEqual([{ _id: 0, ...Object.fromEntries([...reads].map((f) => [f, 1])) }]);
    }
  });

  it("when random sets of fields are asked for, then the items are the whole page's", async () => {
    const names = Object.keys(ALL_FIELDS);
    let seed = 7;
    const next = () => (seed = (seed * 48271) % 2147483647) / 2147483647;
    for (let i = 0; i < 25; i++) {
      const fields = names.filter(() => next() < 0.35);
      if (fields.length === 0) fields.push("project_name");
      const { items } = await page(pageOf(fields.map((f) => ALL_FIELDS[f]).join(" ")));
      expect(items).toEqual(await expectedItems(fields));
    }
  });

  it("when fields come through fragments and aliases, then each is read and answered", async () => {
    const { items, projections } = await page(
      "{ projects(limit: 25, offset: 3) { ...Page } } fragment Page on ProjectPage { items { name: project_name ... on Project { end_date } ...Dates } } fragment Dates on Project { start_date }",
    );
    const expected = await expectedItems(["project_name", "end_date", "start_date"]);
    expect(items).toEqual(expected.map(({ project_name, ...rest }) => ({ name: project_name, ...rest })));
    expect(projections).toEqual([{ _id: 0, project_id: 1, project_name: 1, end_date: 1, start_date: 1 }]);
  });

  it("when a project breaks the rules in a field not asked for, then that page lists it; asked for, it is left out", async () => {
    await insertProjects(t.db, [{ project_id: 40, company_id: 2 ** 31 }]);
    const listed = async (selection: string) =>
      (await page(`{ projects(limit: 100) { items { ${selection} } } }`)).items.map((p) => p.project_id);

    expect(await listed("project_id project_name")).toContain(40);
    expect(await listed("project_id company_id")).not.toContain(40);
  });

  /** A connection's nodes (under edges, and under nodes when both are asked for, which must agree). */
  async function connection(query: string): Promise<{ nodes: Item[]; projections: unknown[]; body: PageBody }> {
    const { body, projections } = await read(query);
    expect(body.errors).toBeUndefined();
    const page = body.data!.projectsConnection!;
    const nodes = page.edges ? page.edges.map((edge) => edge.node) : page.nodes!;
    if (page.edges && page.nodes) expect(page.nodes).toEqual(nodes);
    return { nodes, projections, body };
  }

  const connectionOf = (selection: string) =>
    `{ projectsConnection(first: 25, after: "${Buffer.from("v1:Project:3").toString("base64url")}") { edges { cursor node { ${selection} } } pageInfo { hasNextPage endCursor } } }`;

  it("when a connection's nodes ask for each field alone or random sets, then the find reads only what they need and the nodes are the whole page's", async () => {
    const whole = await connection(connectionOf(Object.values(ALL_FIELDS).join(" ")));
    expect(whole.nodes.map((n) => n.project_id)).toEqual(range(4, 28));
    const restricted = (fields: string[]) =>
      whole.nodes.map((node) => Object.fromEntries(fields.map((f) => [f, node[f]])));

    for (const [field, selection] of Object.entries(ALL_FIELDS)) {
      const { nodes, projections, body } = await connection(connectionOf(selection));
      expect(nodes).toEqual(restricted([field]));
      // The cursors and pageInfo are the whole read's too.
      expect(body.data!.projectsConnection!.pageInfo).toEqual(whole.body.data!.projectsConnection!.pageInfo);
      expect(body.data!.projectsConnection!.edges!.map((e) => e.cursor)).toEqual(
        whole.body.data!.projectsConnection!.edges!.map((e) => e.cursor),
      );
      const reads = new Set(["project_id", ...(READS[field] ?? (field === "__typename" ? [] : [field]))]);
      expect(projections).toEqual([{ _id: 0, ...Object.fromEntries([...reads].map((f) => [f, 1])) }]);
    }
    let seed = 13;
    const next = () => (seed = (seed * 48271) % 2147483647) / 2147483647;
    for (let i = 0; i < 15; i++) {
      const fields = Object.keys(ALL_FIELDS).filter(() => next() < 0.35);
      if (fields.length === 0) fields.push("start_date");
      const { nodes } = await connection(connectionOf(fields.map((f) => ALL_FIELDS[f]).join(" ")));
      expect(nodes).toEqual(restricted(fields));
    }
  });

  it("when a connection asks for fields under edges and under nodes, then both are read, and each answers its own", async () => {
    const { body, projections } = await read(
      "{ projectsConnection(first: 5) { edges { node { project_name } } nodes { end_date ...Teacher } } } fragment Teacher on Project { teacher { teacher_id } }",
    );
    const whole = await connection(
      "{ projectsConnection(first: 5) { nodes { project_name end_date teacher { teacher_id } } } }",
    );

    expect(body.errors).toBeUndefined();
    expect(body.data!.projectsConnection!.edges!.map((e) => e.node)).toEqual(
      whole.nodes.map(({ project_name }) => ({ project_name })),
    );
    expect(body.data!.projectsConnection!.nodes).toEqual(whole.nodes.map(({ project_name: _, ...rest }) => rest));
    expect(projections).toEqual([{ _id: 0, project_id: 1, project_name: 1, end_date: 1, teacher_id: 1 }]);
  });

  it("when a connection asks for no field of its nodes, then it reads their ids only", async () => {
    const { body, projections } = await read("{ projectsConnection(first: 3) { pageInfo { hasNextPage endCursor } } }");

    expect(body.errors).toBeUndefined();
    expect(body.data!.projectsConnection!.pageInfo).toEqual({
      hasNextPage: true,
      endCursor: Buffer.from("v1:Project:3").toString("base64url"),
    });
    expect(projections).toEqual([{ _id: 0, project_id: 1 }]);
  });

  it("when a project breaks the rules in a field a connection does not ask for, then the connection lists it; asked for, it is left out", async () => {
    await insertProjects(t.db, [{ project_id: 42, company_id: 2 ** 31 }]);
    const listed = async (selection: string) =>
      (await connection(`{ projectsConnection(first: 100) { nodes { ${selection} } } }`)).nodes.map(
        (p) => p.project_id,
      );

    expect(await listed("project_id project_name")).toContain(42);
    expect(await listed("project_id company_id")).not.toContain(42);
  });

  it("when a project by id is asked for with each field alone, then the find reads only what it needs and the answer is the whole record's", async () => {
    const whole = await read(`{ project(projectId: 7) { ${Object.values(ALL_FIELDS).join(" ")} } }`);
    expect(whole.body.errors).toBeUndefined();
    for (const [field, selection] of Object.entries(ALL_FIELDS)) {
      const { body, projections } = await read(`{ project(projectId: 7) { ${selection} } }`);
      expect(body.errors).toBeUndefined();
      expect(body.data!.project).toEqual({ [field]: whole.body.data!.project![field] });
      const reads = new Set(["project_id", ...(READS[field] ?? (field === "__typename" ? [] : [field]))]);
      expect(projections).toEqual([Object.fromEntries([...reads].map((f) => [f, 1]))]);
    }
  });

  it("when a project by id breaks the rules in a field not asked for, then it is answered; asked for, it is an internal error", async () => {
    await insertProjects(t.db, [{ project_id: 41, company_id: 2 ** 31 }]);

    const fine = await read("{ project(projectId: 41) { project_id project_name } }");
    const broken = await read("{ project(projectId: 41) { project_id company_id } }");

    expect(fine.body.errors).toBeUndefined();
    expect(fine.body.data!.project).toEqual({ project_id: 41, project_name: "Project 41" });
    expect(broken.body.errors?.[0]?.extensions?.code).toBe("INTERNAL_SERVER_ERROR");
    expect(broken.body.data?.project ?? null).toBeNull();
  });

  it("when a teacher's page of projects asks for each field alone or random sets, then every find reads only what they need and the items are the whole page's", async () => {
    const teacherPages = async (selection: string) => {
      const { body, projections } = await read(
        `{ teachers(limit: 3) { items { teacher_id projects(offset: 1, limit: 4) { ${selection} } } } }`,
      );
      expect(body.errors).toBeUndefined();
      return { teachers: body.data!.teachers!.items, projections };
    };
    const whole = await teacherPages(Object.values(ALL_FIELDS).join(" "));
    expect(whole.teachers.map((t) => t.projects.length)).toEqual([4, 4, 4]);
    const restricted = (fields: string[]) =>
      whole.teachers.map((t) => ({
        teacher_id: t.teacher_id,
        projects: t.projects.map((p) => Object.fromEntries(fields.map((f) => [f, p[f]]))),
      }));

    for (const [field, selection] of Object.entries(ALL_FIELDS)) {
      const { teachers, projections } = await teacherPages(selection);
      expect(teachers).toEqual(restricted([field]));
      const reads = new Set(["project_id", ...(READS[field] ?? (field === "__typename" ? [] : [field]))]);
      expect(projections).toEqual(Array(3).fill({ _id: 0, ...Object.fromEntries([...reads].map((f) => [f, 1])) }));
    }
    let seed = 11;
    const next = () => (seed = (seed * 48271) % 2147483647) / 2147483647;
    for (let i = 0; i < 10; i++) {
      const fields = Object.keys(ALL_FIELDS).filter(() => next() < 0.35);
      if (fields.length === 0) fields.push("end_date");
      const { teachers } = await teacherPages(fields.map((f) => ALL_FIELDS[f]).join(" "));
      expect(teachers).toEqual(restricted(fields));
    }
  });

  it("when two selections of a teacher's projects ask for other fields in one request, then each answers its own fields", async () => {
    const { body } = await read(
      "{ teachers(limit: 2) { items { a: projects(limit: 2) { project_name } b: projects(limit: 2) { start_date revision } } } }",
    );
    const whole = await read(
      "{ teachers(limit: 2) { items { projects(limit: 2) { project_name start_date revision } } } }",
    );
    expect(body.errors).toBeUndefined();
    const items = (body.data!.teachers!.items as unknown as { a: Item[]; b: Item[] }[]).map(({ a, b }) => ({ a, b }));
    expect(items).toEqual(
      whole.body.data!.teachers!.items.map((t) => ({
        a: t.projects.map((p) => ({ project_name: p.project_name })),
        b: t.projects.map((p) => ({ start_date: p.start_date, revision: p.revision })),
      })),
    );
  });
});
