// The role table of the contract: the one source of truth for who may run which operation, used by the GraphQL
// authChecker and by the REST routes alike.
import { DomainError, ErrorCode, unauthorized } from "../shared/errors";
import type { Caller } from "./caller";
import type { Role } from "./roles";

export interface AccessRule {
  /** Acting roles allowed; "any" means any authenticated caller. */
  roles: readonly Role[] | "any";
  /** The code for an authenticated caller acting in a role not listed. */
  wrongRole: ErrorCode.UNAUTHORIZED | ErrorCode.FORBIDDEN;
}

export const ACCESS_POLICY = {
  // The original interface lists no forbidden response for project creation, hence UNAUTHORIZED.
  createProject: { roles: ["student", "admin"], wrongRole: ErrorCode.UNAUTHORIZED },
  assignTeacher: { roles: ["teacher", "admin"], wrongRole: ErrorCode.FORBIDDEN },
  updateProjectStatus: { roles: "any", wrongRole: ErrorCode.FORBIDDEN },
  updateTeacher: { roles: ["teacher", "admin"], wrongRole: ErrorCode.FORBIDDEN },
  updateStudent: { roles: ["teacher", "admin"], wrongRole: ErrorCode.FORBIDDEN },
  createTeacher: { roles: ["admin"], wrongRole: ErrorCode.FORBIDDEN },
  createStudent: { roles: ["teacher", "admin"], wrongRole: ErrorCode.FORBIDDEN },
  /** Every query. */
  read: { roles: "any", wrongRole: ErrorCode.FORBIDDEN },
} as const satisfies Record<string, AccessRule>;

export type Operation = keyof typeof ACCESS_POLICY;

export function isOperation(name: string): name is Operation {
  return Object.prototype.hasOwnProperty.call(ACCESS_POLICY, name);
}

/** The roles to declare with @Authorized for an operation (empty: any authenticated caller). */
export function rolesFor(operation: Operation): Role[] {
  const { roles } = ACCESS_POLICY[operation];
  return roles === "any" ? [] : [...roles];
}

/** Throws UNAUTHORIZED or FORBIDDEN unless the caller may run the operation. */
export function authorize(caller: Caller, operation: Operation): void {
  if (!caller.authenticated) throw unauthorized(caller.reason);
  const rule: AccessRule = ACCESS_POLICY[operation];
  if (rule.roles === "any") return;
  if (!caller.role) {
    throw unauthorized(`${operation} needs an X-User-Role header of ${rule.roles.join(" or ")}`);
  }
  if (!rule.roles.includes(caller.role)) {
    throw new DomainError(
      rule.wrongRole,
      `${operation} is not allowed for role ${caller.role}; allowed roles: ${rule.roles.join(", ")}`,
    );
  }
}
