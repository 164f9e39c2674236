// One declaration of the fields a collection stores: a plain object of Mongoose field definitions, each required or
// with a default (null: optional). The document type (DocOf), the Mongoose schema (storedSchema), the defaults a
// document lacking a field reads with (withStoredDefaults) and the record a repository hands out (record-of.ts) all
// follow from it, so a field cannot be in one and missing from another.
import { Schema, type SchemaDefinition } from "mongoose";
import { idKey } from "./id-key";

type FieldType = StringConstructor | NumberConstructor | BooleanConstructor | DateConstructor;

type ValueOf<T> = T extends StringConstructor
  ? string
  : T extends NumberConstructor
    ? number
    : T extends BooleanConstructor
      ? boolean
      : T extends DateConstructor
        ? Date
        : never;

/** A stored field: required, or with the value a document that lacks it reads as (null: the field is optional). */
export type StoredField =
  | { readonly type: FieldType; readonly required: true }
  | { readonly type: FieldType; readonly default: string | number | boolean | null };

export type StoredFields = Readonly<Record<string, StoredField>>;

type FieldValue<F> = F extends { type: infer T; required: true }
  ? ValueOf<T>
  : F extends { type: infer T; default: null }
    ? ValueOf<T> | null
    : F extends { type: infer T }
      ? ValueOf<T>
      : never;

/** The stored document: `_id` (idKey of the numeric id, see id-key.ts), the declared fields, the timestamps. */
export type DocOf<Fields extends StoredFields> = {
  [K in "_id" | keyof Fields | "created_at" | "updated_at"]: K extends "_id"
    ? string
    : K extends "created_at" | "updated_at"
      ? Date
      : FieldValue<Fields[K]>;
};

/**
 * The Mongoose schema of a collection whose documents carry their numeric id `idField` again as a string `_id`
 * (db/id-key.ts), with created_at/updated_at timestamps. Indexes are created when the database opens (database.ts).
 */
export function storedSchema<Fields extends StoredFields>(
  collection: string,
  idField: keyof Fields & string,
  fields: Fields,
): Schema<DocOf<Fields>> {
  const definition: SchemaDefinition = {
    _id: {
      type: String,
      default: function (this: Record<string, unknown>) {
        const id = this[idField];
        return typeof id === "number" ? idKey(id) : undefined;
      },
    },
    ...fields,
  };
  return new Schema<DocOf<Fields>>(definition, {
    collection,
    versionKey: false,
    timestamps: { createdAt: "created_at", updatedAt: "updated_at" },
    autoIndex: false,
  });
}

/** The declared defaults of each field declaration, worked out once (reads apply them to every document). */
const defaultsOf = new WeakMap<StoredFields, readonly (readonly [string, unknown])[]>();

/** The fields of `fields` that have a default, with it, in declaration order. */
export function storedDefaults(fields: StoredFields): readonly (readonly [string, unknown])[] {
  let defaults = defaultsOf.get(fields);
  if (!defaults) {
    defaults = Object.entries(fields).flatMap(([name, field]) =>
      "default" in field ? [[name, field.default] as const] : [],
    );
    defaultsOf.set(fields, defaults);
  }
  return defaults;
}

/**
 * A document read as stored (`.lean()` applies no defaults), with the declared default of every field it lacks: a
 * document written before a field existed reads like one written with it. The same document when it lacks none.
 */
export function withStoredDefaults<Fields extends StoredFields, Doc extends DocOf<Fields>>(
  fields: Fields,
  doc: Doc,
): Doc {
  let copy: Record<string, unknown> | undefined;
  for (const [name, value] of storedDefaults(fields)) {
    if ((doc as Record<string, unknown>)[name] !== undefined) continue;
    copy ??= { ...doc };
    copy[name] = value;
  }
  return (copy as Doc | undefined) ?? doc;
}
