// Paging through every page as a restricted caller yields exactly the projects it may read, each once, in order, and
// every page's count (total, totalCount) is theirs alone: offset pages, cursor pages forward and backward, with and
// without a filter, and through each teacher. Under three policies: the contract's (by company), one by creator
// (created_by: "$sub"), and one naming two fields (company and a list of statuses).
import { parseAccessPolicy } from "../../src/components/projects";
import {
  AccessProjectPageDocument,
  AccessProjectsConnectionDocument,
  AccessTeacherProjectsDocument,
  type ProjectFilterInput,
} from "../generated/graphql";
import { startTestApp, type Headers, type TestApp } from "../helpers/app";
import { seededRandom } from "../helpers/random";
import { JWT_AUTH } from "../helpers/tokens";
import { CONTRACT_POLICY, insertProjects, insertTeachers, jwtHeaders, range, type Who } from "./support";

const SEED = 36;
const TEACHERS = 5;
const STATUSES = ["proposed", "active", "done", "cancelled"];
const SUBS = ["alice", "bob", "carol"];
const PAGE = 7;

interface Row {
  project_id: number;
  company_id: number;
  teacher_id: number | null;
  created_by: string;
  project_status: string;
}

const random = seededRandom(SEED);
const pick = <T>(values: readonly T[]): T => values[Math.floor(random() * values.length)];
const ROWS: Row[] = range(1, 260).map((project_id) => ({
  project_id,
  company_id: 1 + Math.floor(random() * 8),
  teacher_id: random() < 0.2 ? null : 1 + Math.floor(random() * TEACHERS),
  created_by: pick(SUBS),
  project_status: pick(STATUSES),
}));

const CASES: { name: string; policy: object; who: Who; visible: (row: Row) => boolean }[] = [
  {
    name: "the contract's policy, a student of companies 2, 5 and 7",
    policy: CONTRACT_POLICY,
    who: { name: "alice", role: "student", sub: "alice", claims: { company_ids: [2, 5, 7] } },
    visible: (row) => [2, 5, 7].includes(row.company_id),
  },
  {
    name: "a policy by creator, a student who created some",
    policy: { projects: { student: { read: { created_by: "$sub" } } } },
    who: { name: "bob", role: "student", sub: "bob", claims: {} },
    visible: (row) => row.created_by === "bob",
  },
  {
    name: "a policy of two fields, a teacher of company 4 seeing two statuses",
    policy: { projects: { teacher: { read: { company_id: "$company_ids", project_status: ["active", "done"] } } } },
    who: { name: "ted", role: "teacher", sub: "ted", claims: { company_ids: 4 } },
    visible: (row) => row.company_id === 4 && ["active", "done"].includes(row.project_status),
  },
];

describe.each(CASES)("paging under $name", ({ policy, who, visible }) => {
  let t: TestApp;
  let headers: Headers;
  const seen = ROWS.filter(visible);
  beforeAll(async () => {
    t = await startTestApp({ auth: JWT_AUTH, config: { accessPolicy: parseAccessPolicy(JSON.stringify(policy)) } });
    await insertTeachers(t.db, range(1, TEACHERS));
    await insertProjects(t.db, ROWS);
    headers = await jwtHeaders(who);
  });
  afterAll(() => t.close());

  const ids = (rows: Row[]) => rows.map((row) => row.project_id);
  const FILTERS: [string, ProjectFilterInput | undefined, (row: Row) => boolean][] = [
    ["no filter", undefined, () => true],
    ["company_id 5", { company_id: 5 }, (row) => row.company_id === 5],
    ["company_id 4", { company_id: 4 }, (row) => row.company_id === 4],
    ["teacher_id 3", { teacher_id: 3 }, (row) => row.teacher_id === 3],
    ["project_status active", { project_status: "active" }, (row) => row.project_status === "active"],
  ];

  it.each(FILTERS)(
    "when it pages by offset with %s, then it gets exactly the projects it may read",
    async (_, filter, keep) => {
      const expected = ids(seen.filter(keep));
      const got: number[] = [];
      for (let offset = 0; ; offset += PAGE) {
        const { data } = await t.gql(AccessProjectPageDocument, { filter, offset, limit: PAGE }, headers);
        expect(data!.projects.total).toBe(expected.length);
        got.push(...data!.projects.items.map((p) => p.project_id));
        if (!data!.projects.has_more) break;
      }
      expect(got).toEqual(expected);
    },
  );

  it.each(FILTERS)(
    "when it pages by cursor forward and backward with %s, then it gets exactly the projects it may read",
    async (_, filter, keep) => {
      const expected = ids(seen.filter(keep));
      const forward: number[] = [];
      for (let after: string | null | undefined; ;) {
        const { data } = await t.gql(AccessProjectsConnectionDocument, { filter, first: PAGE, after }, headers);
        const page = data!.projectsConnection;
        expect(page.totalCount).toBe(expected.length);
        forward.push(...page.nodes.map((p) => p.project_id));
        if (!page.pageInfo.hasNextPage) break;
        after = page.pageInfo.endCursor;
      }
      const backward: number[] = [];
      for (let before: string | null | undefined; ;) {
        const { data } = await t.gql(AccessProjectsConnectionDocument, { filter, last: PAGE, before }, headers);
        const page = data!.projectsConnection;
        backward.unshift(...page.nodes.map((p) => p.project_id));
        if (!page.pageInfo.hasPreviousPage) break;
        before = page.pageInfo.startCursor;
      }
      expect(forward).toEqual(expected);
      expect(backward).toEqual(expected);
    },
  );

  it.each(range(1, TEACHERS))(
    "when it pages through teacher %i's projects (offset and cursor), then it gets exactly those it may read",
    async (teacherId) => {
      const expected = ids(seen.filter((row) => row.teacher_id === teacherId));
      const byOffset: number[] = [];
      for (let offset = 0; offset <= expected.length; offset += PAGE) {
        const { data } = await t.gql(
          AccessTeacherProjectsDocument,
          { teacherId, offset, limit: PAGE, first: 1 },
          headers,
        );
        byOffset.push(...data!.teacher!.projects.map((p) => p.project_id));
      }
      const byCursor: number[] = [];
      for (let after: string | null | undefined; ;) {
        const { data } = await t.gql(
          AccessTeacherProjectsDocument,
          { teacherId, limit: 1, first: PAGE, after },
          headers,
        );
        const page = data!.teacher!.projectsConnection;
        expect(page.totalCount).toBe(expected.length);
        byCursor.push(...page.nodes.map((p) => p.project_id));
        if (!page.pageInfo.hasNextPage) break;
        after = page.pageInfo.endCursor;
      }
      expect(byOffset).toEqual(expected);
      expect(byCursor).toEqual(expected);
    },
  );
});
