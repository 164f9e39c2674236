// What a query asks for, read from the resolver's `info`: lets a list skip work for fields nobody selected (a page's
// `total` costs a count that reads every matching document on FerretDB).
import type { GraphQLResolveInfo, SelectionSetNode } from "graphql";

/** Whether the field being resolved selects `name` directly below it (through fragments too). */
export function selectsField(info: GraphQLResolveInfo, name: string): boolean {
  return selectsPath(info, [name]);
}

/**
 * Whether the field being resolved selects the path below it, e.g. ["items", "teacher"] for a page's items'
 * teacher (through fragments too, in any of the places the path's fields are selected).
 */
export function selectsPath(info: GraphQLResolveInfo, path: readonly string[]): boolean {
  const visited = new Set<string>();
  const search = (set: SelectionSetNode | undefined, depth: number): boolean =>
    !!set &&
    set.selections.some((selection) => {
      if (selection.kind === "Field") {
        if (selection.name.value !== path[depth]) return false;
        return depth === path.length - 1 || search(selection.selectionSet, depth + 1);
      }
      if (selection.kind === "InlineFragment") return search(selection.selectionSet, depth);
      const fragmentName = `${selection.name.value}@${depth}`;
      if (visited.has(fragmentName)) return false;
      visited.add(fragmentName);
      return search(info.fragments[selection.name.value]?.selectionSet, depth);
    });
  // @skip/@include are not evaluated: a conditionally selected field counts as selected (it may be asked for).
  return info.fieldNodes.some((node) => search(node.selectionSet, 0));
}
