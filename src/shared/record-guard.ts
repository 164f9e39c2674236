// Reads never let one stored record break an answer. A record can break the contract's rules when it arrives by an
// import or a direct write (the service itself never stores one: every write is validated): GraphQL's Int cannot
// return 2^31, a non-null field cannot return null, and one such item would turn a whole page into an internal error
// for every caller. Each resource declares, per field of its record, what its output type needs (AnswerRules, typed
// so a new field cannot be forgotten); the services keep only records that meet it and report the others (collection,
// id, field) for the log. `npm run db:check` lists every such record, and the rest of the contract's rules, at once.
import { internalError } from "./errors";
import { isCalendarDate } from "./validation";
import { isoOfMillis } from "./iso-time";

export type AnswerRule = "int" | "int?" | "safeint" | "string" | "string?" | "date" | "timestamp";

/** One rule per field of the record R. */
export type AnswerRules<R> = { readonly [K in keyof R]-?: AnswerRule };

export interface UnanswerableRecord {
  collection: string;
  id: unknown;
  field: string;
  rule: AnswerRule;
  /** The stored value, shortened for the log. */
  value: string;
}

export type ReportUnanswerable = (problem: UnanswerableRecord) => void;

const INT_MIN = -2_147_483_648;
const INT_MAX = 2_147_483_647;
const TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,3})?Z$/;

const CHECKS: Record<AnswerRule, (value: unknown) => boolean> = {
  int: (v) => Number.isInteger(v) && (v as number) >= INT_MIN && (v as number) <= INT_MAX,
  "int?": (v) => v === null || CHECKS.int(v),
  safeint: (v) => Number.isSafeInteger(v),
  string: (v) => typeof v === "string",
  "string?": (v) => v === null || typeof v === "string",
  // A real calendar date: what LocalDate answers (it refuses 2025-02-30).
  date: (v) => isCalendarDate(v),
  timestamp: (v) => typeof v === "string" && TIMESTAMP.test(v),
};

/** A stored date as the API writes it (ISO 8601, UTC); an invalid one stays as it is, for the guard to report. */
export function isoTimestamp(value: unknown): string {
  const ms = (value instanceof Date ? value : new Date(value as string)).getTime();
  return Number.isNaN(ms) ? String(value) : isoOfMillis(ms);
}

/** Fields with their rule's check. */
type GuardChecks<R> = readonly (readonly [keyof R, (value: unknown) => boolean])[];

export class RecordGuard<R extends object> {
  /** Each field with its rule's check, worked out once: every record of every read is checked. */
  private readonly checks: GuardChecks<R>;

  constructor(
    private readonly collection: string,
    private readonly idField: keyof R,
    private readonly rules: AnswerRules<R>,
    private readonly report: ReportUnanswerable,
  ) {
    this.checks = (Object.keys(rules) as (keyof R)[]).map((field) => [field, CHECKS[rules[field]]] as const);
  }

  /**
   * The records the API can answer; each other one is reported and left out. With `fields` (records read with only
   * the fields a query asks for), only those are checked: a field nobody asked for cannot break the answer.
   */
  keep(records: R[], fields?: readonly (keyof R)[]): R[] {
    const checks = this.checksOf(fields);
    // The same array when all are answerable (the usual case): no copy of every page.
    for (let i = 0; i < records.length; i++) {
      if (!this.meets(records[i], checks)) {
        return [...records.slice(0, i), ...records.slice(i + 1).filter((record) => this.meets(record, checks))];
      }
    }
    return records;
  }

  /**
   * The record, if the API can answer it (the `fields` it was read with, when given); else it is reported and the
   * request fails as an internal error.
   */
  one(record: R, fields?: readonly (keyof R)[]): R {
    if (this.meets(record, this.checksOf(fields))) return record;
    throw internalError(
      new Error(`${this.collection} ${String(record[this.idField])} breaks the contract's rules (npm run db:check)`),
    );
  }

  oneOrNull(record: R | null, fields?: readonly (keyof R)[]): R | null {
    return record === null ? null : this.one(record, fields);
  }

  /** The checks of these fields (all when not given). */
  private checksOf(fields: readonly (keyof R)[] | undefined): GuardChecks<R> {
    return fields ? this.checks.filter(([field]) => fields.includes(field)) : this.checks;
  }

  /** Whether the record can be answered; reports it when not. */
  answerable(record: R): boolean {
    return this.meets(record, this.checks);
  }

  /**
   * answerable() for records read with only these `fields` (only those are checked; all when not given), its checks
   * worked out once: for a batch, or for records always read with the same fields.
   */
  answerableWith(fields?: readonly (keyof R)[]): (record: R) => boolean {
    const checks = this.checksOf(fields);
    return (record) => this.meets(record, checks);
  }

  /** Whether the record passes these checks; reports the first field that fails. */
  private meets(record: R, checks: GuardChecks<R>): boolean {
    let field: keyof R | null = null;
    for (const [name, check] of checks) {
      if (!check(record[name])) {
        field = name;
        break;
      }
    }
    if (field === null) return true;
    this.report({
      collection: this.collection,
      id: record[this.idField],
      field: String(field),
      rule: this.rules[field],
      value: JSON.stringify(record[field] ?? null).slice(0, 80),
    });
    return false;
  }
}
