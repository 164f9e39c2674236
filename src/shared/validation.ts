// Value validation shared by every transport. Each field rule below is a zod schema; each resource's input shapes
// (components/*/*.schemas.ts) are zod objects built from them, so one definition gives the TypeScript types, the
// REST JSON schemas (rest/schemas.ts) and the checks. validate() runs a shape and reports EVERY invalid field at
// once as a BAD_REQUEST DomainError whose message and code are the first problem's.
//
// Messages: a rule's message is written without its field ("must not be empty"); validate() prefixes the field as
// the interface names it ("project_name must not be empty"), so GraphQL and REST say exactly the same thing.
//
// Reasons: each rule that finds a problem names its FieldErrorReason where it finds it (a custom check's issue carries
// it in params.reason); zod's own issues get theirs from their issue code (see reasonOf).
import { z } from "zod";
import { DomainError, ErrorCode, FieldErrorReason, type FieldError } from "./errors";

export const LIMITS = {
  name: 200,
  project_desc: 5000,
  class_code: 32,
  project_status: 64,
  email: 254,
  project_url: 2048,
} as const;

// ---- text rules

/**
 * Control characters: C0 (NUL, ESC of ANSI sequences, ...), DEL and C1, plus the Unicode line and paragraph
 * separators (they break lines in logs and terminals like a newline does).
 */
const CONTROL = /[\p{Cc}\u2028\u2029]/u;
/** The same, except newline and tab: allowed in multi-line text (project_desc). */
const CONTROL_MULTILINE = /(?![\n\t])[\p{Cc}\u2028\u2029]/u;
/** A surrogate not paired with its partner (with the u flag a pair is one code point and does not match). */
const LONE_SURROGATE = /\p{Cs}/u;
/**
 * Bidirectional embeddings, overrides and isolates (U+202A–202E, U+2066–2069): they reorder the text around them
 * ("Trojan Source"), so a stored value could display differently from what it is. The marks U+200E/U+200F (and
 * U+061C) are allowed: they only set the direction of neutral characters next to them, reorder nothing beyond
 * that, and right-to-left names legitimately need them. A value of nothing but marks is still refused as empty.
 */
const BIDI_CONTROL = /[\u202A-\u202E\u2066-\u2069]/u;
/**
 * Characters that show nothing besides white space: format characters (zero-width space/joiners, U+FEFF, marks,
 * soft hyphen, word joiner, ...) and the blank fillers some scripts have. A text made only of these and white space
 * is empty.
 */
const HIDDEN = "\\p{Cf}\\u034F\\u115F\\u1160\\u17B4\\u17B5\\u180B-\\u180F\\u3164\\uFFA0";
// The class lists single code points that combine with nothing here (variation selectors, the grapheme joiner):
// each is matched on its own on purpose.
// eslint-disable-next-line no-misleading-character-class
const HIDDEN_CHAR = new RegExp(`[${HIDDEN}]`, "u");
// eslint-disable-next-line no-misleading-character-class
const INVISIBLE = new RegExp(`[\\s${HIDDEN}]`, "gu");

const codePoint = (char: string) => `U+${char.codePointAt(0)!.toString(16).toUpperCase().padStart(4, "0")}`;

/**
 * How a text field may look: a `line` (names, statuses, codes: one line), `multiline` (project_desc: newlines and
 * tabs allowed) or an `identifier` (class_code, project_status, email, project_url: matched exactly, so no
 * invisible characters at all — they would only make look-alike values that filters and uniqueness tell apart).
 */
export type TextKind = "line" | "multiline" | "identifier";

/** A problem a rule found in a value: what to tell a person (without the field's name) and why, for code. */
export interface ValueProblem {
  message: string;
  reason: FieldErrorReason;
}

const problem = (reason: FieldErrorReason, message: string): ValueProblem => ({ message, reason });

/** The first problem of a (trimmed) text value, or null; counts characters (code points), not UTF-16 units. */
export function textProblem(value: string, max: number, kind: TextKind = "line"): ValueProblem | null {
  const { FORBIDDEN_CHARACTERS, BLANK, TOO_LONG } = FieldErrorReason;
  const control = (kind === "multiline" ? CONTROL_MULTILINE : CONTROL).exec(value);
  if (control) {
    return problem(
      FORBIDDEN_CHARACTERS,
      `must not contain control characters${kind === "multiline" ? " other than newline and tab" : ""} (found ${codePoint(control[0])})`,
    );
  }
  const surrogate = LONE_SURROGATE.exec(value);
  if (surrogate) {
    return problem(
      FORBIDDEN_CHARACTERS,
      `must not contain an unpaired UTF-16 surrogate (found ${codePoint(surrogate[0])})`,
    );
  }
  const bidi = BIDI_CONTROL.exec(value);
  if (bidi) {
    return problem(
      FORBIDDEN_CHARACTERS,
      `must not contain bidirectional override, embedding or isolate characters (found ${codePoint(bidi[0])})`,
    );
  }
  if (value.length === 0) return problem(BLANK, "must not be empty");
  if (value.replace(INVISIBLE, "").length === 0)
    return problem(BLANK, "must not be empty: it contains only invisible characters");
  if (kind === "identifier") {
    const invisible = HIDDEN_CHAR.exec(value);
    if (invisible)
      return problem(FORBIDDEN_CHARACTERS, `must not contain invisible characters (found ${codePoint(invisible[0])})`);
  }
  // UTF-16 units are never fewer than characters: count characters only when the units exceed the limit.
  if (value.length > max) {
    let length = 0;
    for (const _char of value) length++;
    if (length > max) return problem(TOO_LONG, `must be at most ${max} characters (got ${length})`);
  }
  return null;
}

/** Reports a rule's problem as a zod issue; its reason rides in params, where toFieldErrors reads it. */
function report(ctx: z.core.ParsePayload<string>, found: ValueProblem | null): void {
  if (found)
    ctx.issues.push({ code: "custom", message: found.message, input: ctx.value, params: { reason: found.reason } });
}

/** The JSON type of a value, as the messages name it ("got array"). */
export function jsonType(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "array";
  if (typeof value === "number") return Number.isInteger(value) ? "integer" : "number";
  return typeof value;
}

const notAString = { error: (issue: { input?: unknown }) => `must be a string (got ${jsonType(issue.input)})` };

/** A trimmed text of 1–max characters that passes the text rules (see textProblem). */
export function textField(max: number, kind: TextKind = "line") {
  return z
    .string(notAString)
    .trim()
    .check((ctx) => report(ctx, textProblem(ctx.value, max, kind)));
}

export const nameField = () => textField(LIMITS.name).meta({ description: `trimmed, 1–${LIMITS.name} characters` });

// ---- numbers, dates, addresses

/** The largest whole number GraphQL's `Int` can return (32-bit signed): the bound of every id but students'. */
export const GRAPHQL_INT_MAX = 2_147_483_647;
/** The largest whole number graphql-scalars' `SafeInt` (and a JavaScript number) holds exactly: students' ids. */
export const SAFE_INT_MAX = Number.MAX_SAFE_INTEGER;

/**
 * A whole number from 1 to `max` (ids, company_id, expected_revision): one message for every way of missing it.
 * The bound is what the GraphQL output type answering the value can return (contract, third revision: "Ranges
 * both transports can answer"), so nothing one transport accepts breaks a read on the other.
 */
export const positiveIdField = (max: number = GRAPHQL_INT_MAX) => {
  const error = `must be a whole number from 1 to ${max}`;
  return z
    .int({ error })
    .min(1, { error })
    .max(max, { error })
    .meta({ description: `a whole number from 1 to ${max}` });
};

/** The ASCII digits of value from `at`, `count` of them, as a number; -1 if one is not a digit. */
function digitsAt(value: string, at: number, count: number): number {
  let n = 0;
  for (let i = at; i < at + count; i++) {
    const c = value.charCodeAt(i) - 48;
    if (c < 0 || c > 9) return -1;
    n = n * 10 + c;
  }
  return n;
}

const DAYS_IN_MONTH = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

/**
 * True for a real calendar date written YYYY-MM-DD. Every date a read answers is checked (LocalDate refuses
 * 2025-02-30), so this reads the characters once instead of a regular expression and a Date. As the Date-based check
 * it replaces did (Date.UTC reads years 0-99 as 1900-1999), it refuses years 0000-0099; the test
 * tests/foundation/calendar-date.test.ts compares both on every day of sample years and on malformed strings.
 */
export function isCalendarDate(value: unknown): value is string {
  if (typeof value !== "string" || value.length !== 10 || value[4] !== "-" || value[7] !== "-") return false;
  const y = digitsAt(value, 0, 4);
  const m = digitsAt(value, 5, 2);
  const d = digitsAt(value, 8, 2);
  if (y < 100 || m < 1 || m > 12 || d < 1) return false;
  const leap = y % 4 === 0 && (y % 100 !== 0 || y % 400 === 0);
  return d <= (m === 2 && leap ? 29 : DAYS_IN_MONTH[m - 1]);
}

export const calendarDateField = () =>
  z
    .string(notAString)
    .check((ctx) =>
      report(
        ctx,
        isCalendarDate(ctx.value)
          ? null
          : problem(FieldErrorReason.INVALID_DATE, "must be a real calendar date written YYYY-MM-DD"),
      ),
    )
    .meta({ description: "a real calendar date written YYYY-MM-DD" });

/** The one URL rule: an absolute http(s) URL ("scheme://host...", parsed by WHATWG URL) of at most 2048 characters. */
const httpUrl = z.url({ protocol: /^https?$/ });
const HAS_AUTHORITY = /^https?:\/\//i;

/** An absolute http(s) URL, trimmed; null when absent (left out or null). */
export const optionalHttpUrlField = () =>
  z
    .string({ error: (issue) => `must be a string or null (got ${jsonType(issue.input)})` })
    .trim()
    .check((ctx) =>
      report(
        ctx,
        textProblem(ctx.value, LIMITS.project_url, "identifier") ??
          (HAS_AUTHORITY.test(ctx.value) && httpUrl.safeParse(ctx.value).success
            ? null
            : problem(FieldErrorReason.INVALID_FORMAT, "must be an absolute http or https URL")),
      ),
    )
    .nullish()
    .transform((url) => url ?? null)
    .meta({ description: `an absolute http or https URL of at most ${LIMITS.project_url} characters` });

/** A valid e-mail address (zod's address rule), trimmed and lower-cased. */
export const emailField = () =>
  z
    .string(notAString)
    .trim()
    .toLowerCase()
    .check((ctx) =>
      report(
        ctx,
        textProblem(ctx.value, LIMITS.email, "identifier") ??
          (z.regexes.email.test(ctx.value)
            ? null
            : problem(FieldErrorReason.INVALID_FORMAT, "must be a valid e-mail address")),
      ),
    )
    .meta({ description: "a valid e-mail address; stored lower-cased" });

// ---- running a shape

/** Problems found outside a zod shape (e.g. a configured workflow), added to the shape's own. */
export type ExtraRule<Input> = (input: Partial<Record<keyof Input, unknown>>) => FieldError | null;

/**
 * The reason of a zod issue: a custom check names its own (params.reason); zod's own issues by their code — a value
 * that is absent is REQUIRED, one of another type WRONG_TYPE, a number beyond its bounds OUT_OF_RANGE.
 */
function reasonOf(issue: z.core.$ZodIssue): FieldErrorReason {
  switch (issue.code) {
    case "custom": {
      // Every custom rule names its reason (the refusal tests walk them); INVALID_FORMAT is only a safe default.
      return (issue.params as { reason?: FieldErrorReason } | undefined)?.reason ?? FieldErrorReason.INVALID_FORMAT;
    }
    case "invalid_type":
      return issue.input === undefined || issue.input === null
        ? FieldErrorReason.REQUIRED
        : FieldErrorReason.WRONG_TYPE;
    case "too_small":
    case "too_big":
      return FieldErrorReason.OUT_OF_RANGE;
    case "unrecognized_keys":
      return FieldErrorReason.UNKNOWN_FIELD;
    default:
      return FieldErrorReason.INVALID_FORMAT;
  }
}

function toFieldErrors(issue: z.core.$ZodIssue): FieldError[] {
  if (issue.code === "unrecognized_keys") {
    return issue.keys.map((key) => ({
      field: key,
      message: `${key} is not an accepted field`,
      code: ErrorCode.BAD_REQUEST,
      reason: FieldErrorReason.UNKNOWN_FIELD,
    }));
  }
  const field = issue.path.length > 0 ? issue.path.map(String).join(".") : null;
  const message = field ? `${field} ${issue.message}` : issue.message;
  return [{ field, message, code: ErrorCode.BAD_REQUEST, reason: reasonOf(issue) }];
}

/** A BAD_REQUEST carrying every problem; its message is the first one's. */
export function invalid(errors: [FieldError, ...FieldError[]]): DomainError {
  return new DomainError(ErrorCode.BAD_REQUEST, errors[0].message, { errors });
}

/**
 * Checks `input` against `schema` and returns the clean values (trimmed, lower-cased where the rule says), or throws
 * one BAD_REQUEST listing every invalid field (the first problem of each field, in the shape's field order).
 */
export function validate<S extends z.ZodType>(
  schema: S,
  input: unknown,
  ...extra: ExtraRule<z.input<S>>[]
): z.output<S> {
  const result = schema.safeParse(input);
  const errors: FieldError[] = result.success ? [] : result.error.issues.flatMap(toFieldErrors);
  if (extra.length > 0 && typeof input === "object" && input !== null) {
    for (const rule of extra) {
      const problem = rule(input as Partial<Record<keyof z.input<S>, unknown>>);
      if (problem) errors.push(problem);
    }
  }
  if (errors.length === 0) return (result as { data: z.output<S> }).data;
  // One entry per field (its first problem): a form shows one message next to each field.
  const seen = new Set<string>();
  const perField = errors.filter((error) => {
    if (error.field === null) return true;
    if (seen.has(error.field)) return false;
    seen.add(error.field);
    return true;
  });
  throw invalid(perField as [FieldError, ...FieldError[]]);
}

/** The key that makes two names equal when they differ only in case or surrounding spaces. */
export function nameKey(name: string): string {
  return name.trim().normalize("NFC").toLowerCase();
}

/** Combining marks (accents) once a text is decomposed. */
const COMBINING_MARKS = /\p{M}/gu;

/**
 * A name as lists compare it (contract, sixth revision, "Names"): Unicode NFKD with combining marks removed, lower
 * case, surrounding spaces trimmed ("  Énergie " folds to "energie"). Stored beside each name (name_folded), so an
 * equality or a prefix of it is an index range. Lower-casing may decompose into marks again (U+0130), so the text is
 * decomposed once more before the marks go.
 */
export function foldedName(name: string): string {
  return name.normalize("NFKD").toLowerCase().normalize("NFKD").replace(COMBINING_MARKS, "").trim();
}
