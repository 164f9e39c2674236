// The `where` of a list (contract, sixth revision, "Lists a board can ask for"), shared by every component and
// transport: checks a where against its list's fields (every problem at once, each naming its path such as
// `where.or[2].end_date.gte`, with a reason) and translates it into a MongoDB filter on the stored fields. Each
// component declares its fields (a WhereFields table: what kind of comparison each takes, and the stored field it
// compares); the rules of the comparisons live here once.
//
// Meaning, as the contract fixes it: the fields of one where and of one comparison all hold; `and` / `or` hold for
// all / any of their entries, `not` when its entry does not ($nor of one entry); `{}` matches everything. `ne`,
// `notIn` and `not` match a null field too, as MongoDB's $ne, $nin and $nor do. Names compare folded (foldedName,
// the stored field name_folded): `eq` the whole folded name, `startsWith` a range [prefix, successor) on it, so both
// are index ranges, never a regular expression.
//
// The filter keeps a where's conditions on one field in one operator object where it can ({end_date: {$gte, $lt}}),
// and allOf() merges filters (a where, a list's filter, a row rule, a cursor's range) the same way, so the embedded
// FerretDB's pushdown (top-level conditions of indexed fields) sees as much of it as MongoDB's planner does.
import { ErrorCode, FieldErrorReason, type FieldError } from "./errors";
import { foldedName, GRAPHQL_INT_MAX, invalid, isCalendarDate, SAFE_INT_MAX, textProblem } from "./validation";

/** Values one `in` / `notIn` may hold. */
export const WHERE_MAX_VALUES = 100;
/** Entries one `and` / `or` may hold. */
export const WHERE_MAX_ENTRIES = 10;
/** How deep `and`, `or` and `not` may nest (a where's own entries are 1 deep). */
export const WHERE_MAX_DEPTH = 4;
/** Characters a `startsWith` may hold. */
export const WHERE_MAX_PREFIX = 64;

/**
 * What a field of a where compares: `id` (IntComparison, 1 … 2,147,483,647), `safeId` (SafeIntComparison, students'
 * ids), `text` (StringComparison: statuses, codes, callers' ids), `name` (NameComparison on the folded name), `email`
 * (NameComparison, ignoring case), `date` (DateComparison, YYYY-MM-DD), `instant` (DateTimeComparison).
 */
export type WhereKind = "id" | "safeId" | "text" | "name" | "email" | "date" | "instant";

export interface WhereField {
  kind: WhereKind;
  /** The stored field it compares (a name's folded copy for `name`). */
  stored: string;
  /** Longest text value (`text`). */
  max?: number;
}

/** The fields a list's where takes, by their API names. */
export type WhereFields = Readonly<Record<string, WhereField>>;

/** A MongoDB filter on stored fields. */
export type StoredFilter = Record<string, unknown>;

/** The operators each kind takes, and the MongoDB operator each becomes (isNull and startsWith are translated apart). */
const OPERATORS: Record<WhereKind, readonly string[]> = {
  id: ["eq", "ne", "in", "notIn", "gt", "gte", "lt", "lte", "isNull"],
  safeId: ["eq", "ne", "in", "notIn", "gt", "gte", "lt", "lte"],
  text: ["eq", "ne", "in", "notIn", "isNull"],
  name: ["eq", "startsWith"],
  email: ["eq", "startsWith"],
  date: ["eq", "gt", "gte", "lt", "lte"],
  instant: ["gt", "gte", "lt", "lte"],
};
const MONGO: Record<string, string> = {
  eq: "$eq",
  ne: "$ne",
  in: "$in",
  notIn: "$nin",
  gt: "$gt",
  gte: "$gte",
  lt: "$lt",
  lte: "$lte",
};
const LOGICAL = ["and", "or", "not"] as const;

/** A where as a client sends it: field comparisons and and/or/not (null values count as not given). */
export type WhereInput = object;

/**
 * The MongoDB filter of `where` (undefined or null: `{}`); throws one BAD_REQUEST listing every problem, each naming
 * its path from `at` (the argument's name).
 */
export function whereFilter(fields: WhereFields, where: WhereInput | null | undefined, at = "where"): StoredFilter {
  if (where == null) return {};
  const problems: FieldError[] = [];
  const filter = translate(fields, where, at, 0, problems);
  if (problems.length > 0) throw invalid(problems as [FieldError, ...FieldError[]]);
  return filter;
}

/** How many values and conditions a where holds: what the query cost counts it as (graphql/query-cost.ts). */
export function whereSize(where: unknown): number {
  if (Array.isArray(where)) return where.reduce((n: number, entry) => n + whereSize(entry), 0);
  if (where === null || typeof where !== "object" || where instanceof Date) return where == null ? 0 : 1;
  return Object.values(where as Record<string, unknown>).reduce((n: number, value) => n + whereSize(value), 0);
}

function problem(problems: FieldError[], field: string, reason: FieldErrorReason, rule: string): void {
  problems.push({ field, message: `${field} ${rule}`, code: ErrorCode.BAD_REQUEST, reason });
}

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value) && !(value instanceof Date);
}

function translate(
  fields: WhereFields,
  where: unknown,
  at: string,
  depth: number,
  problems: FieldError[],
): StoredFilter {
  if (!isObject(where)) {
    problem(problems, at, FieldErrorReason.WRONG_TYPE, "must be an object of conditions");
    return {};
  }
  let filter: StoredFilter = {};
  for (const [key, value] of Object.entries(where)) {
    if (value == null) continue;
    const path = `${at}.${key}`;
    if ((LOGICAL as readonly string[]).includes(key)) {
      if (depth + 1 > WHERE_MAX_DEPTH) {
        problem(problems, path, FieldErrorReason.TOO_COMPLEX, `nests and/or/not deeper than ${WHERE_MAX_DEPTH}`);
        continue;
      }
      if (key === "not") {
        filter = allOf(filter, { $nor: [translate(fields, value, path, depth + 1, problems)] });
        continue;
      }
      if (!Array.isArray(value)) {
        problem(problems, path, FieldErrorReason.WRONG_TYPE, "must be a list of conditions");
        continue;
      }
      if (value.length < 1 || value.length > WHERE_MAX_ENTRIES) {
        problem(
          problems,
          path,
          FieldErrorReason.OUT_OF_RANGE,
          `must hold 1 to ${WHERE_MAX_ENTRIES} entries (got ${value.length})`,
        );
        continue;
      }
      const entries = value.map((entry, i) => translate(fields, entry, `${path}[${i}]`, depth + 1, problems));
      filter =
        key === "and" ? entries.reduce((all, entry) => allOf(all, entry), filter) : allOf(filter, { $or: entries });
      continue;
    }
    const field = fields[key];
    if (!field) {
      problem(problems, path, FieldErrorReason.UNKNOWN_FIELD, `is not a field this list can be filtered by`);
      continue;
    }
    filter = allOf(filter, comparison(field, value, path, problems));
  }
  return filter;
}

/** One field's comparison as a filter on its stored field. */
function comparison(field: WhereField, given: unknown, at: string, problems: FieldError[]): StoredFilter {
  if (!isObject(given)) {
    problem(problems, at, FieldErrorReason.WRONG_TYPE, "must be an object of comparisons");
    return {};
  }
  let filter: StoredFilter = {};
  const add = (operator: string, value: unknown) => (filter = allOf(filter, { [field.stored]: { [operator]: value } }));
  for (const [operator, value] of Object.entries(given)) {
    if (value == null) continue;
    const path = `${at}.${operator}`;
    if (!OPERATORS[field.kind].includes(operator)) {
      problem(problems, path, FieldErrorReason.UNKNOWN_FIELD, "is not a comparison this field takes");
      continue;
    }
    if (operator === "isNull") {
      if (typeof value !== "boolean") problem(problems, path, FieldErrorReason.WRONG_TYPE, "must be true or false");
      else add(value ? "$eq" : "$ne", null);
      continue;
    }
    if (operator === "startsWith") {
      const prefix = checkedPrefix(field, value, path, problems);
      if (prefix !== undefined) {
        add("$gte", prefix);
        add("$lt", successor(prefix));
      }
      continue;
    }
    if (operator === "in" || operator === "notIn") {
      if (!Array.isArray(value)) {
        problem(problems, path, FieldErrorReason.WRONG_TYPE, "must be a list of values");
        continue;
      }
      if (value.length < 1 || value.length > WHERE_MAX_VALUES) {
        problem(
          problems,
          path,
          FieldErrorReason.OUT_OF_RANGE,
          `must hold 1 to ${WHERE_MAX_VALUES} values (got ${value.length})`,
        );
        continue;
      }
      const values = value.map((v, i) => checkedValue(field, v, `${path}[${i}]`, problems));
      if (values.every((v) => v !== undefined)) add(MONGO[operator], [...new Set(values)]);
      continue;
    }
    const checked = checkedValue(field, value, path, problems);
    if (checked !== undefined) add(MONGO[operator], checked);
  }
  return filter;
}

/** A value as stored, or undefined after reporting why it cannot be one. */
function checkedValue(field: WhereField, value: unknown, at: string, problems: FieldError[]): unknown {
  switch (field.kind) {
    case "id":
    case "safeId": {
      const max = field.kind === "id" ? GRAPHQL_INT_MAX : SAFE_INT_MAX;
      const min = field.kind === "id" ? 1 : -SAFE_INT_MAX;
      if (!Number.isSafeInteger(value) || (value as number) < min || (value as number) > max) {
        problem(problems, at, FieldErrorReason.OUT_OF_RANGE, `must be a whole number from ${min} to ${max}`);
        return undefined;
      }
      return value;
    }
    case "text": {
      if (typeof value !== "string") {
        problem(problems, at, FieldErrorReason.WRONG_TYPE, "must be a string");
        return undefined;
      }
      const found = textProblem(value.trim(), field.max ?? 256, "identifier");
      if (found) {
        problem(problems, at, found.reason, found.message);
        return undefined;
      }
      return value.trim();
    }
    case "name":
    case "email": {
      if (typeof value !== "string") {
        problem(problems, at, FieldErrorReason.WRONG_TYPE, "must be a string");
        return undefined;
      }
      const found = textProblem(value.trim(), 254, "line");
      if (found) {
        problem(problems, at, found.reason, found.message);
        return undefined;
      }
      return folded(field, value);
    }
    case "date":
      if (!isCalendarDate(value)) {
        problem(problems, at, FieldErrorReason.INVALID_DATE, "must be a real calendar date written YYYY-MM-DD");
        return undefined;
      }
      return value;
    case "instant": {
      const instant = value instanceof Date ? value : typeof value === "string" ? new Date(value) : undefined;
      if (!instant || Number.isNaN(instant.getTime())) {
        problem(problems, at, FieldErrorReason.INVALID_FORMAT, "must be an ISO 8601 date-time");
        return undefined;
      }
      return instant;
    }
  }
}

/** A name or address as the stored field holds it: folded names, lower-cased addresses. */
function folded(field: WhereField, value: string): string {
  return field.kind === "email" ? value.trim().toLowerCase() : foldedName(value);
}

function checkedPrefix(field: WhereField, value: unknown, at: string, problems: FieldError[]): string | undefined {
  if (typeof value !== "string") {
    problem(problems, at, FieldErrorReason.WRONG_TYPE, "must be a string");
    return undefined;
  }
  const prefix = folded(field, value);
  if (prefix.length === 0) {
    problem(problems, at, FieldErrorReason.BLANK, "must not be empty");
    return undefined;
  }
  if ([...prefix].length > WHERE_MAX_PREFIX) {
    problem(problems, at, FieldErrorReason.TOO_LONG, `must be at most ${WHERE_MAX_PREFIX} characters`);
    return undefined;
  }
  const found = textProblem(prefix, WHERE_MAX_PREFIX, "line");
  if (found) {
    problem(problems, at, found.reason, found.message);
    return undefined;
  }
  return prefix;
}

/**
 * The least text greater than every text that starts with `prefix`: its last code point raised by one (UTF-8, which
 * both databases compare by bytes, keeps code point order, so [prefix, successor) is exactly the texts it starts).
 */
export function successor(prefix: string): string {
  const points = [...prefix];
  for (let i = points.length - 1; i >= 0; i--) {
    let next = points[i].codePointAt(0)! + 1;
    if (next === 0xd800) next = 0xe000; // past the surrogates, which no valid text holds
    if (next <= 0x10ffff) return points.slice(0, i).join("") + String.fromCodePoint(next);
  }
  return prefix + "\u{10ffff}";
}

// ---- merging filters

const isOperators = (value: unknown): value is Record<string, unknown> =>
  isObject(value) && Object.keys(value).length > 0 && Object.keys(value).every((key) => key.startsWith("$"));

/** A field's condition as an operator object ({$eq: value} for a plain value). */
function operatorsOf(condition: unknown): Record<string, unknown> {
  return isOperators(condition) ? condition : { $eq: condition };
}

const comparable = (a: unknown, b: unknown) =>
  (typeof a === "number" && typeof b === "number") ||
  (typeof a === "string" && typeof b === "string") ||
  (a instanceof Date && b instanceof Date);
const valueKey = (v: unknown) => (v instanceof Date ? v.getTime() : v);
const sameValue = (a: unknown, b: unknown) => valueKey(a) === valueKey(b);

/**
 * One operator's two conditions merged into one (both must hold), or undefined when they cannot be (the second then
 * goes into an $and beside).
 */
function mergedOperator(operator: string, a: unknown, b: unknown): { value: unknown } | undefined {
  switch (operator) {
    case "$in":
      if (!Array.isArray(a) || !Array.isArray(b)) return undefined;
      return { value: a.filter((v) => b.some((w) => sameValue(v, w))) };
    case "$nin":
      if (!Array.isArray(a) || !Array.isArray(b)) return undefined;
      return { value: [...a, ...b.filter((w) => !a.some((v) => sameValue(v, w)))] };
    case "$eq":
      return sameValue(a, b) ? { value: a } : undefined;
    case "$gt":
    case "$gte":
      if (!comparable(a, b)) return undefined;
      return { value: (valueKey(a) as number) >= (valueKey(b) as number) ? a : b };
    case "$lt":
    case "$lte":
      if (!comparable(a, b)) return undefined;
      return { value: (valueKey(a) as number) <= (valueKey(b) as number) ? a : b };
    default:
      return undefined;
  }
}

/**
 * Filters that must all hold, as one filter: each field's conditions in one operator object where they fit (two `$in`
 * intersected, the tighter of two bounds), anything else in an `$and` beside. `a` itself when `b` is empty.
 */
export function allOf(a: StoredFilter, b: StoredFilter): StoredFilter {
  const keys = Object.keys(b);
  if (keys.length === 0) return a;
  if (Object.keys(a).length === 0) return b;
  const out: StoredFilter = { ...a };
  const apart: StoredFilter[] = [];
  for (const key of keys) {
    const theirs = b[key];
    if (!(key in out)) {
      out[key] = theirs;
      continue;
    }
    if (key === "$and") {
      out.$and = [...(out.$and as StoredFilter[]), ...(theirs as StoredFilter[])];
      continue;
    }
    if (key.startsWith("$")) {
      apart.push({ [key]: theirs });
      continue;
    }
    const mine = operatorsOf(out[key]);
    const merged: Record<string, unknown> = { ...mine };
    const left: Record<string, unknown> = {};
    for (const [operator, value] of Object.entries(operatorsOf(theirs))) {
      if (!(operator in merged)) {
        merged[operator] = value;
        continue;
      }
      const one = mergedOperator(operator, merged[operator], value);
      if (one) merged[operator] = one.value;
      else left[operator] = value;
    }
    out[key] = merged;
    if (Object.keys(left).length > 0) apart.push({ [key]: left });
  }
  if (apart.length > 0) out.$and = [...((out.$and as StoredFilter[] | undefined) ?? []), ...apart];
  return out;
}
