// A ProjectWhere (the contract's "Lists a board can ask for") written as JSON in a configuration file, and its match
// against a project held in memory (a change log entry's `project`). Used by webhooks (an endpoint's `where`); the
// lists translate the GraphQL input into a database filter elsewhere. Isolated here, with one interface
// (parseProjectWhereJson, matchesProjectWhere, foldName), so both can later share one definition.
//
// Meaning, as the contract fixes it: the fields of one where and of one comparison all hold; `and` / `or` hold for
// all / any of their entries, `not` when its entry does not; `{}` matches every project. `ne`, `notIn` and `not`
// match a null field too; `isNull: true` matches a null field, `false` a set one. Names compare folded (NFKD,
// combining marks removed, lower case, trimmed); dates compare as calendar dates, times as instants. `archived`
// matches on archived_at when given (absent: archived or not, since a change log entry of an archived project is
// one of its own events). Bounds: `in` / `notIn` 1–100 values, `and` / `or` 1–10 entries, nesting at most 4 deep,
// values within the ranges the fields accept. A bad where throws an Error naming its place
// (`endpoints[0].where.or[2].end_date.gte`).
import { isCalendarDate } from "../../shared/validation";

/** A comparison of a whole-number field. */
export interface IntComparison {
  eq?: number;
  ne?: number;
  in?: number[];
  notIn?: number[];
  gt?: number;
  gte?: number;
  lt?: number;
  lte?: number;
  isNull?: boolean;
}

export interface StringComparison {
  eq?: string;
  ne?: string;
  in?: string[];
  notIn?: string[];
  isNull?: boolean;
}

/** A name, folded (the values given are stored folded). */
export interface NameComparison {
  eq?: string;
  startsWith?: string;
}

export interface DateComparison {
  eq?: string;
  gt?: string;
  gte?: string;
  lt?: string;
  lte?: string;
}

/** Instants as milliseconds since the epoch. */
export interface DateTimeComparison {
  gt?: number;
  gte?: number;
  lt?: number;
  lte?: number;
}

export interface ProjectWhere {
  project_id?: IntComparison;
  company_id?: IntComparison;
  teacher_id?: IntComparison;
  project_status?: StringComparison;
  created_by?: StringComparison;
  project_name?: NameComparison;
  start_date?: DateComparison;
  end_date?: DateComparison;
  created_at?: DateTimeComparison;
  updated_at?: DateTimeComparison;
  archived?: boolean;
  and?: ProjectWhere[];
  or?: ProjectWhere[];
  not?: ProjectWhere;
}

/** The fields of a project a where reads (a ProjectRecord, or a change log entry's project state). */
export interface WhereSubject {
  project_id: number;
  company_id: number;
  teacher_id: number | null;
  project_status: string;
  created_by: string | null;
  project_name: string;
  start_date: string;
  end_date: string;
  created_at: string | Date;
  updated_at: string | Date;
  archived_at?: string | Date | null;
}

const MAX_LIST = 100;
const MAX_ENTRIES = 10;
const MAX_DEPTH = 4;
const MAX_ID = 2_147_483_647;

/** A name as names compare: Unicode NFKD, combining marks removed, lower case, surrounding spaces trimmed. */
export function foldName(name: string): string {
  return name.normalize("NFKD").replace(/\p{M}/gu, "").toLowerCase().trim();
}

type Json = unknown;

const isObject = (value: Json): value is Record<string, Json> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

const shown = (value: Json): string => {
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 60 ? `${text.slice(0, 57)}...` : text;
};

function fail(place: string, message: string): never {
  throw new Error(`${place}: ${message}`);
}

/** The keys of `value`, each one of `allowed`; null values count as absent (as GraphQL reads an input). */
function entries(value: Json, allowed: readonly string[], place: string, what: string): [string, Json][] {
  if (!isObject(value)) fail(place, `expected ${what} (an object), got ${shown(value)}`);
  const out: [string, Json][] = [];
  for (const [key, v] of Object.entries(value)) {
    if (!allowed.includes(key)) fail(`${place}.${key}`, `unknown field; ${what} takes ${allowed.join(", ")}`);
    if (v !== null) out.push([key, v]);
  }
  return out;
}

function list<T>(value: Json, place: string, each: (v: Json, place: string) => T): T[] {
  if (!Array.isArray(value) || value.length < 1 || value.length > MAX_LIST) {
    fail(place, `expected a list of 1 to ${MAX_LIST} values, got ${shown(value)}`);
  }
  return value.map((v, i) => each(v, `${place}[${i}]`));
}

function wholeNumber(value: Json, place: string, min: number): number {
  if (typeof value !== "number" || !Number.isInteger(value) || value < min || value > MAX_ID) {
    fail(place, `expected a whole number from ${min} to ${MAX_ID}, got ${shown(value)}`);
  }
  return value;
}

function text(value: Json, place: string, max: number): string {
  if (typeof value !== "string" || value.trim().length < 1 || value.length > max) {
    fail(place, `expected a text of 1 to ${max} characters, got ${shown(value)}`);
  }
  return value;
}

function bool(value: Json, place: string): boolean {
  if (typeof value !== "boolean") fail(place, `expected true or false, got ${shown(value)}`);
  return value;
}

function localDate(value: Json, place: string): string {
  if (!isCalendarDate(value)) {
    fail(place, `expected a calendar date written YYYY-MM-DD, got ${shown(value)}`);
  }
  return value;
}

const ISO_INSTANT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2})$/;

function instant(value: Json, place: string): number {
  const ms = typeof value === "string" && ISO_INSTANT.test(value) ? Date.parse(value) : NaN;
  if (Number.isNaN(ms)) fail(place, `expected an ISO 8601 date and time with its offset, got ${shown(value)}`);
  return ms;
}

function intComparison(value: Json, place: string, min: number): IntComparison {
  const out: IntComparison = {};
  for (const [key, v] of entries(
    value,
    ["eq", "ne", "in", "notIn", "gt", "gte", "lt", "lte", "isNull"],
    place,
    "an IntComparison",
  )) {
    const at = `${place}.${key}`;
    if (key === "isNull") out.isNull = bool(v, at);
    else if (key === "in" || key === "notIn") out[key] = list(v, at, (n, p) => wholeNumber(n, p, min));
    else out[key as "eq"] = wholeNumber(v, at, min);
  }
  return out;
}

function stringComparison(value: Json, place: string, max: number): StringComparison {
  const out: StringComparison = {};
  for (const [key, v] of entries(value, ["eq", "ne", "in", "notIn", "isNull"], place, "a StringComparison")) {
    const at = `${place}.${key}`;
    if (key === "isNull") out.isNull = bool(v, at);
    else if (key === "in" || key === "notIn") out[key] = list(v, at, (s, p) => text(s, p, max));
    else out[key as "eq"] = text(v, at, max);
  }
  return out;
}

function nameComparison(value: Json, place: string): NameComparison {
  const out: NameComparison = {};
  for (const [key, v] of entries(value, ["eq", "startsWith"], place, "a NameComparison")) {
    out[key as "eq"] = foldName(text(v, `${place}.${key}`, key === "eq" ? 200 : 64));
  }
  return out;
}

function dateComparison(value: Json, place: string): DateComparison {
  const out: DateComparison = {};
  for (const [key, v] of entries(value, ["eq", "gt", "gte", "lt", "lte"], place, "a DateComparison")) {
    out[key as "eq"] = localDate(v, `${place}.${key}`);
  }
  return out;
}

function dateTimeComparison(value: Json, place: string): DateTimeComparison {
  const out: DateTimeComparison = {};
  for (const [key, v] of entries(value, ["gt", "gte", "lt", "lte"], place, "a DateTimeComparison")) {
    out[key as "gt"] = instant(v, `${place}.${key}`);
  }
  return out;
}

const WHERE_FIELDS = [
  "project_id",
  "company_id",
  "teacher_id",
  "project_status",
  "created_by",
  "project_name",
  "start_date",
  "end_date",
  "created_at",
  "updated_at",
  "archived",
  "and",
  "or",
  "not",
] as const;

function where(value: Json, place: string, depth: number): ProjectWhere {
  if (depth > MAX_DEPTH) fail(place, `nested more than ${MAX_DEPTH} deep (and, or, not)`);
  const out: ProjectWhere = {};
  for (const [key, v] of entries(value, WHERE_FIELDS, place, "a ProjectWhere")) {
    const at = `${place}.${key}`;
    switch (key as (typeof WHERE_FIELDS)[number]) {
      case "project_id":
      case "company_id":
      case "teacher_id":
        out[key as "project_id"] = intComparison(v, at, 1);
        break;
      case "project_status":
        out.project_status = stringComparison(v, at, 64);
        break;
      case "created_by":
        out.created_by = stringComparison(v, at, 256);
        break;
      case "project_name":
        out.project_name = nameComparison(v, at);
        break;
      case "start_date":
      case "end_date":
        out[key as "start_date"] = dateComparison(v, at);
        break;
      case "created_at":
      case "updated_at":
        out[key as "created_at"] = dateTimeComparison(v, at);
        break;
      case "archived":
        out.archived = bool(v, at);
        break;
      case "and":
      case "or":
        if (!Array.isArray(v) || v.length < 1 || v.length > MAX_ENTRIES) {
          fail(at, `expected a list of 1 to ${MAX_ENTRIES} ProjectWhere, got ${shown(v)}`);
        }
        out[key as "and"] = v.map((w, i) => where(w, `${at}[${i}]`, depth + 1));
        break;
      case "not":
        out.not = where(v, at, depth + 1);
        break;
    }
  }
  return out;
}

/** The where a JSON value writes; throws an Error whose message starts with the offending place (`place` first). */
export function parseProjectWhereJson(value: unknown, place: string): ProjectWhere {
  return where(value, place, 1);
}

function matchInt(c: IntComparison, value: number | null): boolean {
  if (c.isNull !== undefined && c.isNull !== (value === null)) return false;
  if (c.ne !== undefined && value === c.ne) return false;
  if (c.notIn && value !== null && c.notIn.includes(value)) return false;
  const bounded = c.eq ?? c.in ?? c.gt ?? c.gte ?? c.lt ?? c.lte;
  if (bounded === undefined) return true;
  if (value === null) return false;
  return (
    (c.eq === undefined || value === c.eq) &&
    (c.in === undefined || c.in.includes(value)) &&
    (c.gt === undefined || value > c.gt) &&
    (c.gte === undefined || value >= c.gte) &&
    (c.lt === undefined || value < c.lt) &&
    (c.lte === undefined || value <= c.lte)
  );
}

function matchString(c: StringComparison, value: string | null): boolean {
  if (c.isNull !== undefined && c.isNull !== (value === null)) return false;
  if (c.ne !== undefined && value === c.ne) return false;
  if (c.notIn && value !== null && c.notIn.includes(value)) return false;
  if (c.eq === undefined && c.in === undefined) return true;
  if (value === null) return false;
  return (c.eq === undefined || value === c.eq) && (c.in === undefined || c.in.includes(value));
}

function matchName(c: NameComparison, value: string): boolean {
  const folded = foldName(value);
  return (c.eq === undefined || folded === c.eq) && (c.startsWith === undefined || folded.startsWith(c.startsWith));
}

/** Calendar dates as YYYY-MM-DD compare as text. */
function matchDate(c: DateComparison, value: string): boolean {
  return (
    (c.eq === undefined || value === c.eq) &&
    (c.gt === undefined || value > c.gt) &&
    (c.gte === undefined || value >= c.gte) &&
    (c.lt === undefined || value < c.lt) &&
    (c.lte === undefined || value <= c.lte)
  );
}

function matchInstant(c: DateTimeComparison, value: string | Date): boolean {
  const ms = value instanceof Date ? value.getTime() : Date.parse(value);
  return (
    (c.gt === undefined || ms > c.gt) &&
    (c.gte === undefined || ms >= c.gte) &&
    (c.lt === undefined || ms < c.lt) &&
    (c.lte === undefined || ms <= c.lte)
  );
}

/** Whether `project` meets `w`. */
export function matchesProjectWhere(w: ProjectWhere, project: WhereSubject): boolean {
  if (w.project_id && !matchInt(w.project_id, project.project_id)) return false;
  if (w.company_id && !matchInt(w.company_id, project.company_id)) return false;
  if (w.teacher_id && !matchInt(w.teacher_id, project.teacher_id ?? null)) return false;
  if (w.project_status && !matchString(w.project_status, project.project_status)) return false;
  if (w.created_by && !matchString(w.created_by, project.created_by ?? null)) return false;
  if (w.project_name && !matchName(w.project_name, project.project_name)) return false;
  if (w.start_date && !matchDate(w.start_date, project.start_date)) return false;
  if (w.end_date && !matchDate(w.end_date, project.end_date)) return false;
  if (w.created_at && !matchInstant(w.created_at, project.created_at)) return false;
  if (w.updated_at && !matchInstant(w.updated_at, project.updated_at)) return false;
  if (w.archived !== undefined && w.archived !== (project.archived_at != null)) return false;
  if (w.and && !w.and.every((entry) => matchesProjectWhere(entry, project))) return false;
  if (w.or && !w.or.some((entry) => matchesProjectWhere(entry, project))) return false;
  if (w.not && matchesProjectWhere(w.not, project)) return false;
  return true;
}
