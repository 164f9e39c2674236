// Row-level access to projects (ACCESS_POLICY, contract fifth revision "Row-level access"): which projects a caller
// may read and which they may change, per role, from a JSON file of row rules:
//
//   { "projects": { "student": { "read": { "company_id": "$company_ids" }, "change": { "created_by": "$sub" } } } }
//
// A rule maps project fields to a literal, an array of literals ("any of these"), or "$<claim>", a claim of the
// caller's token (`$sub` is its subject, which created_by records); a claim holding an array means any of its values.
// `{}` matches every project. Fail closed: a claim the caller lacks (or whose value cannot be one of the field's),
// an acting role the file does not name, or an operation a role's entry leaves out, matches no project.
//
// Compiled once per request (ProjectAccess), the rules are plain conditions on stored fields (ProjectQuery): the
// service adds them to the database query itself (the repository's filters, the conditional update of a change, the
// change log's replay), so pages, totals and cursors count only what the caller may read. Each rule field leads an
// index whose next key is project_id (project.model.ts), so the pushdown serves the filter and the page's order.
import type { Caller } from "../../auth/caller";
import { ROLES, type Role } from "../../auth/roles";
import { parseJsonText } from "../../shared/json-text";

/** The project fields a rule may name: the keys of a project's ownership, each leading an index. */
export const RULE_FIELDS = ["company_id", "created_by", "project_id", "project_status", "teacher_id"] as const;
export type RuleField = (typeof RULE_FIELDS)[number];

/** A value a rule field holds: ids are numbers, project_status and created_by text; teacher_id and created_by may be null. */
export type RuleValue = number | string | null;
/** Equality with a value, or `$in` of values (any of them). */
export type Condition = RuleValue | { $in: RuleValue[] };
/** Conditions on a project's stored fields, all of which must hold (`{}`: every project). */
export type ProjectQuery = Partial<Record<RuleField, Condition>>;

/** The operations a rule is given for. */
export const RULE_OPERATIONS = ["read", "change"] as const;
export type RuleOperation = (typeof RULE_OPERATIONS)[number];

type FieldKind = { number: boolean; nullable: boolean };
const FIELD_KINDS: Record<RuleField, FieldKind> = {
  company_id: { number: true, nullable: false },
  created_by: { number: false, nullable: true },
  project_id: { number: true, nullable: false },
  project_status: { number: false, nullable: false },
  teacher_id: { number: true, nullable: true },
};

/** Ids are 1 … 2,147,483,647 (the contract's range of ids). */
const MAX_ID = 2_147_483_647;
/** Values one claim may give a field; a claim holding more matches no project (an `$in` that long is no rule). */
export const MAX_CLAIM_VALUES = 1000;

/** What a rule gives one field: values of the file, or the values of a claim of the caller's token. */
type RuleTerm = { values: RuleValue[] } | { claim: string };
type Rule = ReadonlyMap<RuleField, RuleTerm>;
type RoleRules = Partial<Record<RuleOperation, Rule>>;

/** The claims of the caller's token (in header mode, X-User-Claims with X-User-Id as `sub`). */
export type Claims = Readonly<Record<string, unknown>>;

/** One caller's compiled rules: conditions on stored fields; null matches no project, `{}` every project. */
export interface ProjectAccess {
  readonly read: ProjectQuery | null;
  /** What the caller may change, among the projects it may read (read and change together). */
  readonly change: ProjectQuery | null;
}

/** ACCESS_POLICY unset, and the service's own work (seed, maintenance): every project, as before row rules existed. */
export const UNRESTRICTED: ProjectAccess = Object.freeze({ read: Object.freeze({}), change: Object.freeze({}) });
/** No project at all: an unauthenticated caller, a role without an entry. */
export const NO_ACCESS: ProjectAccess = Object.freeze({ read: null, change: null });

/** The parsed ACCESS_POLICY file. */
export class ProjectAccessPolicy {
  constructor(private readonly roles: ReadonlyMap<Role, RoleRules>) {}

  /** The rules of a caller: its acting role's entry, with the claims of its token put in. */
  accessOf(caller: Caller): ProjectAccess {
    if (!caller.authenticated || !caller.role) return NO_ACCESS;
    const rules = this.roles.get(caller.role);
    if (!rules) return NO_ACCESS;
    const claims = caller.claims ?? {};
    const read = compile(rules.read, claims);
    return { read, change: read && both(read, compile(rules.change, claims)) };
  }
}

/** The rules of `caller` under `policy` (undefined: ACCESS_POLICY unset, every project). */
export function accessOf(policy: ProjectAccessPolicy | undefined, caller: Caller): ProjectAccess {
  return policy ? policy.accessOf(caller) : UNRESTRICTED;
}

function compile(rule: Rule | undefined, claims: Claims): ProjectQuery | null {
  if (!rule) return null;
  const query: ProjectQuery = {};
  for (const [field, term] of rule) {
    const values = "values" in term ? term.values : claimValues(claims[term.claim], FIELD_KINDS[field]);
    if (values.length === 0) return null;
    query[field] = conditionOf(values);
  }
  return query;
}

/** The values a claim gives a field: those of the field's type (ids: whole numbers in range); none for anything else. */
function claimValues(claim: unknown, kind: FieldKind): RuleValue[] {
  const all = Array.isArray(claim) ? (claim as unknown[]) : [claim];
  if (all.length > MAX_CLAIM_VALUES) return [];
  const fits = (v: unknown): v is number | string =>
    kind.number ? Number.isSafeInteger(v) && (v as number) >= 1 && (v as number) <= MAX_ID : typeof v === "string";
  return [...new Set(all.filter(fits))];
}

// ---- conditions

/** The values a condition accepts. */
export function valuesOf(condition: Condition): RuleValue[] {
  return condition !== null && typeof condition === "object" ? condition.$in : [condition];
}

/** Equality for one value, `$in` for several. */
export function conditionOf(values: readonly RuleValue[]): Condition {
  return values.length === 1 ? values[0] : { $in: [...values] };
}

/**
 * Both queries at once: per field, the values both accept; null when a field is left with none. `a` itself (the same
 * object) when `b` adds no condition, so an unrestricted caller's queries are sent exactly as before.
 */
export function both(a: ProjectQuery, b: ProjectQuery | null): ProjectQuery | null {
  if (b === null) return null;
  const fields = Object.keys(b) as RuleField[];
  if (fields.length === 0) return a;
  const out: ProjectQuery = { ...a };
  for (const field of fields) {
    const mine = a[field];
    if (mine === undefined) {
      out[field] = b[field];
      continue;
    }
    const theirs = valuesOf(b[field]!);
    const kept = valuesOf(mine).filter((v) => theirs.includes(v));
    if (kept.length === 0) return null;
    out[field] = conditionOf(kept);
  }
  return out;
}

/** Whether a project (a record, or a state of the change log) meets the query, as the database would decide. */
export function meets(project: Partial<Record<RuleField, unknown>>, query: ProjectQuery | null): boolean {
  if (query === null) return false;
  for (const [field, condition] of Object.entries(query) as [RuleField, Condition][]) {
    if (!valuesOf(condition).includes((project[field] ?? null) as RuleValue)) return false;
  }
  return true;
}

/** Whether the query restricts anything (`{}` does not). */
export function restricts(query: ProjectQuery | null): boolean {
  return query === null || Object.keys(query).length > 0;
}

// ---- the file

/** Parses and checks an ACCESS_POLICY file's text; throws Error with one line naming the place of the first problem. */
export function parseAccessPolicy(text: string): ProjectAccessPolicy {
  const raw = parseJsonText(text);
  if (!isObject(raw)) throw new Error(`expected an object with "projects" (row rules per role), got ${shown(raw)}`);
  for (const key of Object.keys(raw)) {
    // "$schema", "$comment" may annotate the file, as in PROJECT_STATUS_WORKFLOW.
    if (key !== "projects" && !key.startsWith("$")) {
      throw new Error(`unknown key "${key}" at the top: the file holds "projects" (row rules per role)`);
    }
  }
  const projects = raw.projects;
  if (projects === undefined) throw new Error('"projects" is missing: it maps roles to their row rules');
  if (!isObject(projects))
    throw new Error(`projects: expected an object mapping roles to rules, got ${shown(projects)}`);
  const roles = new Map<Role, RoleRules>();
  for (const [role, entry] of Object.entries(projects)) {
    if (!(ROLES as readonly string[]).includes(role)) {
      throw new Error(`projects.${role}: unknown role; roles are ${ROLES.join(", ")}`);
    }
    if (!isObject(entry)) {
      throw new Error(`projects.${role}: expected an object with "read" and "change" rules, got ${shown(entry)}`);
    }
    const rules: RoleRules = {};
    for (const [operation, rule] of Object.entries(entry)) {
      if (!(RULE_OPERATIONS as readonly string[]).includes(operation)) {
        throw new Error(
          `projects.${role}.${operation}: unknown operation; operations are ${RULE_OPERATIONS.join(", ")}`,
        );
      }
      rules[operation as RuleOperation] = parseRule(rule, `projects.${role}.${operation}`);
    }
    roles.set(role as Role, rules);
  }
  return new ProjectAccessPolicy(roles);
}

function parseRule(rule: unknown, place: string): Rule {
  if (!isObject(rule)) {
    throw new Error(
      `${place}: expected an object mapping project fields to values ({} for every project), got ${shown(rule)}`,
    );
  }
  const terms = new Map<RuleField, RuleTerm>();
  for (const [field, value] of Object.entries(rule)) {
    if (!(RULE_FIELDS as readonly string[]).includes(field)) {
      throw new Error(`${place}.${field}: unknown field; a rule may name ${RULE_FIELDS.join(", ")}`);
    }
    terms.set(field as RuleField, parseTerm(value, FIELD_KINDS[field as RuleField], `${place}.${field}`));
  }
  return terms;
}

function parseTerm(value: unknown, kind: FieldKind, place: string): RuleTerm {
  const expected = `expected ${kind.number ? "a whole number from 1 to 2147483647" : "a string"}${kind.nullable ? " or null" : ""}, an array of them, or "$<claim>"`;
  if (typeof value === "string" && value.startsWith("$")) {
    const claim = value.slice(1);
    if (claim === "") throw new Error(`${place}: "$" names no claim; write "$<claim>", e.g. "$sub"`);
    if (claim === "sub" && kind.number) {
      throw new Error(`${place}: "$sub" is the caller's id, a string, and this field holds numbers`);
    }
    return { claim };
  }
  const literal = (v: unknown): v is RuleValue =>
    (v === null && kind.nullable) ||
    (kind.number
      ? Number.isSafeInteger(v) && (v as number) >= 1 && (v as number) <= MAX_ID
      : typeof v === "string" && !v.startsWith("$"));
  const values = Array.isArray(value) ? (value as unknown[]) : [value];
  const wrong = values.find((v) => !literal(v));
  if (wrong !== undefined || (Array.isArray(value) && values.length === 0)) {
    throw new Error(`${place}: ${expected}; got ${shown(value)}`);
  }
  return { values: [...new Set(values as RuleValue[])] };
}

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}

/** A value as an error line shows it: JSON, at most 60 characters. */
function shown(value: unknown): string {
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 60 ? `${text.slice(0, 57)}...` : text;
}
