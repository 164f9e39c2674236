// With FEDERATION=true the service answers routers: `_service { sdl }` to anyone (routers ask without credentials),
// `_entities` to authenticated callers, each entity as node(id) answers it (null where the caller may not read it, a
// Student never to a student), by either key, a batch in one database query per type; and `_entities` is a query
// like any other: it counts in the query cost and the rate limit, and trusted documents apply to it.
import crypto from "node:crypto";
import fs from "node:fs";
import { parseTrustedDocuments } from "../../src/graphql/trusted-documents";
import { SUBGRAPH_FILE } from "../../src/graphql/schema";
import { startTestApp } from "../helpers/app";
import { bearer, JWT_AUTH } from "../helpers/tokens";
import {
  ADMIN,
  ENTITIES_QUERY,
  idOf,
  insertProjects,
  insertStudents,
  insertTeachers,
  range,
  startSubgraph,
  STUDENT,
  TEACHER,
  type Subgraph,
} from "./support";

type Entity = Record<string, unknown> | null;
type EntitiesData = { _entities: Entity[] };

const project = (n: number) => ({
  __typename: "Project",
  id: idOf("Project", n),
  project_id: n,
  project_name: `Project ${n}`,
});
const teacher = (n: number) => ({
  __typename: "Teacher",
  id: idOf("Teacher", n),
  teacher_id: n,
  teacher_name: `Teacher ${n}`,
});
const student = (n: number) => ({
  __typename: "Student",
  id: idOf("Student", n),
  student_id: n,
  student_name: `Student ${n}`,
});

describe("_entities and _service of the subgraph", () => {
  let t: Subgraph;
  beforeAll(async () => {
    t = await startSubgraph();
    await insertTeachers(t.db, range(1, 100));
    await insertProjects(
      t.db,
      range(1, 100).map((project_id) => ({ project_id })),
    );
    await insertStudents(
      t.db,
      range(1, 100).map((student_id) => ({ student_id, class_code: "F1" })),
    );
  });
  afterAll(() => t.close());

  const entities = (representations: unknown[], headers = ADMIN) =>
    t.post<EntitiesData>({ query: ENTITIES_QUERY, variables: { representations } }, headers);

  it("when a router asks for _service { sdl } without any credentials, then it gets the committed schema/subgraph.graphql", async () => {
    const res = await t.post<{ _service: { sdl: string } }>({ query: "{ _service { sdl } }" });

    expect(res.status).toBe(200);
    expect(res.body.errors).toBeUndefined();
    expect(res.body.data!._service.sdl).toBe(fs.readFileSync(SUBGRAPH_FILE, "utf8"));
  });

  it("when each entity is named by its global id and by its number, then both keys resolve to the record", async () => {
    const res = await entities([
      { __typename: "Project", id: idOf("Project", 1) },
      { __typename: "Project", project_id: 1 },
      { __typename: "Teacher", id: idOf("Teacher", 3) },
      { __typename: "Teacher", teacher_id: 3 },
      { __typename: "Student", id: idOf("Student", 4) },
      { __typename: "Student", student_id: 4 },
    ]);

    expect(res.status).toBe(200);
    expect(res.body.errors).toBeUndefined();
    expect(res.body.data!._entities).toEqual([project(1), project(1), teacher(3), teacher(3), student(4), student(4)]);
  });

  it("when a representation names nothing of its type (unknown, malformed, another type's id, a key of the wrong kind), then its entity is null", async () => {
    const res = await entities([
      { __typename: "Project", project_id: 999 },
      { __typename: "Project", id: idOf("Project", 999) },
      { __typename: "Project", id: "not-a-global-id" },
      { __typename: "Project", id: idOf("Teacher", 1) },
      { __typename: "Teacher", id: idOf("Project", 1) },
      { __typename: "Project", project_id: "1" },
      { __typename: "Project", project_id: 0 },
      { __typename: "Project", project_id: 1.5 },
      { __typename: "Student", student_id: -4 },
      { __typename: "Teacher" },
    ]);

    expect(res.status).toBe(200);
    expect(res.body.errors).toBeUndefined();
    expect(res.body.data!._entities).toEqual(Array(10).fill(null));
  });

  it("when a representation names a type that is no entity of this service, then the batch is BAD_REQUEST naming representations, and nothing is read", async () => {
    const { result: res, commands } = await t.commandsOf(() =>
      entities([{ __typename: "Project", project_id: 1 }, { __typename: "ProjectPage" }]),
    );

    expect(res.body.data).toBeNull();
    expect(res.body.errors).toEqual([
      expect.objectContaining({
        message: expect.stringMatching(/^representations\[1\] names no entity of this service/),
        extensions: expect.objectContaining({ code: "BAD_REQUEST", field: "representations" }),
      }),
    ]);
    expect(commands).toEqual([]);
  });

  it("when a student asks for entities, then projects and teachers resolve and every Student is null, as node(id) answers", async () => {
    const representations = [
      { __typename: "Student", student_id: 4 },
      { __typename: "Project", project_id: 1 },
      { __typename: "Student", id: idOf("Student", 5) },
      { __typename: "Teacher", teacher_id: 2 },
    ];

    const asStudent = await entities(representations, STUDENT);
    const asTeacher = await entities(representations, TEACHER);

    expect(asStudent.body.data!._entities).toEqual([null, project(1), null, teacher(2)]);
    expect(asTeacher.body.data!._entities).toEqual([student(4), project(1), student(5), teacher(2)]);
  });

  it("when an unauthenticated caller asks for entities, then it is UNAUTHORIZED and nothing is read", async () => {
    const { result: res, commands } = await t.commandsOf(() =>
      entities([{ __typename: "Project", project_id: 1 }], {}),
    );

    expect(res.body.data).toBeNull();
    expect(res.body.errors).toEqual([
      expect.objectContaining({ extensions: expect.objectContaining({ code: "UNAUTHORIZED" }) }),
    ]);
    expect(commands).toEqual([]);
  });

  it("when a batch names 100 entities of each type by either key, then the service reads them in one query per type, in order", async () => {
    const representations = range(1, 100).flatMap((n) => [
      n % 2 ? { __typename: "Project", project_id: n } : { __typename: "Project", id: idOf("Project", n) },
      n % 2 ? { __typename: "Teacher", id: idOf("Teacher", n) } : { __typename: "Teacher", teacher_id: n },
      n % 3 ? { __typename: "Student", student_id: n } : { __typename: "Student", id: idOf("Student", n) },
    ]);

    const { result: res, commands } = await t.commandsOf(() => entities(representations, TEACHER));

    expect(res.body.errors).toBeUndefined();
    expect(res.body.data!._entities).toEqual(range(1, 100).flatMap((n) => [project(n), teacher(n), student(n)]));
    expect(commands).toEqual(["find projects", "find students", "find teachers"]);
  });

  it("when a batch's answer would cost more than the query cost allows, then it is refused before anything is read", async () => {
    const representations = range(1, 2500).map((project_id) => ({ __typename: "Project", project_id }));

    const { result: res, commands } = await t.commandsOf(() => entities(representations));

    expect(res.status).toBe(400);
    expect(res.body.errors).toEqual([
      expect.objectContaining({
        message: expect.stringMatching(/^Query cost \d+ exceeds the maximum of 10000/),
        extensions: expect.objectContaining({ code: "BAD_REQUEST", reason: "TOO_COMPLEX" }),
      }),
    ]);
    expect(commands).toEqual([]);
  });
});

describe("_entities is a query like any other", () => {
  const sha256 = (text: string) => crypto.createHash("sha256").update(text).digest("hex");
  const ONE_PROJECT = { representations: [{ __typename: "Project", project_id: 1 }] };

  it("when only trusted documents run, then a router's _entities text is refused and the same document named by its id runs", async () => {
    const t = await startSubgraph({
      config: {
        trustedDocuments: parseTrustedDocuments(
          JSON.stringify({ [`sha256:${sha256(ENTITIES_QUERY)}`]: ENTITIES_QUERY }),
        ),
        trustedDocumentsOnly: true,
      },
    });
    try {
      await insertProjects(t.db, [{ project_id: 1 }]);

      const asText = await t.post<EntitiesData>({ query: ENTITIES_QUERY, variables: ONE_PROJECT }, ADMIN);
      const byId = await t.post<EntitiesData>(
        { documentId: `sha256:${sha256(ENTITIES_QUERY)}`, variables: ONE_PROJECT },
        ADMIN,
      );

      expect(asText.status).toBe(400);
      expect(asText.body.errors?.[0].extensions).toEqual(
        expect.objectContaining({ code: "BAD_REQUEST", reason: "NOT_TRUSTED" }),
      );
      expect(byId.body.errors).toBeUndefined();
      expect(byId.body.data!._entities).toEqual([project(1)]);
    } finally {
      await t.close();
    }
  });

  it("when a caller sends more _entities requests than RATE_LIMIT_PER_MINUTE, then the next is TOO_MANY_REQUESTS", async () => {
    const t = await startSubgraph({ config: { rateLimitPerMinute: 2 } });
    try {
      const caller = { ...ADMIN, "x-user-id": "router-caller" };
      const statuses: number[] = [];
      let last: Awaited<ReturnType<typeof t.post>> | undefined;
      for (let i = 0; i < 3; i++) {
        last = await t.post({ query: ENTITIES_QUERY, variables: ONE_PROJECT }, caller);
        statuses.push(last.status);
      }

      expect(statuses).toEqual([200, 200, 429]);
      expect(last!.body.errors?.[0].extensions?.code).toBe("TOO_MANY_REQUESTS");
    } finally {
      await t.close();
    }
  });

  it("when the service runs with JWT auth, then _service answers without a token and _entities needs one", async () => {
    const t = await startSubgraph({ auth: JWT_AUTH });
    try {
      await insertProjects(t.db, [{ project_id: 1 }]);

      const sdl = await t.post<{ _service: { sdl: string } }>({ query: "{ _service { sdl } }" });
      const anonymous = await t.post<EntitiesData>({ query: ENTITIES_QUERY, variables: ONE_PROJECT });
      const withToken = await t.post<EntitiesData>(
        { query: ENTITIES_QUERY, variables: ONE_PROJECT },
        await bearer("student"),
      );

      expect(sdl.body.data!._service.sdl).toContain('@key(fields: "project_id")');
      expect(anonymous.body.errors?.[0].extensions?.code).toBe("UNAUTHORIZED");
      expect(withToken.body.data!._entities).toEqual([project(1)]);
    } finally {
      await t.close();
    }
  });

  it("when FEDERATION is off (the default), then the schema has neither _service nor _entities", async () => {
    const t = await startTestApp();
    try {
      const service = await t.http<{ errors?: { message: string }[] }>("POST", "/graphql", {
        body: { query: "{ _service { sdl } }" },
        headers: ADMIN,
      });
      const entities = await t.http<{ errors?: { message: string }[] }>("POST", "/graphql", {
        body: { query: ENTITIES_QUERY, variables: ONE_PROJECT },
        headers: ADMIN,
      });

      expect(service.status).toBe(400);
      expect(service.body.errors?.[0].message).toMatch(/Cannot query field "_service" on type "Query"/);
      expect(entities.status).toBe(400);
      expect(entities.body.errors?.map((e) => e.message).join("\n")).toMatch(/Unknown type "_Any"/);
    } finally {
      await t.close();
    }
  });
});
