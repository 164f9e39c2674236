// Offset pagination of every list: bounds (1..100, default 20, over the max is BAD_REQUEST, not clamped),
// has_more, and a stable order by id, so walking all pages yields every row exactly once.
import {
  ListProjectsDocument,
  ListStudentsDocument,
  ListTeachersDocument,
  ProjectsDefaultPageDocument,
  StudentsDefaultPageDocument,
  TeachersDefaultPageDocument,
  type ProjectFilterInput,
} from "../generated/graphql";
import { startTestApp, type TestApp } from "../helpers/app";
import { ADMIN, STUDENT, TEACHER, insertProjects, insertStudents, insertTeachers, range } from "./support";

interface PageView {
  ids: number[];
  total: number;
  offset: number;
  limit: number;
  has_more: boolean;
}

type Fetch = (offset: number, limit: number) => Promise<{ page?: PageView; code?: string }>;

/** Same ids, inserted in a scrambled order so that storage order is not id order. */
function scrambled(ids: number[]): number[] {
  return [...ids].sort((a, b) => ((a * 37) % 101) - ((b * 37) % 101));
}

describe("pagination of the lists", () => {
  let t: TestApp;

  const projectsPage =
    (filter?: ProjectFilterInput): Fetch =>
    async (offset, limit) => {
      const res = await t.gql(ListProjectsDocument, { filter, offset, limit }, STUDENT);
      if (res.errors) return { code: res.errors[0].extensions?.code };
      const p = res.data!.projects;
      return { page: { ...p, ids: p.items.map((i) => i.project_id) } };
    };
  const teachersPage: Fetch = async (offset, limit) => {
    const res = await t.gql(ListTeachersDocument, { offset, limit }, STUDENT);
    if (res.errors) return { code: res.errors[0].extensions?.code };
    const p = res.data!.teachers;
    return { page: { ...p, ids: p.items.map((i) => i.teacher_id) } };
  };
  const studentsPage: Fetch = async (offset, limit) => {
    const res = await t.gql(ListStudentsDocument, { offset, limit }, TEACHER);
    if (res.errors) return { code: res.errors[0].extensions?.code };
    const p = res.data!.students;
    return { page: { ...p, ids: p.items.map((i) => i.student_id) } };
  };
  const lists: [string, () => Fetch][] = [
    ["projects", () => projectsPage()],
    ["teachers", () => teachersPage],
    ["students", () => studentsPage],
  ];

  beforeAll(async () => {
    t = await startTestApp();
    // 120 projects (company 1 for odd ids, 2 for even), 45 teachers, 45 students, all stored out of id order.
    await insertProjects(
      t.db,
      scrambled(range(1, 120)).map((project_id) => ({ project_id, company_id: project_id % 2 === 1 ? 1 : 2 })),
    );
    await insertTeachers(t.db, scrambled(range(1, 45)));
    await insertStudents(
      t.db,
      scrambled(range(1, 45)).map((student_id) => ({ student_id, class_code: "C1" })),
    );
  });
  afterAll(async () => {
    await t.close();
  });

  describe.each(lists)("%s", (_name, fetcher) => {
    it.each([
      ["limit 0", 0, 0],
      ["limit 101", 0, 101],
      ["a negative limit", 0, -5],
      ["a negative offset", -1, 20],
      ["an offset over 1000000", 1_000_001, 20],
    ])("when asked with %s, then the answer is a BAD_REQUEST GraphQL error", async (_label, offset, limit) => {
      expect(await fetcher()(offset, limit)).toEqual({ code: "BAD_REQUEST" });
    });

    it("when asked with limit 100, then up to 100 items come back", async () => {
      const { page } = await fetcher()(0, 100);
      expect(page!.limit).toBe(100);
      expect(page!.ids.length).toBe(Math.min(100, page!.total));
    });

    it("when all pages are walked, then ids strictly increase with no duplicates or gaps and total never changes", async () => {
      const fetch = fetcher();
      const seen: number[] = [];
      const totals = new Set<number>();
      for (let offset = 0, more = true; more; offset += 7) {
        const { page } = await fetch(offset, 7);
        expect(page!.offset).toBe(offset);
        expect(page!.ids.length).toBeLessThanOrEqual(7);
        seen.push(...page!.ids);
        totals.add(page!.total);
        more = page!.has_more;
      }
      expect(totals.size).toBe(1);
      const [total] = totals;
      expect(seen).toEqual(range(1, total));
    });

    it("when the page ends exactly at the last item, then has_more is false; one item earlier, it is true", async () => {
      const fetch = fetcher();
      const { page: first } = await fetch(0, 1);
      const total = first!.total;
      expect((await fetch(total - 10, 10)).page!.has_more).toBe(false);
      expect((await fetch(total - 11, 10)).page!.has_more).toBe(true);
    });

    it("when the offset is past the end, then the page is empty, has_more is false and total still counts all", async () => {
      const { page } = await fetcher()(500, 20);
      expect(page).toMatchObject({ ids: [], has_more: false, offset: 500, limit: 20 });
      expect(page!.total).toBeGreaterThan(0);
    });
  });

  it("when projects are listed without offset and limit, then the first 20 come back and has_more says more follow", async () => {
    const res = await t.gql(ProjectsDefaultPageDocument, {}, STUDENT);
    expect(res.errors).toBeUndefined();
    const page = res.data!.projects;
    expect(page).toMatchObject({ total: 120, offset: 0, limit: 20, has_more: true });
    expect(page.items.map((p) => p.project_id)).toEqual(range(1, 20));
  });

  it("when teachers and students are listed without offset and limit, then the page size is 20 too", async () => {
    const teachers = await t.gql(TeachersDefaultPageDocument, {}, ADMIN);
    const students = await t.gql(StudentsDefaultPageDocument, {}, ADMIN);
    expect(teachers.data!.teachers).toMatchObject({ total: 45, offset: 0, limit: 20, has_more: true });
    expect(teachers.data!.teachers.items.map((x) => x.teacher_id)).toEqual(range(1, 20));
    expect(students.data!.students).toMatchObject({ total: 45, offset: 0, limit: 20, has_more: true });
    expect(students.data!.students.items.map((x) => x.student_id)).toEqual(range(1, 20));
  });

  it("when limit 101 is asked, then the error message names the limit and its bounds", async () => {
    const res = await t.gql(ListProjectsDocument, { limit: 101 }, STUDENT);
    expect(res.data).toBeNull();
    expect(res.errors).toHaveLength(1);
    expect(res.errors![0].extensions?.code).toBe("BAD_REQUEST");
    expect(res.errors![0].message).toMatch(/limit.*1.*100/);
  });

  it("when a filtered list is walked page by page, then its ids strictly increase and cover exactly the matches", async () => {
    const fetch = projectsPage({ company_id: 2 });
    const seen: number[] = [];
    for (let offset = 0, more = true; more; offset += 9) {
      const { page } = await fetch(offset, 9);
      expect(page!.total).toBe(60);
      seen.push(...page!.ids);
      more = page!.has_more;
    }
    expect(seen).toEqual(range(1, 60).map((i) => i * 2));
  });
});
