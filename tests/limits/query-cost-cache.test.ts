// A document's cost is worked out once per operation and values of the variables it depends on (the arguments the
// estimators read, and @skip/@include), then reused: every reused cost equals the walk's own, for documents whose
// limits, sizes, ids and conditions come from variables or literals, with variables given, left to their defaults,
// null, or of the wrong type (which throw, as the walk throws them).
import { parse } from "graphql";
import { queryCost, walkCost } from "../../src/graphql/query-cost";
import { getSchema, getSubgraph } from "../../src/graphql/schema";

const DOCUMENTS = [
  "query($p: Int!) { project(projectId: $p) { project_id teacher { teacher_id } } }",
  "query($l: Int, $o: Int) { projects(limit: $l, offset: $o) { items { project_id teacher { projects(limit: 5) { project_id } } } } }",
  "query($l: Int = 50, $t: Int) { teachers(limit: $l) { items { teacher_id projects(limit: $t) { project_id } } } }",
  "query($f: Int, $a: String, $k: Boolean!) { projectsConnection(first: $f, after: $a) { edges { node { project_id teacher @include(if: $k) { teacher_id } } } } }",
  "query($ids: [ID!]!) { nodes(ids: $ids) { id } }",
  "query A($l: Int) { projects(limit: $l) { items { project_id } } } query B($l: Int) { teachers(limit: $l) { items { teacher_id projects(limit: $l) { project_id } } } }",
  "query($s: Boolean!, $l: Int) { projects(limit: 100) @skip(if: $s) { items { project_id } } students(limit: $l) { items { student_id } } }",
];

const VALUES: Record<string, unknown[]> = {
  p: [1, 2, 3, "x", null],
  l: [1, 20, 100, 101, 0, -5, null, "x", undefined],
  o: [0, 10, undefined],
  t: [5, 100, undefined, null],
  f: [1, 50, 100, undefined],
  a: ["abc", undefined],
  k: [true, false, undefined, "yes"],
  ids: [[], ["UHJvamVjdDox"], Array.from({ length: 100 }, (_, i) => `id${i}`), "x"],
  s: [true, false],
};

function outcome(run: () => number): string {
  try {
    return `cost ${run()}`;
  } catch (err) {
    return `throws ${(err as Error).message}`;
  }
}

describe("query cost reused", () => {
  it("when documents run again and again with random variables, then every cost (or throw) is the walk's own", () => {
    const schema = getSchema();
    let seed = 3;
    const next = () => (seed = (seed * 48271) % 2147483647) / 2147483647;
    const pick = <T>(xs: T[]) => xs[Math.floor(next() * xs.length)];
    const documents = DOCUMENTS.map((text) => parse(text));
    let reused = 0;
    const seen = new Set<string>();
    for (let i = 0; i < 3_000; i++) {
      const index = Math.floor(next() * documents.length);
      const document = documents[index];
      const names = [...DOCUMENTS[index].matchAll(/\$(\w+):/g)].map((m) => m[1]);
      const variables: Record<string, unknown> = {};
      for (const name of names) {
        const value = pick(VALUES[name]);
        if (value !== undefined) variables[name] = value;
      }
      const operationName = index === 5 ? pick(["A", "B"]) : undefined;
      const key = JSON.stringify([index, operationName, variables]);
      if (seen.has(key)) reused++;
      seen.add(key);
      expect(outcome(() => queryCost(schema, document, variables, operationName))).toBe(
        outcome(() => walkCost(schema, document, variables, operationName)),
      );
    }
    expect(reused).toBeGreaterThan(500);
  });

  it("when the same document runs against the subgraph schema, then its cost is the subgraph's walk", () => {
    const document = parse(
      "query($r: [_Any!]!) { _entities(representations: $r) { ... on Project { project_id teacher { teacher_id } } } }",
    );
    const subgraph = getSubgraph().schema;
    for (const length of [1, 3, 1, 50, 3]) {
      const variables = { r: Array.from({ length }, (_, i) => ({ __typename: "Project", project_id: i + 1 })) };
      expect(queryCost(subgraph, document, variables)).toBe(walkCost(subgraph, document, variables));
    }
  });

  it("when a variable decides the cost, then another value of it is not given the cost of the first", () => {
    const schema = getSchema();
    const document = parse(
      "query($l: Int, $p: Int) { projects(limit: $l) { items { project_id } } project(projectId: $p) { project_id } }",
    );
    expect(queryCost(schema, document, { l: 1, p: 1 })).toBe(walkCost(schema, document, { l: 1, p: 1 }));
    expect(queryCost(schema, document, { l: 100, p: 1 })).toBeGreaterThan(queryCost(schema, document, { l: 1, p: 2 }));
    expect(queryCost(schema, document, { p: 3 })).toBe(walkCost(schema, document, { p: 3 }));
    expect(outcome(() => queryCost(schema, document, { l: null, p: 4 }))).toBe(
      outcome(() => walkCost(schema, document, { l: null, p: 4 })),
    );
  });
});
