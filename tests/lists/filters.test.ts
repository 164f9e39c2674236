// List filters: every filter field narrows the list, fields combine with AND, results stay ordered by id,
// and total counts the matches (not the page).
import { ListProjectsDocument, ListStudentsDocument, type ProjectFilterInput } from "../generated/graphql";
import { startTestApp, type TestApp } from "../helpers/app";
import { STUDENT, TEACHER, insertProjects, insertStudents, insertTeachers } from "./support";

describe("list filters", () => {
  let t: TestApp;

  // company, status, teacher of projects 1..12
  const projects = [
    { project_id: 1, company_id: 10, project_status: "proposed", teacher_id: null },
    { project_id: 2, company_id: 20, project_status: "in_progress", teacher_id: 1 },
    { project_id: 3, company_id: 10, project_status: "in_progress", teacher_id: 2 },
    { project_id: 4, company_id: 30, project_status: "completed", teacher_id: 1 },
    { project_id: 5, company_id: 10, project_status: "in_progress", teacher_id: 1 },
    { project_id: 6, company_id: 20, project_status: "proposed", teacher_id: null },
    { project_id: 7, company_id: 10, project_status: "completed", teacher_id: 2 },
    { project_id: 8, company_id: 20, project_status: "in_progress", teacher_id: 2 },
    { project_id: 9, company_id: 10, project_status: "in_progress", teacher_id: 1 },
    { project_id: 10, company_id: 30, project_status: "proposed", teacher_id: 3 },
    { project_id: 11, company_id: 10, project_status: "In_Progress", teacher_id: 1 },
    { project_id: 12, company_id: 20, project_status: "completed", teacher_id: null },
  ];

  async function ids(filter: ProjectFilterInput, limit = 100): Promise<{ ids: number[]; total: number }> {
    const res = await t.gql(ListProjectsDocument, { filter, limit }, STUDENT);
    expect(res.errors).toBeUndefined();
    return { ids: res.data!.projects.items.map((p) => p.project_id), total: res.data!.projects.total };
  }

  beforeAll(async () => {
    t = await startTestApp();
    await insertTeachers(t.db, [1, 2, 3]);
    // Inserted in reverse so that storage order is not id order.
    await insertProjects(t.db, [...projects].reverse());
    await insertStudents(t.db, [
      { student_id: 3, class_code: "2B" },
      { student_id: 1, class_code: "1A" },
      { student_id: 4, class_code: "1A" },
      { student_id: 2, class_code: "2B" },
      { student_id: 5, class_code: "1a" },
    ]);
  });
  afterAll(async () => {
    await t.close();
  });

  it("when projects are filtered by company_id, then only that company's projects come back, by id", async () => {
    expect(await ids({ company_id: 10 })).toEqual({ ids: [1, 3, 5, 7, 9, 11], total: 6 });
    expect(await ids({ company_id: 30 })).toEqual({ ids: [4, 10], total: 2 });
  });

  it("when projects are filtered by project_status, then only exact (case-sensitive) matches come back", async () => {
    expect(await ids({ project_status: "in_progress" })).toEqual({ ids: [2, 3, 5, 8, 9], total: 5 });
    expect(await ids({ project_status: "In_Progress" })).toEqual({ ids: [11], total: 1 });
  });

  it("when projects are filtered by teacher_id, then only that teacher's projects come back", async () => {
    expect(await ids({ teacher_id: 1 })).toEqual({ ids: [2, 4, 5, 9, 11], total: 5 });
    expect(await ids({ teacher_id: 3 })).toEqual({ ids: [10], total: 1 });
  });

  it("when filters are combined, then a project must match all of them", async () => {
    expect(await ids({ company_id: 10, project_status: "in_progress" })).toEqual({ ids: [3, 5, 9], total: 3 });
    expect(await ids({ company_id: 10, teacher_id: 1 })).toEqual({ ids: [5, 9, 11], total: 3 });
    expect(await ids({ project_status: "in_progress", teacher_id: 2 })).toEqual({ ids: [3, 8], total: 2 });
    expect(await ids({ company_id: 10, project_status: "in_progress", teacher_id: 1 })).toEqual({
      ids: [5, 9],
      total: 2,
    });
  });

  it("when a filter matches nothing, then the page is empty with total 0", async () => {
    expect(await ids({ company_id: 99 })).toEqual({ ids: [], total: 0 });
    expect(await ids({ company_id: 30, teacher_id: 2 })).toEqual({ ids: [], total: 0 });
    expect(await ids({ teacher_id: 404 })).toEqual({ ids: [], total: 0 });
  });

  it("when filter fields are null or the filter is empty, then they do not narrow the list", async () => {
    expect((await ids({ company_id: null, project_status: null, teacher_id: null })).total).toBe(12);
    expect((await ids({})).total).toBe(12);
  });

  it("when a filtered list is paged, then total counts every match while the page holds only the limit", async () => {
    expect(await ids({ company_id: 10 }, 2)).toEqual({ ids: [1, 3], total: 6 });
  });

  it("when a filter value is invalid, then the answer is BAD_REQUEST", async () => {
    for (const filter of [
      { company_id: 0 },
      { teacher_id: -1 },
      { project_status: "" },
      { project_status: "x".repeat(65) },
    ]) {
      const res = await t.gql(ListProjectsDocument, { filter }, STUDENT);
      expect(res.errors?.[0].extensions?.code).toBe("BAD_REQUEST");
    }
  });

  it("when students are filtered by class_code, then only that class comes back, by id, case-sensitively", async () => {
    const list = async (class_code: string | null) => {
      const res = await t.gql(ListStudentsDocument, { filter: { class_code } }, TEACHER);
      expect(res.errors).toBeUndefined();
      return { ids: res.data!.students.items.map((s) => s.student_id), total: res.data!.students.total };
    };
    expect(await list("1A")).toEqual({ ids: [1, 4], total: 2 });
    expect(await list("2B")).toEqual({ ids: [2, 3], total: 2 });
    expect(await list("1a")).toEqual({ ids: [5], total: 1 });
    expect(await list("9Z")).toEqual({ ids: [], total: 0 });
    expect(await list(null)).toEqual({ ids: [1, 2, 3, 4, 5], total: 5 });
  });
});
