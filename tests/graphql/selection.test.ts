// What a query asks for below the field being resolved (src/graphql/selection.ts): the page resolver loads the
// items' teachers first only when they are asked for, counts only when total is, and reads only the fields its
// items' selection needs.
import {
  Kind,
  parse,
  type FragmentDefinitionNode,
  type GraphQLResolveInfo,
  type OperationDefinitionNode,
} from "graphql";
import { fieldsSelectedAt, recordFieldsFor, selectsField, selectsPath } from "../../src/graphql/selection";

/** The info of the document's first root field, as graphql-js hands it to that field's resolver. */
function infoOf(source: string): GraphQLResolveInfo {
  const document = parse(source);
  const operation = document.definitions.find(
    (d): d is OperationDefinitionNode => d.kind === Kind.OPERATION_DEFINITION,
  )!;
  const fragments = Object.fromEntries(
    document.definitions
      .filter((d): d is FragmentDefinitionNode => d.kind === Kind.FRAGMENT_DEFINITION)
      .map((d) => [d.name.value, d]),
  );
  const root = operation.selectionSet.selections[0];
  return { fieldNodes: [root], fragments } as unknown as GraphQLResolveInfo;
}

describe("selectsPath", () => {
  it.each([
    ["{ projects { items { teacher { teacher_name } } } }", true],
    ["{ projects { items { project_id } teacher: total } }", false],
    ["{ projects { total items { project_id } } }", false],
    ["{ projects { items { ... on Project { teacher { teacher_id } } } } }", true],
    [
      "{ projects { ...Page } } fragment Page on ProjectPage { items { ...Item } } fragment Item on Project { teacher { teacher_id } }",
      true,
    ],
    ["{ projects { ...Page } } fragment Page on ProjectPage { items { project_id } }", false],
    ["{ projects { items { mine: teacher { teacher_id } } } }", true],
    ["{ projects { items { teacher @skip(if: true) { teacher_id } } } }", true],
  ])("%s selects items.teacher: %s", (source, expected) => {
    expect(selectsPath(infoOf(source), ["items", "teacher"])).toBe(expected);
  });

  it("when a fragment is spread at two depths, then each depth is searched", () => {
    const info = infoOf(
      "{ projects { ...F items { ...F } } } fragment F on ProjectPage { total items { teacher { teacher_id } } }",
    );
    expect(selectsPath(info, ["items", "teacher"])).toBe(true);
    expect(selectsField(info, "total")).toBe(true);
    expect(selectsField(info, "teacher")).toBe(false);
  });
});

describe("fieldsSelectedAt", () => {
  it.each([
    ["{ projects { items { project_id project_name } } }", ["project_id", "project_name"]],
    ["{ projects { items { name: project_name, id } total } }", ["project_name", "id"]],
    ["{ projects { items { ... on Project { teacher { teacher_id } } __typename } } }", ["teacher", "__typename"]],
    [
      "{ projects { ...Page items { end_date } } } fragment Page on ProjectPage { items { ...Item } } fragment Item on Project { start_date }",
      ["end_date", "start_date"],
    ],
    ["{ projects { items { project_url @include(if: false) } } }", ["project_url"]],
    ["{ projects { total } }", []],
  ])("%s: the items' fields are %j", (source, expected) => {
    expect([...fieldsSelectedAt(infoOf(source), ["items"])].sort()).toEqual([...expected].sort());
  });
});

describe("recordFieldsFor", () => {
  const record = ["a", "b", "c"] as const;
  const computed = { __typename: [], link: ["c"] as const };

  it("when only record fields and known computed fields are selected, then those record fields and the always ones are read", () => {
    expect(recordFieldsFor(new Set(["b", "link", "__typename"]), record, computed, ["a"])?.sort()).toEqual([
      "a",
      "b",
      "c",
    ]);
  });

  it("when a selected field is neither a record field nor a known computed one, then every field is read", () => {
    expect(recordFieldsFor(new Set(["b", "added_later"]), record, computed, ["a"])).toBeUndefined();
  });

  it("when a name is only inherited from Object.prototype, then it is not taken for a known computed field", () => {
    expect(recordFieldsFor(new Set(["toString"]), record, computed, ["a"])).toBeUndefined();
  });
});
