// What a query asks for, read from the resolver's `info`: lets a list skip work for fields nobody selected (a page's
// `total` costs a count that reads every matching document on FerretDB).
import type { GraphQLResolveInfo, SelectionSetNode } from "graphql";

/** Whether the field being resolved selects `name` directly below it (through fragments too). */
export function selectsField(info: GraphQLResolveInfo, name: string): boolean {
  const visited = new Set<string>();
  const search = (set: SelectionSetNode | undefined): boolean =>
    !!set &&
    set.selections.some((selection) => {
      if (selection.kind === "Field") return selection.name.value === name;
      if (selection.kind === "InlineFragment") return search(selection.selectionSet);
      const fragmentName = selection.name.value;
      if (visited.has(fragmentName)) return false;
      visited.add(fragmentName);
      return search(info.fragments[fragmentName]?.selectionSet);
    });
  // @skip/@include are not evaluated: a conditionally selected field counts as selected (it may be asked for).
  return info.fieldNodes.some((node) => search(node.selectionSet));
}
