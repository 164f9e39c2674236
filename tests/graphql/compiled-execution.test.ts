// Queries run as code compiled by graphql-jit (src/graphql/compiled-execution.ts): on the same data, with the same
// caller, each query below answers exactly what graphql-js's own execution answers, whether it succeeds or fails
// (the executor runs a failing one again through graphql-js, so errors are graphql-js's). The queries cover every
// kind of field of the schema: lists, pages, cursor connections, nested relations, global ids (an interface),
// custom scalars, enums, fragments, aliases, variables and their defaults, @skip and @include, __typename and
// introspection.
import { execute, parse, type ExecutionResult, type GraphQLSchema } from "graphql";
import { compileQuery, isCompiledQuery } from "graphql-jit";
import { compiledExecutionGateway } from "../../src/graphql/compiled-execution";
import { createLoaders, type Context } from "../../src/graphql/context";
import { UNRESTRICTED } from "../../src/components/projects";
import { getSchema } from "../../src/graphql/schema";
import type { Database } from "../../src/persistence";
import { createServices, type Services } from "../../src/services";
import { openTestDatabase } from "../helpers/database";
import { silentLogger } from "../helpers/fixtures";
import { insertProjects, insertStudents, insertTeachers } from "../lists/support";

const PROJECT = "project_id project_name project_desc company_id project_status project_url start_date end_date";
const QUERIES: Record<string, { query: string; variables?: Record<string, unknown> }> = {
  "a page of projects with teachers and totals": {
    query: `{ projects(limit: 50) { total items { ${PROJECT} teacher_id revision created_by created_at updated_at teacher { teacher_id teacher_name } } } }`,
  },
  "a filtered page with variables, aliases and __typename": {
    query: `query($f: ProjectFilterInput, $l: Int! = 3) { a: projects(filter: $f, limit: $l) { items { __typename id project_id } } b: projects(offset: 2) { total } }`,
    variables: { f: { company_id: 2 } },
  },
  "a project by id with its history": {
    query: `query($p: Int!) { project(projectId: $p) { ${PROJECT} history { total items { revision operation actor_role changes { field from to } } } } }`,
    variables: { p: 3 },
  },
  "an unknown project": { query: `{ project(projectId: 999) { project_id } }` },
  "teachers with their projects, by page and by cursor": {
    query: `{ teachers(limit: 5) { total items { id teacher_id teacher_name projects(limit: 2) { total items { project_id teacher { teacher_name } } } projectsConnection(first: 2) { totalCount edges { cursor node { project_id } } pageInfo { hasNextPage hasPreviousPage startCursor endCursor } } } } }`,
  },
  "cursor connections forward and backward": {
    query: `{ projectsConnection(first: 4) { totalCount edges { cursor node { project_id } } pageInfo { hasNextPage endCursor } } back: projectsConnection(last: 3, filter: { teacher_id: 1 }) { edges { node { project_id teacher_id } } pageInfo { hasPreviousPage startCursor } } teachersConnection(first: 2) { edges { node { teacher_name } } } }`,
  },
  "global ids through node and nodes, with fragments on the interface": {
    query: `query($ids: [ID!]!) { nodes(ids: $ids) { __typename id ... on Project { project_name teacher { id } } ... on Teacher { teacher_name } ...S } } fragment S on Student { student_name class_code }`,
    variables: { ids: [] },
  },
  "students, their page and a student": {
    query: `{ students(limit: 3) { total items { id student_id student_name email class_code } } studentsConnection(first: 2) { edges { node { student_id } } } student(studentId: 2) { email } }`,
  },
  "@skip and @include with variables": {
    query: `query($yes: Boolean!, $no: Boolean!) { projects(limit: 3) { total @include(if: $no) items { project_id @skip(if: $no) teacher @include(if: $yes) { teacher_name } project_name @skip(if: $yes) } } }`,
    variables: { yes: true, no: false },
  },
  "project statuses and introspection": {
    query: `{ projectStatuses __schema { queryType { name } types { name kind } } __type(name: "Project") { fields { name type { name kind ofType { name } } } } }`,
  },
  "a page past the largest limit (an error)": { query: `{ projects(limit: 1000) { total } }` },
  "a variable of the wrong type (an error)": {
    query: `query($p: Int!) { project(projectId: $p) { project_id } }`,
    variables: { p: "three" },
  },
};

let db: Database;
let services: Services;
let schema: GraphQLSchema;

beforeAll(async () => {
  db = await openTestDatabase();
  services = createServices(db, undefined, silentLogger);
  schema = getSchema();
  await Promise.all([
    db.models.Project.deleteMany({}),
    db.models.Teacher.deleteMany({}),
    db.models.Student.deleteMany({}),
  ]);
  await insertTeachers(db, [1, 2, 3]);
  await insertStudents(
    db,
    [1, 2, 3, 4].map((student_id) => ({ student_id, class_code: `C${student_id % 2}` })),
  );
  await insertProjects(
    db,
    Array.from({ length: 12 }, (_, i) => ({
      project_id: i + 1,
      company_id: 1 + (i % 3),
      teacher_id: i % 4 === 0 ? null : 1 + (i % 3),
      project_url: i % 2 ? `https://example.com/${i}` : null,
      project_status: i % 2 ? "active" : "proposed",
    })),
  );
  const ids = (await execute({
    schema,
    document: parse("{ projects(limit: 2) { items { id teacher { id } } } students(limit: 1) { items { id } } }"),
    contextValue: contextFor("admin"),
  })) as ExecutionResult<{
    projects: { items: { id: string; teacher: { id: string } | null }[] };
    students: { items: { id: string }[] };
  }>;
  const data = ids.data!;
  QUERIES["global ids through node and nodes, with fragments on the interface"].variables = {
    ids: [
      data.projects.items[0].id,
      data.projects.items[1].id,
      data.projects.items[1].teacher!.id,
      data.students.items[0].id,
      "bm90IGFuIGlk",
    ],
  };
}, 60_000);

afterAll(async () => {
  await db.close();
});

function contextFor(role: "admin" | "student"): Context {
  return {
    caller: { authenticated: true, role, id: `${role}-1` },
    access: UNRESTRICTED,
    services,
    loaders: createLoaders(services, UNRESTRICTED),
    logger: silentLogger,
  };
}

/** The queries whose compiled execution answered by itself (no rerun). */
const compiledAlike = new Set<string>();

afterAll(() => {
  // Every successful query above but one runs compiled; graphql-jit refuses to leave out a non-null variable that
  // has a default ($l: Int! = 3), which graphql-js accepts, so that one runs twice (compiled, then graphql-js).
  for (const role of ["admin", "student"]) {
    const expected = Object.keys(QUERIES).filter((name) => !/error|variables, aliases/.test(name));
    if (role === "student") expected.splice(expected.indexOf("students, their page and a student"), 1);
    for (const name of expected) expect([...compiledAlike]).toContain(`${role}: ${name}`);
  }
});

const plain = (result: unknown) => JSON.parse(JSON.stringify(result)) as unknown;

describe.each(["admin", "student"] as const)("compiled execution, as %s", (role) => {
  it.each(Object.keys(QUERIES))("%s: the answer is graphql-js's", async (name) => {
    const { query, variables } = QUERIES[name];
    const document = parse(query);
    const expected = plain(
      await execute({ schema, document, contextValue: contextFor(role), variableValues: variables }),
    );

    // The gateway's executor, as Apollo calls it: the first run of a document through graphql-js, the next ones
    // compiled (each with a fresh request context and its loaders).
    const { executor } = await compiledExecutionGateway(schema).load({ apollo: { graphRef: "" } } as never);
    for (let run = 1; run <= 3; run++) {
      const request = {
        document,
        request: { query, variables },
        operation: document.definitions[0],
        context: contextFor(role),
      };
      expect([run, plain(await executor!(request as never))]).toEqual([run, expected]);
    }

    // And the compiled query alone: where it answers without errors (the executor then answers it as it is), its
    // answer is graphql-js's. Where it fails, the executor ran the query again through graphql-js (above).
    if (!(expected as ExecutionResult).errors) {
      const compiled = compileQuery(schema, document);
      expect(isCompiledQuery(compiled)).toBe(true);
      const alone = isCompiledQuery(compiled)
        ? ((await compiled.query(undefined, contextFor(role), variables ?? {})) as ExecutionResult)
        : undefined;
      if (alone && !alone.errors) {
        expect(plain(alone)).toEqual(expected);
        compiledAlike.add(`${role}: ${name}`);
      }
    }
  });
});
