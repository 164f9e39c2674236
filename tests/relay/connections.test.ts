// Cursor connections (Relay): projectsConnection, teachersConnection, studentsConnection and Teacher.projectsConnection
// page forward (first/after) and backward (last/before) over every item exactly once, with pageInfo per the
// specification; cursors are opaque keyset positions (a page after one is one range query of first + 1 items, at any
// depth); totalCount is counted only when asked for; bad arguments and foreign cursors are BAD_REQUEST naming them.
import type { mongo } from "mongoose";
import { openDatabase, type Database } from "../../src/persistence";
import {
  AssignTwiceReadingTeacherProjectsConnectionDocument,
  ProjectsConnectionCountedDocument,
  ProjectsConnectionPageDocument,
  StudentsConnectionPageDocument,
  TeachersConnectionPageDocument,
  TeachersWithProjectsConnectionCountedDocument,
  TeachersWithProjectsConnectionDocument,
  UpdateProjectStatusDocument,
  type ProjectFilterInput,
} from "../generated/graphql";
import { startTestApp, type GraphQLResponse, type TestApp } from "../helpers/app";
import { dropTestDatabase, testDbName, testMongoUri } from "../helpers/database";
import { ADMIN, STUDENT, TEACHER, insertProjects, insertStudents, insertTeachers, range } from "../lists/support";
import { expectQueryError } from "../operations/support";

interface PageInfo {
  hasNextPage: boolean;
  hasPreviousPage: boolean;
  startCursor?: string | null;
  endCursor?: string | null;
}

/** One page as the walks see it: ids, cursors and pageInfo. */
interface PageView {
  ids: number[];
  cursors: string[];
  pageInfo: PageInfo;
}

type Args = { first?: number; after?: string; last?: number; before?: string };
type FetchPage = (args: Args) => Promise<PageView>;

const cursorOf = (kind: string, id: number) => Buffer.from(`v1:${kind}:${id}`).toString("base64url");

/** Same ids, in a scrambled order, so that storage order is not id order. */
const scrambled = (ids: number[]) => [...ids].sort((a, b) => ((a * 37) % 101) - ((b * 37) % 101));

const PROJECTS = 57;
const companyOf = (id: number) => 1 + (id % 3);
const statusOf = (id: number) => (id % 4 === 0 ? "done" : "active");
const teacherOf = (id: number) => (id % 5 === 0 ? null : 1 + (id % 4));

/** Walks a connection forward with `first`, returning every page. */
async function walkForward(fetch: FetchPage, first: number): Promise<PageView[]> {
  const pages: PageView[] = [];
  let after: string | undefined;
  for (let guard = 0; guard < 100; guard++) {
    const page = await fetch(after === undefined ? { first } : { first, after });
    pages.push(page);
    if (!page.pageInfo.hasNextPage) return pages;
    after = page.pageInfo.endCursor!;
  }
  throw new Error("the walk did not end");
}

/** Walks a connection backward with `last`, returning every page from the end. */
async function walkBackward(fetch: FetchPage, last: number): Promise<PageView[]> {
  const pages: PageView[] = [];
  let before: string | undefined;
  for (let guard = 0; guard < 100; guard++) {
    const page = await fetch(before === undefined ? { last } : { last, before });
    pages.push(page);
    if (!page.pageInfo.hasPreviousPage) return pages;
    before = page.pageInfo.startCursor!;
  }
  throw new Error("the walk did not end");
}

/** What every page must satisfy whatever the list: cursors in order, pageInfo's cursors the ends of the edges. */
function expectConsistent(page: PageView, kind: string): void {
  expect(page.cursors).toEqual(page.ids.map((id) => cursorOf(kind, id)));
  expect(page.pageInfo.startCursor ?? null).toBe(page.cursors[0] ?? null);
  expect(page.pageInfo.endCursor ?? null).toBe(page.cursors.at(-1) ?? null);
}

/** Walks both ways in pages of `size` and checks every item comes once, in order, with the specification's flags. */
async function expectWalks(fetch: FetchPage, kind: string, expected: number[], size: number): Promise<void> {
  const forward = await walkForward(fetch, size);
  expect(forward.flatMap((p) => p.ids)).toEqual(expected);
  expect(forward).toHaveLength(Math.max(1, Math.ceil(expected.length / size)));
  forward.forEach((page, i) => {
    expectConsistent(page, kind);
    expect(page.pageInfo.hasPreviousPage).toBe(false);
    expect(page.pageInfo.hasNextPage).toBe(i < forward.length - 1);
  });
  const backward = await walkBackward(fetch, size);
  expect(
    backward
      .slice()
      .reverse()
      .flatMap((p) => p.ids),
  ).toEqual(expected);
  backward.forEach((page, i) => {
    expectConsistent(page, kind);
    expect(page.pageInfo.hasNextPage).toBe(false);
    expect(page.pageInfo.hasPreviousPage).toBe(i < backward.length - 1);
  });
}

describe("cursor connections", () => {
  let db: Database;
  let t: TestApp;
  let dbName: string;

  beforeAll(async () => {
    dbName = testDbName();
    db = await openDatabase(testMongoUri(), { dbName, monitorCommands: true });
    t = await startTestApp({ db });
    await insertTeachers(db, scrambled(range(1, 6)));
    await insertProjects(
      db,
      scrambled(range(1, PROJECTS)).map((project_id) => ({
        project_id,
        company_id: companyOf(project_id),
        project_status: statusOf(project_id),
        teacher_id: teacherOf(project_id),
      })),
    );
    await insertStudents(
      db,
      scrambled(range(1, 23)).map((student_id) => ({ student_id, class_code: student_id % 2 ? "A1" : "B2" })),
    );
  });
  afterAll(async () => {
    await t.app.close();
    await dropTestDatabase(db);
  });

  /** Runs the call and returns its response with the database commands sent meanwhile. */
  async function watchingCommands<T>(call: () => Promise<GraphQLResponse<T>>) {
    const commands: mongo.CommandStartedEvent[] = [];
    const listener = (event: mongo.CommandStartedEvent) => {
      if (event.databaseName === dbName) commands.push(event);
    };
    const client = db.connection.getClient();
    client.on("commandStarted", listener);
    try {
      return { res: await call(), commands };
    } finally {
      client.off("commandStarted", listener);
    }
  }

  const projectsPage =
    (filter?: ProjectFilterInput): FetchPage =>
    async (args) => {
      const res = await t.gql(ProjectsConnectionPageDocument, { ...args, filter }, STUDENT);
      expect(res.errors).toBeUndefined();
      const c = res.data!.projectsConnection;
      expect(c.nodes).toEqual(c.edges.map((e) => e.node));
      return { ids: c.nodes.map((n) => n.project_id), cursors: c.edges.map((e) => e.cursor), pageInfo: c.pageInfo };
    };
  const allProjects = range(1, PROJECTS);

  it("when projectsConnection is walked forward and backward, then every project comes once, in project_id order", async () => {
    await expectWalks(projectsPage(), "Project", allProjects, 10);
    await expectWalks(projectsPage(), "Project", allProjects, 100);
    await expectWalks(projectsPage(), "Project", allProjects, 1);
  });

  it("when projectsConnection is filtered, then the walks cover exactly the matching projects", async () => {
    const filter = { company_id: 2, project_status: "active" };
    const matching = allProjects.filter((id) => companyOf(id) === 2 && statusOf(id) === "active");
    await expectWalks(projectsPage(filter), "Project", matching, 4);
    const byTeacher = allProjects.filter((id) => teacherOf(id) === 3);
    await expectWalks(projectsPage({ teacher_id: 3 }), "Project", byTeacher, 3);
    await expectWalks(projectsPage({ company_id: 99 }), "Project", [], 5);
  });

  it("when neither first nor last is given, then the first 20 come; first: 0 answers no edges and whether any follow", async () => {
    const fetch = projectsPage();
    expect((await fetch({})).ids).toEqual(range(1, 20));
    expect(await fetch({ first: 0 })).toEqual({
      ids: [],
      cursors: [],
      pageInfo: { hasNextPage: true, hasPreviousPage: false, startCursor: null, endCursor: null },
    });
    expect((await fetch({ first: 0, after: cursorOf("Project", PROJECTS) })).pageInfo.hasNextPage).toBe(false);
  });

  it("when both after and before are given, then the page holds what lies strictly between them", async () => {
    const fetch = projectsPage();
    const after = cursorOf("Project", 5);
    const before = cursorOf("Project", 20);
    expect(await fetch({ first: 100, after, before })).toMatchObject({
      ids: range(6, 19),
      pageInfo: { hasNextPage: false },
    });
    expect(await fetch({ first: 3, after, before })).toMatchObject({ ids: [6, 7, 8], pageInfo: { hasNextPage: true } });
    expect(await fetch({ last: 3, after, before })).toMatchObject({
      ids: [17, 18, 19],
      pageInfo: { hasPreviousPage: true, hasNextPage: false },
    });
  });

  it("when a cursor's project leaves the filter, then the cursor still pages from its position", async () => {
    const active = projectsPage({ project_status: "active" });
    const first = await active({ first: 2 });
    const [leaving] = first.ids;
    const moved = await t.gql(
      UpdateProjectStatusDocument,
      { projectId: leaving, input: { project_status: "moved" } },
      ADMIN,
    );
    expect(moved.data!.updateProjectStatus.success).toBe(true);
    try {
      const page = await active({ first: 3, after: first.cursors[0] });
      expect(page.ids).toEqual(allProjects.filter((id) => id > leaving && statusOf(id) === "active").slice(0, 3));
    } finally {
      await t.gql(UpdateProjectStatusDocument, { projectId: leaving, input: { project_status: "active" } }, ADMIN);
    }
  });

  it("when totalCount is selected, then it counts every match; when it is not, no count is run", async () => {
    const filter = { company_id: 1 };
    const { res: counted, commands: withCount } = await watchingCommands(() =>
      t.gql(ProjectsConnectionCountedDocument, { first: 2, after: cursorOf("Project", 30), filter }, STUDENT),
    );
    expect(counted.data!.projectsConnection.totalCount).toBe(allProjects.filter((id) => companyOf(id) === 1).length);
    expect(withCount.map((e) => e.commandName).sort()).toEqual(["aggregate", "find"]);
    const { commands: withoutCount } = await watchingCommands(() =>
      t.gql(ProjectsConnectionPageDocument, { first: 2, after: cursorOf("Project", 30), filter }, STUDENT),
    );
    expect(withoutCount.map((e) => e.commandName)).toEqual(["find"]);
  });

  it("when a page lies deep in the list, then it is one range query of first + 1 projects, like the first page", async () => {
    const shapeOf = async (args: Args & { filter?: ProjectFilterInput }) => {
      const { res, commands } = await watchingCommands(() => t.gql(ProjectsConnectionPageDocument, args, STUDENT));
      expect(res.errors).toBeUndefined();
      expect(commands).toHaveLength(1);
      const { filter, sort, limit } = commands[0].command;
      // The driver sends the sort as an ordered Map.
      return { filter, sort: Object.fromEntries(sort as Map<string, number>), limit };
    };
    // Every list leaves archived projects out: `archived: false`, an equality its index starts with.
    expect(await shapeOf({ first: 10 })).toEqual({ filter: { archived: false }, sort: { project_id: 1 }, limit: 11 });
    expect(await shapeOf({ first: 10, after: cursorOf("Project", 50), filter: { company_id: 2 } })).toEqual({
      filter: { company_id: 2, archived: false, project_id: { $gt: 50 } },
      sort: { project_id: 1 },
      limit: 11,
    });
    expect(await shapeOf({ last: 5, before: cursorOf("Project", 9) })).toEqual({
      filter: { archived: false, project_id: { $lt: 9 } },
      sort: { project_id: -1 },
      limit: 6,
    });
  });

  it("when first or last is out of range, or both are given, then it is BAD_REQUEST naming the argument", async () => {
    const ask = (args: Args) => t.gql(ProjectsConnectionPageDocument, args, STUDENT);
    expectQueryError(await ask({ first: 101 }), "BAD_REQUEST", /^first must be a whole number from 0 to 100$/);
    expectQueryError(await ask({ last: -1 }), "BAD_REQUEST", /^last must be a whole number from 0 to 100$/);
    expectQueryError(await ask({ first: 2, last: 2 }), "BAD_REQUEST", /first .* or last .*, not both/);
    expect((await ask({ first: 100 })).errors).toBeUndefined();
  });

  it("when a cursor is malformed, of another list, of another version or a global id, then it is BAD_REQUEST naming after or before", async () => {
    const ask = (args: Args) => t.gql(ProjectsConnectionPageDocument, args, STUDENT);
    const foreign = [
      "garbage",
      "",
      cursorOf("Teacher", 3),
      Buffer.from("v2:Project:3").toString("base64url"),
      Buffer.from("Project:3").toString("base64url"), // a global id
      `${cursorOf("Project", 3)}=`,
      Buffer.from("v1:Project:03").toString("base64url"),
      Buffer.from("v1:Project:1.5").toString("base64url"),
    ];
    for (const cursor of foreign) {
      expectQueryError(await ask({ first: 2, after: cursor }), "BAD_REQUEST", /^after /);
      expectQueryError(await ask({ last: 2, before: cursor }), "BAD_REQUEST", /^before /);
    }
    const teacherCursor = await t.gql(TeachersConnectionPageDocument, { first: 1 }, STUDENT);
    expectQueryError(
      await ask({ first: 2, after: teacherCursor.data!.teachersConnection.pageInfo.endCursor! }),
      "BAD_REQUEST",
      /after is a cursor of a list of Teacher items, not of Project items/,
    );
  });

  it("when teachersConnection and studentsConnection are walked, then every item comes once, with its totalCount", async () => {
    const teachersPage: FetchPage = async (args) => {
      const res = await t.gql(TeachersConnectionPageDocument, args, STUDENT);
      const c = res.data!.teachersConnection;
      expect(c.totalCount).toBe(6);
      return {
        ids: c.edges.map((e) => e.node.teacher_id),
        cursors: c.edges.map((e) => e.cursor),
        pageInfo: c.pageInfo,
      };
    };
    await expectWalks(teachersPage, "Teacher", range(1, 6), 4);
    const studentsPage =
      (class_code?: string): FetchPage =>
      async (args) => {
        const res = await t.gql(StudentsConnectionPageDocument, { ...args, filter: { class_code } }, TEACHER);
        const c = res.data!.studentsConnection;
        expect(c.totalCount).toBe(
          class_code ? range(1, 23).filter((id) => (id % 2 ? "A1" : "B2") === class_code).length : 23,
        );
        return {
          ids: c.edges.map((e) => e.node.student_id),
          cursors: c.edges.map((e) => e.cursor),
          pageInfo: c.pageInfo,
        };
      };
    await expectWalks(studentsPage(), "Student", range(1, 23), 5);
    await expectWalks(
      studentsPage("B2"),
      "Student",
      range(1, 23).filter((id) => id % 2 === 0),
      4,
    );
  });

  it("when a student asks for studentsConnection, then it is FORBIDDEN, as for students", async () => {
    expectQueryError(await t.gql(StudentsConnectionPageDocument, { first: 2 }, STUDENT), "FORBIDDEN");
  });

  it("when teachers' projectsConnection pages are read, then each teacher gets its own projects, forward and backward", async () => {
    const own = (teacher: number) => allProjects.filter((id) => teacherOf(id) === teacher);
    const forward = await t.gql(TeachersWithProjectsConnectionDocument, { teachers: 6, first: 3 }, STUDENT);
    expect(forward.errors).toBeUndefined();
    for (const teacher of forward.data!.teachersConnection.nodes) {
      const c = teacher.projectsConnection;
      expect(c.edges.map((e) => e.node.project_id)).toEqual(own(teacher.teacher_id).slice(0, 3));
      expect(c.edges.every((e) => e.node.teacher_id === teacher.teacher_id)).toBe(true);
      expect(c.pageInfo.hasNextPage).toBe(own(teacher.teacher_id).length > 3);
    }
    const after = cursorOf("Project", 30);
    const backward = await t.gql(
      TeachersWithProjectsConnectionDocument,
      { teachers: 6, last: 2, before: after },
      STUDENT,
    );
    for (const teacher of backward.data!.teachersConnection.nodes) {
      const before30 = own(teacher.teacher_id).filter((id) => id < 30);
      expect(teacher.projectsConnection.edges.map((e) => e.node.project_id)).toEqual(before30.slice(-2));
      expect(teacher.projectsConnection.pageInfo.hasPreviousPage).toBe(before30.length > 2);
    }
  });

  it("when 2 and then 6 teachers' projectsConnection are read, with and without totalCount, then each distinct teacher costs one page-sized query (and one count)", async () => {
    const commandsFor = async (teachers: number, counted: boolean) => {
      const { res, commands } = await watchingCommands<unknown>(() =>
        counted
          ? t.gql(TeachersWithProjectsConnectionCountedDocument, { teachers, first: 2 }, STUDENT)
          : t.gql(TeachersWithProjectsConnectionDocument, { teachers, first: 2 }, STUDENT),
      );
      expect(res.errors).toBeUndefined();
      // Every read of projects is bounded by the page (first + 1), not by how many projects the teachers have.
      const projectFinds = commands.filter((e) => e.commandName === "find" && e.command.find === "projects");
      expect(projectFinds.every((e) => e.command.limit === 3)).toBe(true);
      return commands.map((e) => `${e.commandName} ${String(e.command[e.commandName])}`).sort();
    };
    const times = (n: number, command: string) => Array.from({ length: n }, () => command);
    expect(await commandsFor(2, false)).toEqual([...times(2, "find projects"), "find teachers"]);
    expect(await commandsFor(6, false)).toEqual([...times(6, "find projects"), "find teachers"]);
    expect(await commandsFor(2, true)).toEqual([
      ...times(2, "aggregate projects"),
      ...times(2, "find projects"),
      "find teachers",
    ]);
    expect(await commandsFor(6, true)).toEqual([
      ...times(6, "aggregate projects"),
      ...times(6, "find projects"),
      "find teachers",
    ]);

    const counted = await t.gql(TeachersWithProjectsConnectionCountedDocument, { teachers: 6, first: 2 }, STUDENT);
    for (const teacher of counted.data!.teachersConnection.nodes) {
      expect(teacher.projectsConnection.totalCount).toBe(
        allProjects.filter((id) => teacherOf(id) === teacher.teacher_id).length,
      );
    }
  });

  it("when a mutation assigns a teacher twice, then the teacher's projectsConnection read after each is current", async () => {
    await insertTeachers(db, [100]);
    await insertProjects(db, [{ project_id: 1000 }, { project_id: 1001 }]);
    const res = await t.gql(
      AssignTwiceReadingTeacherProjectsConnectionDocument,
      { first: 1000, second: 1001, teacherId: 100 },
      ADMIN,
    );
    expect(res.data!.first.data!.teacher!.projectsConnection.nodes.map((p) => p.project_id)).toEqual([1000]);
    expect(res.data!.second.data!.teacher!.projectsConnection.nodes.map((p) => p.project_id)).toEqual([1000, 1001]);
  });
});
