// projectCounts (contract, sixth revision, "Counts"): the total a where and filter match, groups per value of
// groupBy (largest count first, then by value; null is "no teacher yet"), at most 100 groups with hasMoreGroups, no
// groups without groupBy; and a list's total counting the same way. Expected counts are worked out here from the
// stored documents.
import type { ProjectDoc } from "../../src/components/projects/persistence";
import {
  BoardCountsDocument,
  BoardProjectsDocument,
  type ProjectGroupField,
  type ProjectWhere,
} from "../generated/graphql";
import { startTestApp, type TestApp } from "../helpers/app";
import { ADMIN, insertProjects, range } from "./support";

const STATUSES = ["proposed", "active", "active", "done", "done", "done", "review"];

describe("projectCounts", () => {
  let t: TestApp;
  let stored: ProjectDoc[];

  beforeAll(async () => {
    t = await startTestApp();
    await insertProjects(
      t.db,
      range(1, 130).map((id) => ({
        project_id: id,
        // 1-110 each a company of its own (more than 100 groups), the rest in company 7.
        company_id: id <= 110 ? id : 7,
        project_status: STATUSES[id % STATUSES.length],
        teacher_id: id % 3 === 0 ? null : 1 + (id % 4),
        end_date: `2026-0${1 + (id % 5)}-10`,
      })),
    );
    stored = await t.db.models.Project.find({}).lean<ProjectDoc[]>();
  });
  afterAll(async () => {
    await t.close();
  });

  const FIELDS: Record<ProjectGroupField, (p: ProjectDoc) => string | number | null> = {
    PROJECT_STATUS: (p) => p.project_status,
    COMPANY_ID: (p) => p.company_id,
    TEACHER_ID: (p) => p.teacher_id,
  };

  function expected(predicate: (p: ProjectDoc) => boolean, groupBy?: ProjectGroupField) {
    const matched = stored.filter(predicate);
    if (!groupBy) return { total: matched.length, groups: [], hasMoreGroups: false };
    const counts = new Map<string | number | null, number>();
    for (const p of matched) counts.set(FIELDS[groupBy](p), (counts.get(FIELDS[groupBy](p)) ?? 0) + 1);
    const rank = (v: string | number | null) => (v === null ? -Infinity : v);
    const groups = [...counts]
      .sort(([a, m], [b, n]) => n - m || (rank(a) < rank(b) ? -1 : rank(a) > rank(b) ? 1 : 0))
      .map(([key, count]) => ({ key: key === null ? null : String(key), count }));
    return { total: matched.length, groups: groups.slice(0, 100), hasMoreGroups: groups.length > 100 };
  }

  const open: ProjectWhere = { project_status: { ne: "done" } };

  it.each<[string, ProjectWhere | undefined, ProjectGroupField | undefined, (p: ProjectDoc) => boolean]>([
    ["every project, without groupBy", undefined, undefined, () => true],
    ["a board's columns", undefined, "PROJECT_STATUS", () => true],
    ["open projects by teacher (null: no teacher yet)", open, "TEACHER_ID", (p) => p.project_status !== "done"],
    ["more than 100 companies", undefined, "COMPANY_ID", () => true],
    [
      "due in January, by status",
      { end_date: { gte: "2026-01-01", lt: "2026-02-01" } },
      "PROJECT_STATUS",
      (p) => p.end_date.startsWith("2026-01"),
    ],
    ["nothing matches", { project_id: { gt: 1000 } }, "PROJECT_STATUS", () => false],
  ])("%s", async (_name, where, groupBy, predicate) => {
    const res = await t.gql(BoardCountsDocument, { where, groupBy }, ADMIN);
    expect(res.errors).toBeUndefined();
    expect(res.data!.projectCounts).toEqual(expected(predicate, groupBy));
  });

  it("given filter and where, counts what matches both, as the list's total does", async () => {
    const where: ProjectWhere = { teacher_id: { isNull: true } };
    const res = await t.gql(
      BoardCountsDocument,
      { where, filter: { company_id: 7 }, groupBy: "PROJECT_STATUS" },
      ADMIN,
    );
    const want = expected((p) => p.teacher_id === null && p.company_id === 7, "PROJECT_STATUS");
    expect(res.data!.projectCounts).toEqual(want);
    const list = await t.gql(BoardProjectsDocument, { where, filter: { company_id: 7 } }, ADMIN);
    expect(list.data!.projects.total).toBe(want.total);
  });

  it("a where out of bounds is BAD_REQUEST naming its path, as for lists", async () => {
    const res = await t.gql(BoardCountsDocument, { where: { not: { company_id: { in: [] } } } }, ADMIN);
    expect(res.errors?.[0].extensions).toMatchObject({
      code: "BAD_REQUEST",
      field: "where.not.company_id.in",
      reason: "OUT_OF_RANGE",
    });
  });
});
