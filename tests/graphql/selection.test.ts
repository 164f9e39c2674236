// What a query asks for below the field being resolved (src/graphql/selection.ts): the page resolver loads the
// items' teachers first only when they are asked for, and counts only when total is.
import {
  Kind,
  parse,
  type FragmentDefinitionNode,
  type GraphQLResolveInfo,
  type OperationDefinitionNode,
} from "graphql";
import { selectsField, selectsPath } from "../../src/graphql/selection";

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
