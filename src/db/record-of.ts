// The record a repository hands out for a stored document, derived from the collection's one field declaration
// (stored-fields.ts): the document without its storage-only keys (_id, and a component's own such as name_key), with
// the timestamps as ISO strings (an invalid one as stored, for the record guard to report) and every declared
// default applied.
import { isoTimestamp } from "../shared/record-guard";
import { storedDefaults, type DocOf, type StoredFields } from "./stored-fields";

export type RecordOf<
  Doc extends { _id: unknown; created_at: Date; updated_at: Date },
  StorageOnly extends keyof Doc = never,
> = {
  [K in Exclude<keyof Doc, "_id" | StorageOnly | "created_at" | "updated_at">]: Doc[K];
} & { created_at: string; updated_at: string };

/**
 * The function that maps a stored document of these fields to its record; it reads only the record's fields, so a
 * document without its storage-only keys (a project state kept in the change log) maps too.
 */
export function recordMapper<Fields extends StoredFields, StorageOnly extends keyof Fields = never>(
  fields: Fields,
  storageOnly: readonly StorageOnly[] = [],
): (doc: Omit<DocOf<Fields>, "_id" | StorageOnly>) => RecordOf<DocOf<Fields>, StorageOnly> {
  return fieldsMapper(recordFieldsOf(fields, storageOnly)) as (
    doc: Omit<DocOf<Fields>, "_id" | StorageOnly>,
  ) => RecordOf<DocOf<Fields>, StorageOnly>;
}

/**
 * The function that maps a stored document read with only some of the record's fields (a projection of
 * `selected`) to a record holding just those: the others are left out, not given their default.
 */
export function selectedRecordMapper<Fields extends StoredFields, StorageOnly extends keyof Fields = never>(
  fields: Fields,
  storageOnly: readonly StorageOnly[] = [],
): (
  selected: readonly (keyof RecordOf<DocOf<Fields>, StorageOnly>)[],
) => (doc: Partial<DocOf<Fields>>) => RecordOf<DocOf<Fields>, StorageOnly> {
  const all = recordFieldsOf(fields, storageOnly);
  return (selected) => {
    const names = new Set<string>(selected as string[]);
    return fieldsMapper(all.filter(([name]) => names.has(name))) as (
      doc: Partial<DocOf<Fields>>,
    ) => RecordOf<DocOf<Fields>, StorageOnly>;
  };
}

/** No declared default. */
const NONE = Symbol("no default");

/** Each record field with its default (NONE: none), or TIMESTAMP for the two timestamps. */
type FieldMapping = readonly [name: string, fallback: unknown];

const TIMESTAMP = Symbol("timestamp");

function recordFieldsOf(fields: StoredFields, storageOnly: readonly PropertyKey[]): FieldMapping[] {
  const defaults = new Map(storedDefaults(fields));
  return [
    ...Object.keys(fields)
      .filter((name) => !storageOnly.includes(name))
      .map((name) => [name, defaults.has(name) ? defaults.get(name) : NONE] as const),
    ["created_at", TIMESTAMP],
    ["updated_at", TIMESTAMP],
  ];
}

// Worked out once per declaration (or selection): each record field with its default, so a read maps a document
// field by field without copying it first (as withStoredDefaults would): every list item goes through here.
function fieldsMapper(names: readonly FieldMapping[]): (stored: object) => object {
  return (stored) => {
    const doc = stored as Record<string, unknown>;
    const record: Record<string, unknown> = {};
    for (const [name, fallback] of names) {
      const value = doc[name];
      record[name] =
        fallback === TIMESTAMP ? isoTimestamp(value) : value === undefined && fallback !== NONE ? fallback : value;
    }
    return record;
  };
}
