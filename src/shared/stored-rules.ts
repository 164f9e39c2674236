// The contract's rules applied to a stored document (npm run db:check). The service validates every write, so its own
// documents pass; documents written by imports or by hand may not. A stored value passes when the input rule of its
// field accepts it AND leaves it as stored: a name the service would have trimmed, an e-mail it would have
// lower-cased, is not what the service stores either.
import { isDeepStrictEqual } from "node:util";
import { z } from "zod";
import { idKey } from "../db/id-key";
import { positiveIdField } from "./validation";

/** One broken rule of one stored document. */
export interface StoredProblem {
  field: string;
  /** What the rule says, without the field's name ("must be a whole number from 1 to 2147483647"). */
  rule: string;
}

/** The value as the problem quotes it. */
export function quoted(value: unknown): string {
  if (value === undefined) return "missing";
  if (value instanceof Date) return Number.isNaN(value.getTime()) ? "an invalid date" : value.toISOString();
  return JSON.stringify(value)?.slice(0, 80) ?? String(value);
}

/** The problem of a document whose `_id` is not idKey(<its id>); none when the id is not whole (its own rule says so). */
export function idKeyProblems(doc: Record<string, unknown>, idField: string): StoredProblem[] {
  const id = doc[idField];
  if (!Number.isInteger(id) || doc._id === idKey(id as number)) return [];
  return [{ field: "_id", rule: `must be "${idKey(id as number)}" (stored: ${quoted(doc._id)})` }];
}

/**
 * Problems of `doc` under an object shape of rules (a component's input shape or its stored-only fields): every
 * field the shape names is checked, missing ones included; fields it does not name are left to other shapes.
 */
export function storedProblems(doc: Record<string, unknown>, shape: z.ZodObject): StoredProblem[] {
  const keys = Object.keys(shape.shape);
  const values = Object.fromEntries(keys.map((key) => [key, doc[key]]));
  // Only the shape's own fields are handed over, so a strict shape's refinements (end_date not before start_date) run.
  const result = shape.safeParse(values);
  const problems: StoredProblem[] = [];
  if (!result.success) {
    for (const issue of result.error.issues) {
      const field = issue.path.length > 0 ? issue.path.map(String).join(".") : keys.join(", ");
      // One problem per field, its first (as validate() reports input).
      if (problems.some((problem) => problem.field === field)) continue;
      problems.push({ field, rule: `${issue.message} (stored: ${quoted(doc[field])})` });
    }
  }
  if (result.success) {
    for (const key of keys) {
      const stored = doc[key];
      const normal = (result.data as Record<string, unknown>)[key];
      if (stored !== undefined && !isDeepStrictEqual(stored, normal)) {
        problems.push({
          field: key,
          rule: `is not stored in the form the service writes (${quoted(normal)}), e.g. trimmed or lower-cased (stored: ${quoted(stored)})`,
        });
      }
    }
  }
  return problems;
}

/** Stored timestamps: real dates. */
export const storedTimestamp = () => z.date({ error: "must be a date" });

/** An id as stored: a whole number within what the API can answer. */
export const storedId = positiveIdField;

/**
 * The fields the rules of a collection cover: its create shape's, those the service adds, `_id` and the keys derived
 * from other fields. Each component's *.stored.ts checks them against its stored fields (`true satisfies
 * HasFields<...>`, whose message names the field and the file to edit).
 */
export type StoredRulesCover<
  Doc,
  Input extends z.ZodObject,
  Added extends z.ZodObject,
  Derived extends keyof Doc = never,
> = z.input<Input> & z.input<Added> & Pick<Doc, "_id" & keyof Doc> & Pick<Doc, Derived>;

/**
 * The contract's rules for a stored document of one collection (npm run db:check), one definition for projects,
 * teachers and students: the fields of its create shape under the input rules, the fields the service adds
 * (`added`, a strict shape), `_id` = idKey(<idField>), and `more` for keys derived from other fields.
 */
export function storedRules<Input extends z.ZodObject, Added extends z.ZodObject>(
  input: Input,
  added: Added,
  idField: keyof z.input<Added> & string,
  more: (doc: Record<string, unknown>) => StoredProblem[] = () => [],
): (doc: Record<string, unknown>) => StoredProblem[] {
  return (doc) => [
    ...storedProblems(doc, input),
    ...storedProblems(doc, added),
    ...idKeyProblems(doc, idField),
    ...more(doc),
  ];
}
