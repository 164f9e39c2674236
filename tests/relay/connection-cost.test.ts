// The query cost counts connections like lists: 1 + first (or last, or the default 20) × the cost of the selection,
// and nodes(ids) as many as it names; so connections nested in connections multiply and a document over the maximum
// is refused before it runs (HTTP 400, BAD_REQUEST).
import { parse } from "graphql";
import { MAX_QUERY_COST, queryCost } from "../../src/graphql/query-cost";
import { getSchema } from "../../src/graphql/schema";
import { TeachersWithProjectsConnectionDocument } from "../generated/graphql";
import { startTestApp, type TestApp } from "../helpers/app";
import { STUDENT } from "../operations/support";

const cost = (query: string, variables?: Record<string, unknown>) => queryCost(getSchema(), parse(query), variables);

describe("query cost of connections", () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(() => t.close());

  it("when a connection page is asked, then it costs 1 + its size × the cost of its selection", () => {
    // edges { cursor node { project_id } } = 4, pageInfo { hasNextPage endCursor } = 3.
    const page = "edges { cursor node { project_id } } pageInfo { hasNextPage endCursor }";
    expect(cost(`{ projectsConnection(first: 100) { ${page} } }`)).toBe(1 + 100 * 7);
    expect(cost(`{ projectsConnection(last: 10) { ${page} } }`)).toBe(1 + 10 * 7);
    expect(cost(`{ projectsConnection { ${page} } }`)).toBe(1 + 20 * 7);
    expect(cost(`query($n: Int) { teachersConnection(first: $n) { nodes { teacher_id } } }`, { n: 50 })).toBe(
      1 + 50 * 2,
    );
    // A size over the maximum is refused anyway: it counts as the maximum.
    expect(cost(`{ studentsConnection(first: 1000) { nodes { student_id } } }`)).toBe(1 + 100 * 2);
    expect(cost(`{ nodes(ids: ["a", "b", "c"]) { id } }`)).toBe(1 + 3 * 1);
  });

  it("when connections nest 100 × 100, then the document is refused with 400 before it runs; 20 × 20 is answered", async () => {
    const big = await t.gql(TeachersWithProjectsConnectionDocument, { teachers: 100, first: 100 }, STUDENT);
    expect(big.status).toBe(400);
    expect(big.errors).toHaveLength(1);
    expect(big.errors![0].extensions?.code).toBe("BAD_REQUEST");
    expect(big.errors![0].message).toMatch(new RegExp(`^Query cost \\d+ exceeds the maximum of ${MAX_QUERY_COST}`));
    const small = await t.gql(TeachersWithProjectsConnectionDocument, { teachers: 20, first: 20 }, STUDENT);
    expect(small.status).toBe(200);
    expect(small.errors).toBeUndefined();
  });
});
