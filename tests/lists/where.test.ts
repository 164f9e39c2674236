// Lists a board can ask for (contract, sixth revision): every operator of ProjectWhere with and/or/not, folded names,
// every order in both directions on the offset page and the connection, cursors forward and backward in each order
// (ties broken by project_id), cursors of another order refused, cursors of before still read, the bounds with their
// paths and reasons, and the teacher's lists. Expected answers are worked out here from the stored documents and the
// contract's words, not from the service's code.
import type { ProjectDoc } from "../../src/components/projects/persistence";
import {
  BoardConnectionDocument,
  BoardProjectsDocument,
  TeacherBoardDocument,
  type ProjectOrder,
  type ProjectOrderField,
  type ProjectWhere,
} from "../generated/graphql";
import { startTestApp, type TestApp } from "../helpers/app";
import { ADMIN, insertProjects, insertTeachers, range } from "./support";

const NAMES: Record<number, string> = {
  1: "Énergie solaire",
  2: "  energie éolienne ",
  3: "ÉNERGIE bois",
  4: "Zèbre",
  5: "zebra",
  6: "Ångström lab",
  7: "Ener",
};
const STATUSES = ["proposed", "active", "done", "review"];

/** The contract's folding: NFKD, no combining marks, lower case, trimmed. */
const fold = (s: string) => s.normalize("NFKD").replace(/\p{M}/gu, "").toLowerCase().trim();

type Stored = ProjectDoc;
type Predicate = (p: Stored) => boolean;

describe("lists a board can ask for: where and orderBy on projects", () => {
  let t: TestApp;
  let stored: Stored[];

  beforeAll(async () => {
    t = await startTestApp();
    const base = Date.parse("2026-01-01T00:00:00.000Z");
    await insertTeachers(t.db, [1, 2, 3, 4, 5]);
    await insertProjects(
      t.db,
      range(1, 60).map((id) => ({
        project_id: id,
        project_name: NAMES[id] ?? `Project ${String((id * 7) % 60).padStart(2, "0")} ${id}`,
        company_id: 1 + (id % 3),
        project_status: STATUSES[id % 4],
        teacher_id: id % 4 === 0 ? null : 1 + (id % 5),
        created_by: id % 2 === 0 ? "alice" : null,
        start_date: `2025-${String(1 + (id % 9)).padStart(2, "0")}-01`,
        // Few distinct deadlines: many ties, broken by project_id.
        end_date: `2026-${String(1 + (id % 6)).padStart(2, "0")}-15`,
        created_at: new Date(base + (id % 10) * 60_000),
      })),
    );
    stored = await t.db.models.Project.find({}).lean<Stored[]>();
  });
  afterAll(async () => {
    await t.close();
  });

  const idsWhere = (predicate: Predicate) =>
    stored
      .filter(predicate)
      .map((p) => p.project_id)
      .sort((a, b) => a - b);

  async function listIds(where: ProjectWhere, orderBy?: ProjectOrder) {
    const res = await t.gql(BoardProjectsDocument, { where, orderBy }, ADMIN);
    expect(res.errors).toBeUndefined();
    return res.data!.projects;
  }

  async function refusal(where: ProjectWhere) {
    const res = await t.gql(BoardProjectsDocument, { where }, ADMIN);
    expect(res.errors).toHaveLength(1);
    return res.errors![0].extensions as { code: string; reason: string; field?: string };
  }

  const inJanuary = (d: string) => d >= "2026-01-01" && d < "2026-02-01";

  it.each<[string, ProjectWhere, Predicate]>([
    ["{} (every project)", {}, () => true],
    ["project_id eq", { project_id: { eq: 7 } }, (p) => p.project_id === 7],
    ["project_id ne", { project_id: { ne: 7 } }, (p) => p.project_id !== 7],
    ["project_id in", { project_id: { in: [3, 5, 99] } }, (p) => [3, 5].includes(p.project_id)],
    ["project_id notIn", { project_id: { notIn: [3, 5] } }, (p) => ![3, 5].includes(p.project_id)],
    ["project_id gt lte", { project_id: { gt: 10, lte: 20 } }, (p) => p.project_id > 10 && p.project_id <= 20],
    ["project_id gte lt", { project_id: { gte: 10, lt: 20 } }, (p) => p.project_id >= 10 && p.project_id < 20],
    ["company_id in", { company_id: { in: [1, 3] } }, (p) => [1, 3].includes(p.company_id)],
    ["no teacher yet", { teacher_id: { isNull: true } }, (p) => p.teacher_id === null],
    ["a teacher", { teacher_id: { isNull: false } }, (p) => p.teacher_id !== null],
    ["teacher_id ne (null matches)", { teacher_id: { ne: 2 } }, (p) => p.teacher_id !== 2],
    ["teacher_id notIn (null matches)", { teacher_id: { notIn: [2, 3] } }, (p) => ![2, 3].includes(p.teacher_id!)],
    ["still open", { project_status: { ne: "done" } }, (p) => p.project_status !== "done"],
    [
      "status in",
      { project_status: { in: ["active", "review"] } },
      (p) => ["active", "review"].includes(p.project_status),
    ],
    ["status notIn", { project_status: { notIn: ["active"] } }, (p) => p.project_status !== "active"],
    ["my projects", { created_by: { eq: "alice" } }, (p) => p.created_by === "alice"],
    ["created_by isNull", { created_by: { isNull: true } }, (p) => p.created_by === null],
    ["due this month", { end_date: { gte: "2026-01-01", lt: "2026-02-01" } }, (p) => inJanuary(p.end_date)],
    ["overdue", { end_date: { lt: "2026-03-01" } }, (p) => p.end_date < "2026-03-01"],
    ["end_date eq", { end_date: { eq: "2026-04-15" } }, (p) => p.end_date === "2026-04-15"],
    [
      "start_date gt lte",
      { start_date: { gt: "2025-03-01", lte: "2025-06-01" } },
      (p) => p.start_date > "2025-03-01" && p.start_date <= "2025-06-01",
    ],
    [
      "created_at range",
      { created_at: { gte: "2026-01-01T00:02:00.000Z", lt: "2026-01-01T00:05:00Z" } },
      (p) => p.created_at >= new Date("2026-01-01T00:02:00Z") && p.created_at < new Date("2026-01-01T00:05:00Z"),
    ],
    ["updated_at gt (every project)", { updated_at: { gt: "2000-01-01T00:00:00Z" } }, () => true],
    [
      "name startsWith, folded",
      { project_name: { startsWith: "ener" } },
      (p) => fold(p.project_name).startsWith("ener"),
    ],
    [
      "name startsWith, with accents and case",
      { project_name: { startsWith: " ÉNÉR" } },
      (p) => fold(p.project_name).startsWith("ener"),
    ],
    ["name eq, folded", { project_name: { eq: "  énergie SOLAIRE " } }, (p) => p.project_id === 1],
    ["name startsWith z", { project_name: { startsWith: "ze" } }, (p) => [4, 5].includes(p.project_id)],
    [
      "and",
      { and: [{ company_id: { eq: 2 } }, { project_status: { eq: "active" } }] },
      (p) => p.company_id === 2 && p.project_status === "active",
    ],
    [
      "or",
      { or: [{ company_id: { eq: 2 } }, { teacher_id: { isNull: true } }] },
      (p) => p.company_id === 2 || p.teacher_id === null,
    ],
    ["not (null matches)", { not: { teacher_id: { eq: 3 } } }, (p) => p.teacher_id !== 3],
    [
      "not of an or",
      { not: { or: [{ project_status: { eq: "done" } }, { end_date: { lt: "2026-03-01" } }] } },
      (p) => !(p.project_status === "done" || p.end_date < "2026-03-01"),
    ],
    [
      "fields and and together, same field twice",
      { project_id: { gte: 5 }, and: [{ project_id: { lte: 30 } }, { project_id: { gte: 10 } }] },
      (p) => p.project_id >= 10 && p.project_id <= 30,
    ],
    [
      "nested four deep",
      { and: [{ or: [{ not: { and: [{ company_id: { eq: 1 } }] } }, { project_id: { eq: 3 } }] }] },
      (p) => p.company_id !== 1 || p.project_id === 3,
    ],
  ])("where %s matches what the contract says", async (_name, where, predicate) => {
    const page = await listIds(where);
    const expected = idsWhere(predicate);
    expect(page.items.map((p) => p.project_id)).toEqual(expected);
    expect(page.total).toBe(expected.length);
  });

  it("given both filter and where, a project matches both", async () => {
    const res = await t.gql(
      BoardProjectsDocument,
      { filter: { company_id: 2 }, where: { project_status: { eq: "active" } } },
      ADMIN,
    );
    expect(res.data!.projects.items.map((p) => p.project_id)).toEqual(
      idsWhere((p) => p.company_id === 2 && p.project_status === "active"),
    );
  });

  // ---- orders

  const ORDERS: [ProjectOrderField, (p: Stored) => string | number][] = [
    ["PROJECT_ID", (p) => p.project_id],
    ["PROJECT_NAME", (p) => fold(p.project_name)],
    ["PROJECT_STATUS", (p) => p.project_status],
    ["COMPANY_ID", (p) => p.company_id],
    ["START_DATE", (p) => p.start_date],
    ["END_DATE", (p) => p.end_date],
    ["CREATED_AT", (p) => p.created_at.getTime()],
    ["UPDATED_AT", (p) => p.updated_at.getTime()],
  ];

  function ordered(predicate: Predicate, key: (p: Stored) => string | number, direction: "ASC" | "DESC"): number[] {
    const sign = direction === "ASC" ? 1 : -1;
    return stored
      .filter(predicate)
      .sort((a, b) => {
        const x = key(a);
        const y = key(b);
        const byKey = x < y ? -1 : x > y ? 1 : 0;
        return sign * (byKey !== 0 ? byKey : a.project_id - b.project_id);
      })
      .map((p) => p.project_id);
  }

  const open: ProjectWhere = { project_status: { ne: "done" } };
  const isOpen: Predicate = (p) => p.project_status !== "done";

  describe.each(ORDERS)("ordered by %s", (field, key) => {
    it.each(["ASC", "DESC"] as const)("%s: the offset page is in that order, ties by project_id", async (direction) => {
      const page = await listIds(open, { field, direction });
      expect(page.items.map((p) => p.project_id)).toEqual(ordered(isOpen, key, direction));
    });

    it.each(["ASC", "DESC"] as const)(
      "%s: pages of 7 by cursor, forward then backward, give every match once in order",
      async (direction) => {
        const expected = ordered(isOpen, key, direction);
        const forward: number[] = [];
        let after: string | null | undefined;
        for (let pages = 0; pages < 20; pages++) {
          const res = await t.gql(
            BoardConnectionDocument,
            { where: open, orderBy: { field, direction }, first: 7, after },
            ADMIN,
          );
          expect(res.errors).toBeUndefined();
          const c = res.data!.projectsConnection;
          forward.push(...c.edges.map((e) => e.node.project_id));
          if (!c.pageInfo.hasNextPage) break;
          after = c.pageInfo.endCursor;
        }
        expect(forward).toEqual(expected);

        const backward: number[] = [];
        let before: string | null | undefined;
        for (let pages = 0; pages < 20; pages++) {
          const res = await t.gql(
            BoardConnectionDocument,
            { where: open, orderBy: { field, direction }, last: 7, before },
            ADMIN,
          );
          const c = res.data!.projectsConnection;
          backward.unshift(...c.edges.map((e) => e.node.project_id));
          if (!c.pageInfo.hasPreviousPage) break;
          before = c.pageInfo.startCursor;
        }
        expect(backward).toEqual(expected);
      },
    );
  });

  it("a window between two cursors of one order holds what lies between them", async () => {
    const orderBy: ProjectOrder = { field: "END_DATE", direction: "DESC" };
    const all = await t.gql(BoardConnectionDocument, { orderBy, first: 100 }, ADMIN);
    const edges = all.data!.projectsConnection.edges;
    for (const [from, to] of [
      [3, 20],
      [10, 11],
      [0, 59],
      [25, 26],
    ]) {
      const res = await t.gql(
        BoardConnectionDocument,
        { orderBy, first: 100, after: edges[from].cursor, before: edges[to].cursor },
        ADMIN,
      );
      expect(res.data!.projectsConnection.edges.map((e) => e.node.project_id)).toEqual(
        edges.slice(from + 1, to).map((e) => e.node.project_id),
      );
    }
  });

  it("a cursor stays valid with another where of the same order (a position, not a record)", async () => {
    const orderBy: ProjectOrder = { field: "END_DATE", direction: "ASC" };
    const first = await t.gql(BoardConnectionDocument, { orderBy, first: 10 }, ADMIN);
    const cursor = first.data!.projectsConnection.pageInfo.endCursor;
    const res = await t.gql(BoardConnectionDocument, { orderBy, where: open, first: 100, after: cursor }, ADMIN);
    expect(res.errors).toBeUndefined();
    const all = ordered(
      () => true,
      (p) => p.end_date,
      "ASC",
    );
    const rest = all.slice(10).filter((id) => isOpen(stored.find((p) => p.project_id === id)!));
    expect(res.data!.projectsConnection.edges.map((e) => e.node.project_id)).toEqual(rest);
  });

  it.each(["after", "before"] as const)(
    "a cursor of another order is BAD_REQUEST naming %s, INVALID_FORMAT",
    async (arg) => {
      const byName = await t.gql(
        BoardConnectionDocument,
        { orderBy: { field: "PROJECT_NAME", direction: "ASC" }, first: 3 },
        ADMIN,
      );
      const byId = await t.gql(BoardConnectionDocument, { first: 3 }, ADMIN);
      for (const [cursor, orderBy] of [
        [byName.data!.projectsConnection.pageInfo.endCursor, { field: "PROJECT_NAME", direction: "DESC" }],
        [byName.data!.projectsConnection.pageInfo.endCursor, { field: "END_DATE", direction: "ASC" }],
        [byId.data!.projectsConnection.pageInfo.endCursor, { field: "END_DATE", direction: "ASC" }],
        [byId.data!.projectsConnection.pageInfo.endCursor, { field: "PROJECT_ID", direction: "DESC" }],
      ] as const) {
        const res = await t.gql(
          BoardConnectionDocument,
          { orderBy, [arg]: cursor, first: arg === "after" ? 3 : undefined, last: arg === "before" ? 3 : undefined },
          ADMIN,
        );
        expect(res.errors?.[0].extensions).toMatchObject({ code: "BAD_REQUEST", field: arg, reason: "INVALID_FORMAT" });
      }
    },
  );

  it("cursors issued before orders existed keep working for PROJECT_ID ASC, and are still what it hands out", async () => {
    const old = Buffer.from("v1:Project:10", "utf8").toString("base64url");
    for (const orderBy of [undefined, { field: "PROJECT_ID" as const, direction: "ASC" as const }]) {
      const res = await t.gql(BoardConnectionDocument, { orderBy, first: 3, after: old }, ADMIN);
      expect(res.data!.projectsConnection.edges.map((e) => e.node.project_id)).toEqual([11, 12, 13]);
      expect(res.data!.projectsConnection.edges[0].cursor).toBe(Buffer.from("v1:Project:11").toString("base64url"));
    }
  });

  it("a cursor that is not one of ours is INVALID_CURSOR", async () => {
    const forged = Buffer.from('v2:Project:END_DATE:ASC:["2026-01-15",x]').toString("base64url");
    const res = await t.gql(
      BoardConnectionDocument,
      { orderBy: { field: "END_DATE", direction: "ASC" }, after: forged },
      ADMIN,
    );
    expect(res.errors?.[0].extensions).toMatchObject({ code: "BAD_REQUEST", field: "after", reason: "INVALID_CURSOR" });
  });

  // ---- bounds

  it.each<[string, ProjectWhere, string, string]>([
    ["an in of 101 values", { project_id: { in: range(1, 101) } }, "where.project_id.in", "OUT_OF_RANGE"],
    ["an empty notIn", { company_id: { notIn: [] } }, "where.company_id.notIn", "OUT_OF_RANGE"],
    ["11 or entries", { or: range(1, 11).map((id) => ({ project_id: { eq: id } })) }, "where.or", "OUT_OF_RANGE"],
    [
      "nesting 5 deep",
      { and: [{ or: [{ not: { and: [{ or: [{ project_id: { eq: 1 } }] }] } }] }] },
      "where.and[0].or[0].not.and[0].or",
      "TOO_COMPLEX",
    ],
    ["an empty startsWith", { project_name: { startsWith: "" } }, "where.project_name.startsWith", "BLANK"],
    ["a startsWith of spaces", { project_name: { startsWith: "   " } }, "where.project_name.startsWith", "BLANK"],
    [
      "a startsWith of 65 characters",
      { project_name: { startsWith: "a".repeat(65) } },
      "where.project_name.startsWith",
      "TOO_LONG",
    ],
    [
      "an id out of range, deep in an or",
      { or: [{ project_id: { eq: 1 } }, { project_id: { eq: 2 } }, { company_id: { gte: 0 } }] },
      "where.or[2].company_id.gte",
      "OUT_OF_RANGE",
    ],
    ["a status of 65 characters", { project_status: { eq: "x".repeat(65) } }, "where.project_status.eq", "TOO_LONG"],
    [
      "a status with a control character",
      { project_status: { in: ["ok", "a\u0000b"] } },
      "where.project_status.in[1]",
      "FORBIDDEN_CHARACTERS",
    ],
  ])("%s is BAD_REQUEST naming its path and reason", async (_name, where, field, reason) => {
    expect(await refusal(where)).toMatchObject({ code: "BAD_REQUEST", field, reason });
  });

  it("every problem of a where is listed at once", async () => {
    const res = await t.gql(
      BoardProjectsDocument,
      { where: { or: [{ company_id: { eq: 0 } }, { project_name: { startsWith: "" } }] } },
      ADMIN,
    );
    // The GraphQL error carries the first; the test of the whole list is the REST-free domain error, seen here by
    // its message naming the first path.
    expect(res.errors![0].message).toContain("where.or[0].company_id.eq");
  });

  it("a date that is no calendar date is a GraphQL type error (LocalDate), refused before the list runs", async () => {
    const res = await t.gql(BoardProjectsDocument, { where: { end_date: { lt: "2026-02-30" } } }, ADMIN);
    expect(res.errors?.[0].extensions?.code).toBe("BAD_USER_INPUT");
    expect(res.errors?.[0].message).toContain("where.end_date.lt");
    expect(res.data).toBeUndefined();
  });

  // ---- a teacher's lists

  it("a teacher's projects and projectsConnection take the same where and orderBy", async () => {
    const orderBy: ProjectOrder = { field: "END_DATE", direction: "DESC" };
    const expected = ordered(
      (p) => p.teacher_id === 2 && isOpen(p),
      (p) => p.end_date,
      "DESC",
    );
    const res = await t.gql(TeacherBoardDocument, { teacherId: 2, where: open, orderBy, first: 2 }, ADMIN);
    expect(res.errors).toBeUndefined();
    expect(res.data!.teacher!.projects.map((p) => p.project_id)).toEqual(expected);
    const walked: number[] = [];
    let after: string | null | undefined;
    for (let pages = 0; pages < 20; pages++) {
      const page = await t.gql(TeacherBoardDocument, { teacherId: 2, where: open, orderBy, first: 2, after }, ADMIN);
      const c = page.data!.teacher!.projectsConnection;
      expect(c.totalCount).toBe(expected.length);
      walked.push(...c.edges.map((e) => e.node.project_id));
      if (!c.pageInfo.hasNextPage) break;
      after = c.pageInfo.endCursor;
    }
    expect(walked).toEqual(expected);
  });
});
