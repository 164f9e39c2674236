// Teacher.projects(offset, limit): one page of a teacher's projects ordered by project_id, bounded like every
// page (1..100, default 20; more is BAD_REQUEST with the pagination message), batched per request.
import {
  TeacherProjectsDefaultPageDocument,
  TeacherProjectsGoodAndBadPageDocument,
  TeacherProjectsPageDocument,
  TeachersWithProjectPagesDocument,
} from "../generated/graphql";
import type { mongo } from "mongoose";
import { openDatabase } from "../../src/persistence";
import { startTestApp, type TestApp } from "../helpers/app";
import { dropTestDatabase, testDbName, testMongoUri } from "../helpers/database";
import { ADMIN, STUDENT, insertProjects, insertTeachers, range } from "../lists/support";

/** Same ids, inserted in a scrambled order so that storage order is not id order. */
function scrambled(ids: number[]): number[] {
  return [...ids].sort((a, b) => ((a * 37) % 101) - ((b * 37) % 101));
}

describe("Teacher.projects pages", () => {
  let t: TestApp;
  // Teacher 1: 45 projects (ids 1..45); teacher 2: ids 46..48; teacher 3: none; ids 49..50 unassigned.
  const teacherOf = (id: number) => (id <= 45 ? 1 : id <= 48 ? 2 : null);

  beforeAll(async () => {
    t = await startTestApp({ db: await openDatabase(testMongoUri(), { dbName: testDbName(), monitorCommands: true }) });
    await insertTeachers(t.db, [1, 2, 3]);
    await insertProjects(
      t.db,
      scrambled(range(1, 50)).map((project_id) => ({ project_id, teacher_id: teacherOf(project_id) })),
    );
  });
  afterAll(async () => {
    await t.app.close();
    await dropTestDatabase(t.db);
  });

  it("when a teacher's projects are asked without offset and limit, then the first 20 come back ordered by project_id", async () => {
    const res = await t.gql(TeacherProjectsDefaultPageDocument, { teacherId: 1 }, STUDENT);
    expect(res.errors).toBeUndefined();
    expect(res.data!.teacher!.projects.map((p) => p.project_id)).toEqual(range(1, 20));
  });

  it("when a teacher's projects are walked in pages of 7, then every project comes back once, in order, then an empty page", async () => {
    const seen: number[] = [];
    for (let offset = 0; ; offset += 7) {
      const res = await t.gql(TeacherProjectsPageDocument, { teacherId: 1, offset, limit: 7 }, STUDENT);
      expect(res.errors).toBeUndefined();
      const ids = res.data!.teacher!.projects.map((p) => p.project_id);
      expect(ids.length).toBeLessThanOrEqual(7);
      if (ids.length === 0) break;
      seen.push(...ids);
    }
    expect(seen).toEqual(range(1, 45));
  });

  it("when limit 100 is asked, then all of a teacher's projects up to 100 come back, each of that teacher", async () => {
    const res = await t.gql(TeacherProjectsPageDocument, { teacherId: 1, limit: 100 }, STUDENT);
    expect(res.errors).toBeUndefined();
    expect(res.data!.teacher!.projects).toEqual(range(1, 45).map((project_id) => ({ project_id, teacher_id: 1 })));
  });

  it("when a teacher without projects is asked, then projects is an empty list", async () => {
    const res = await t.gql(TeacherProjectsPageDocument, { teacherId: 3 }, STUDENT);
    expect(res.errors).toBeUndefined();
    expect(res.data!.teacher).toEqual({ teacher_id: 3, projects: [] });
  });

  it.each([
    ["limit 101", 0, 101, /^limit must be a whole number from 1 to 100$/],
    ["limit 0", 0, 0, /^limit must be a whole number from 1 to 100$/],
    ["a negative offset", -1, 20, /^offset must be a whole number from 0 to 1000000$/],
    ["an offset over 1000000", 1_000_001, 20, /^offset must be a whole number from 0 to 1000000$/],
  ])(
    "when a teacher's projects are asked with %s, then the answer is a BAD_REQUEST GraphQL error saying the bounds",
    async (_label, offset, limit, message) => {
      const res = await t.gql(TeacherProjectsPageDocument, { teacherId: 1, offset, limit }, STUDENT);
      expect(res.status).toBe(200);
      expect(res.errors).toHaveLength(1);
      expect(res.errors![0].extensions?.code).toBe("BAD_REQUEST");
      expect(res.errors![0].message).toMatch(message);
      expect(res.data).toEqual({ teacher: null });
    },
  );

  it("when one document asks a valid and an invalid page, then the valid page is answered and only the other fails", async () => {
    const res = await t.gql(TeacherProjectsGoodAndBadPageDocument, { teacherId: 1 }, STUDENT);
    expect(res.data).toEqual({ good: { projects: [{ project_id: 2 }, { project_id: 3 }] }, bad: null });
    expect(res.errors).toHaveLength(1);
    expect(res.errors![0].extensions?.code).toBe("BAD_REQUEST");
  });

  it("when teachers are listed with a page of their projects, then each teacher gets its own page", async () => {
    const res = await t.gql(
      TeachersWithProjectPagesDocument,
      { limit: 10, projectsOffset: 1, projectsLimit: 2 },
      ADMIN,
    );
    expect(res.errors).toBeUndefined();
    expect(res.data!.teachers.items).toEqual([
      {
        teacher_id: 1,
        projects: [
          { project_id: 2, teacher_id: 1 },
          { project_id: 3, teacher_id: 1 },
        ],
      },
      {
        teacher_id: 2,
        projects: [
          { project_id: 47, teacher_id: 2 },
          { project_id: 48, teacher_id: 2 },
        ],
      },
      { teacher_id: 3, projects: [] },
    ]);
  });

  it("when one teacher has many more projects than the others, then each teacher's page is read by a query cut at that page", async () => {
    const finds: mongo.Document[] = [];
    const listener = (event: mongo.CommandStartedEvent) => {
      if (event.commandName === "find" && event.command.find === "projects") finds.push(event.command);
    };
    const client = t.db.connection.getClient();
    client.on("commandStarted", listener);
    try {
      const res = await t.gql(
        TeachersWithProjectPagesDocument,
        { limit: 10, projectsOffset: 0, projectsLimit: 2 },
        ADMIN,
      );
      expect(res.errors).toBeUndefined();
      expect(res.data!.teachers.items.map((i) => i.projects.map((p) => p.project_id))).toEqual([[1, 2], [46, 47], []]);
    } finally {
      client.off("commandStarted", listener);
    }
    expect(finds.map((find) => [find.filter, find.skip ?? 0, find.limit])).toEqual(
      // Archived projects are left out of every list (the equality its index has after teacher_id).
      expect.arrayContaining([1, 2, 3].map((teacher_id) => [{ teacher_id, archived: false }, 0, 2])),
    );
    expect(finds).toHaveLength(3);
  });
});
