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
  return fieldsSelectedAt(info, path.slice(0, -1)).has(path[path.length - 1]);
}

/**
 * The names of the fields selected at the path below the field being resolved (e.g. ["items"]: the fields of a
 * page's items), through fragments too, wherever the path is selected; aliases give their field's name.
 * @skip/@include are not evaluated: a conditionally selected field counts as selected (it may be asked for).
 */
export function fieldsSelectedAt(info: GraphQLResolveInfo, path: readonly string[]): Set<string> {
  const names = new Set<string>();
  const visited = new Set<string>();
  const collect = (set: SelectionSetNode | undefined, depth: number): void => {
    for (const selection of set?.selections ?? []) {
      if (selection.kind === "Field") {
        if (depth === path.length) names.add(selection.name.value);
        else if (selection.name.value === path[depth]) collect(selection.selectionSet, depth + 1);
      } else if (selection.kind === "InlineFragment") {
        collect(selection.selectionSet, depth);
      } else {
        const fragmentName = `${selection.name.value}@${depth}`;
        if (visited.has(fragmentName)) continue;
        visited.add(fragmentName);
        collect(info.fragments[selection.name.value]?.selectionSet, depth);
      }
    }
  };
  for (const node of info.fieldNodes) collect(node.selectionSet, 0);
  return names;
}

/**
 * The record fields a selection of an object type needs, for reading only those: each selected field that is a
 * record field needs itself, the others what `computed` names (e.g. a project's `teacher` needs `teacher_id`), and
 * `always` are always read. undefined (read every field) when the selection holds a field neither names, so a field
 * added to the type without being listed here is answered from a whole record, never from a missing one.
 */
export function recordFieldsFor<F extends string>(
  selected: ReadonlySet<string>,
  recordFields: readonly F[],
  computed: Readonly<Record<string, readonly F[]>>,
  always: readonly F[],
): F[] | undefined {
  const needed = new Set<F>(always);
  for (const name of selected) {
    if ((recordFields as readonly string[]).includes(name)) needed.add(name as F);
    else if (Object.hasOwn(computed, name)) for (const field of computed[name]) needed.add(field);
    else return undefined;
  }
  return [...needed];
}
