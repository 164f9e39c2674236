// Row rules (ACCESS_POLICY) inside a board's lists (contract, sixth revision, "Row rules"): a where, an order, a cursor
// or a count never shows or counts a project the caller may not read, and a where naming projects outside the rules
// answers as one naming projects that do not exist.
import {
  BoardConnectionDocument,
  BoardCountsDocument,
  BoardProjectsDocument,
  type ProjectOrder,
  type ProjectWhere,
} from "../generated/graphql";
import { startTestApp, type TestApp } from "../helpers/app";
import { CALLERS, contractPolicy, headerModeHeaders, insertProjects, mayRead, range } from "./support";

const alice = CALLERS[0];

describe("row rules inside where, orderBy, cursors and counts", () => {
  let t: TestApp;
  const projects = range(1, 45).map((id) => ({
    project_id: id,
    company_id: 1 + (id % 3),
    project_status: ["active", "done", "review"][id % 3 === 0 ? 0 : id % 2],
    teacher_id: null,
    created_by: null,
    end_date: `2026-0${1 + (id % 4)}-20`,
  }));

  beforeAll(async () => {
    t = await startTestApp({ config: { accessPolicy: contractPolicy() } });
    await insertProjects(t.db, projects);
  });
  afterAll(async () => {
    await t.close();
  });

  const readable = projects.filter((p) => mayRead(alice, p as never));

  it("a where, an order and pages by cursor hold only what the caller may read", async () => {
    const orderBy: ProjectOrder = { field: "END_DATE", direction: "DESC" };
    const where: ProjectWhere = { or: [{ company_id: { in: [2, 3] } }, { project_status: { ne: "done" } }] };
    const expected = readable
      .filter((p) => [2, 3].includes(p.company_id) || p.project_status !== "done")
      .sort((a, b) => (a.end_date < b.end_date ? 1 : a.end_date > b.end_date ? -1 : b.project_id - a.project_id))
      .map((p) => p.project_id);
    const walked: number[] = [];
    let after: string | null | undefined;
    for (let pages = 0; pages < 20; pages++) {
      const res = await t.gql(BoardConnectionDocument, { where, orderBy, first: 4, after }, headerModeHeaders(alice));
      expect(res.errors).toBeUndefined();
      const c = res.data!.projectsConnection;
      expect(c.totalCount).toBe(expected.length);
      walked.push(...c.edges.map((e) => e.node.project_id));
      if (!c.pageInfo.hasNextPage) break;
      after = c.pageInfo.endCursor;
    }
    expect(walked).toEqual(expected);
  });

  it("a where naming only projects the caller may not read answers as one naming none", async () => {
    const outside = projects.find((p) => !mayRead(alice, p as never))!;
    const hidden = await t.gql(
      BoardProjectsDocument,
      { where: { project_id: { eq: outside.project_id } } },
      headerModeHeaders(alice),
    );
    const absent = await t.gql(
      BoardProjectsDocument,
      { where: { project_id: { eq: 100_000 } } },
      headerModeHeaders(alice),
    );
    expect(hidden).toEqual(absent);
    expect(hidden.data!.projects.total).toBe(0);
  });

  it("counts count only what the caller may read", async () => {
    const res = await t.gql(BoardCountsDocument, { groupBy: "COMPANY_ID" }, headerModeHeaders(alice));
    const byCompany = new Map<number, number>();
    for (const p of readable) byCompany.set(p.company_id, (byCompany.get(p.company_id) ?? 0) + 1);
    expect(res.data!.projectCounts.total).toBe(readable.length);
    expect(res.data!.projectCounts.groups.map((g) => g.key).sort()).toEqual([...byCompany.keys()].map(String).sort());
    expect(res.data!.projectCounts.groups.reduce((n, g) => n + g.count, 0)).toBe(readable.length);
  });
});
