// The role table of the contract: the one source of truth for who may run which root field (every Query, Mutation
// and Subscription field), used by the GraphQL authChecker and by the REST routes alike. It fails closed: a root field
// the table does not name is refused to everyone, and a GraphQL schema with such a field refuses to start
// (graphql/auth-checker.ts checks the built schema against this table).
import { DomainError, ErrorCode, FieldErrorReason, forbidden, unauthorized } from "../shared/errors";
import type { Caller } from "./caller";
import type { Role } from "./roles";

export interface AccessRule {
  /** Acting roles allowed; "any" means any authenticated caller. */
  roles: readonly Role[] | "any";
  /** The code for an authenticated caller acting in a role not listed. */
  wrongRole: ErrorCode.UNAUTHORIZED | ErrorCode.FORBIDDEN;
}

const ANY_CALLER = { roles: "any", wrongRole: ErrorCode.FORBIDDEN } as const satisfies AccessRule;

/** Mutations: the operations of the original interface (REST routes name these too). */
const MUTATION_RULES = {
  // The original interface lists no forbidden response for project creation, hence UNAUTHORIZED.
  createProject: { roles: ["student", "admin"], wrongRole: ErrorCode.UNAUTHORIZED },
  assignTeacher: { roles: ["teacher", "admin"], wrongRole: ErrorCode.FORBIDDEN },
  updateProjectStatus: ANY_CALLER,
  updateTeacher: { roles: ["teacher", "admin"], wrongRole: ErrorCode.FORBIDDEN },
  updateStudent: { roles: ["teacher", "admin"], wrongRole: ErrorCode.FORBIDDEN },
  createTeacher: { roles: ["admin"], wrongRole: ErrorCode.FORBIDDEN },
  createStudent: { roles: ["teacher", "admin"], wrongRole: ErrorCode.FORBIDDEN },
  archiveProject: { roles: ["student", "teacher", "admin"], wrongRole: ErrorCode.FORBIDDEN },
  unarchiveProject: { roles: ["student", "teacher", "admin"], wrongRole: ErrorCode.FORBIDDEN },
  deleteProject: { roles: ["admin"], wrongRole: ErrorCode.FORBIDDEN },
  deleteTeacher: { roles: ["admin"], wrongRole: ErrorCode.FORBIDDEN },
  deleteStudent: { roles: ["admin"], wrongRole: ErrorCode.FORBIDDEN },
  // Webhooks (WEBHOOKS): sending a delivery again.
  redeliverWebhook: { roles: ["admin"], wrongRole: ErrorCode.FORBIDDEN },
} as const satisfies Record<string, AccessRule>;

/** Queries: students' personal data (names, emails) is for teachers and admins; the rest for any caller. */
const QUERY_RULES = {
  project: ANY_CALLER,
  projects: ANY_CALLER,
  projectStatuses: ANY_CALLER,
  projectCounts: ANY_CALLER,
  teacher: ANY_CALLER,
  teachers: ANY_CALLER,
  student: { roles: ["teacher", "admin"], wrongRole: ErrorCode.FORBIDDEN },
  students: { roles: ["teacher", "admin"], wrongRole: ErrorCode.FORBIDDEN },
  projectsConnection: ANY_CALLER,
  teachersConnection: ANY_CALLER,
  studentsConnection: { roles: ["teacher", "admin"], wrongRole: ErrorCode.FORBIDDEN },
  // Any caller; each node is answered only to callers who may read its type (readable(), graphql/node.ts): a
  // Student node is null for a student.
  node: ANY_CALLER,
  nodes: ANY_CALLER,
  // Webhook deliveries: which systems got which changes, for admins.
  webhookDeliveries: { roles: ["admin"], wrongRole: ErrorCode.FORBIDDEN },
} as const satisfies Record<string, AccessRule>;

/** Subscriptions (live updates of projects): any caller who may read projects. */
const SUBSCRIPTION_RULES = {
  projectChanged: ANY_CALLER,
  projectChanges: ANY_CALLER,
} as const satisfies Record<string, AccessRule>;

/** Every root field by name (Query, Mutation and Subscription names are distinct). */
export const ACCESS_POLICY = { ...MUTATION_RULES, ...QUERY_RULES, ...SUBSCRIPTION_RULES } as const satisfies Record<
  string,
  AccessRule
>;

/** The table per root type, so a Query can never borrow a Mutation's rule of the same name, or the reverse. */
const RULES_BY_ROOT_TYPE: Readonly<Record<string, Readonly<Record<string, AccessRule>>>> = {
  Query: QUERY_RULES,
  Mutation: MUTATION_RULES,
  Subscription: SUBSCRIPTION_RULES,
};

/** A mutation of the original interface: what REST routes and success messages are keyed by. */
export type Operation = keyof typeof MUTATION_RULES;
/** Any root field the table names. */
export type RootField = keyof typeof ACCESS_POLICY;

export function isOperation(name: string): name is Operation {
  return Object.prototype.hasOwnProperty.call(MUTATION_RULES, name);
}

/** The rule of a root field (`Query`/`Mutation` and the field's name); undefined when the table does not name it. */
export function ruleFor(rootType: string, fieldName: string): AccessRule | undefined {
  const rules = RULES_BY_ROOT_TYPE[rootType];
  return rules && Object.prototype.hasOwnProperty.call(rules, fieldName) ? rules[fieldName] : undefined;
}

/** The roles to declare with @Authorized for a root field (empty: any authenticated caller). */
export function rolesFor(field: RootField): Role[] {
  const { roles } = ACCESS_POLICY[field] as AccessRule;
  return roles === "any" ? [] : [...roles];
}

/** Throws UNAUTHORIZED or FORBIDDEN unless the caller may run the root field, by the table. */
export function authorize(caller: Caller, field: RootField): void {
  authorizeBy(ACCESS_POLICY[field], caller, field);
}

/** Whether the caller may run the root field, by the table (authorize() without the error). */
export function allows(caller: Caller, field: RootField): boolean {
  try {
    authorize(caller, field);
    return true;
  } catch (err) {
    if (err instanceof DomainError) return false;
    throw err;
  }
}

/**
 * Throws UNAUTHORIZED or FORBIDDEN unless the caller may run `name` under `rule`; with no rule (a field the table
 * does not name) it refuses every caller.
 */
export function authorizeBy(rule: AccessRule | undefined, caller: Caller, name: string): void {
  if (!caller.authenticated) throw unauthorized(caller.reason);
  if (!rule) throw forbidden(`${name} is not in the role table, so it is refused to everyone`);
  if (rule.roles === "any") return;
  if (!caller.role) {
    throw unauthorized(`${name} needs an X-User-Role header of ${rule.roles.join(" or ")}`);
  }
  if (!rule.roles.includes(caller.role)) {
    throw new DomainError(
      rule.wrongRole,
      `${name} is not allowed for role ${caller.role}; allowed roles: ${rule.roles.join(", ")}`,
      { reason: FieldErrorReason.NOT_ALLOWED },
    );
  }
}
