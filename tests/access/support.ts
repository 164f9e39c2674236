// What the row-level access tests share: the contract's example policy, callers of every kind (in jwt mode a token
// with claims; in header mode X-User-Role, X-User-Id and X-User-Claims), projects of three companies, and the
// expected answers worked out here from the contract's rules (not from the service's own code).
import { parseAccessPolicy, type ProjectAccessPolicy } from "../../src/components/projects";
import type { Headers } from "../helpers/app";
import { token } from "../helpers/tokens";
import type { ProjectSpec } from "../lists/support";

export { insertProjects, insertTeachers, range } from "../lists/support";

/** The contract's example (fifth revision, "Row-level access"). */
export const CONTRACT_POLICY = {
  projects: {
    student: { read: { company_id: "$company_ids" }, change: { created_by: "$sub" } },
    teacher: { read: { company_id: "$company_ids" }, change: { teacher_id: "$teacher_id" } },
    admin: { read: {}, change: {} },
  },
};

export const contractPolicy = (): ProjectAccessPolicy => parseAccessPolicy(JSON.stringify(CONTRACT_POLICY));

export interface Who {
  name: string;
  /** The acting role (X-User-Role); undefined: none sent. */
  role?: "student" | "teacher" | "admin";
  sub: string;
  claims: Record<string, unknown>;
}

/** Callers of each kind: restricted students and teachers, an admin, and those the rules must shut out. */
export const CALLERS: Who[] = [
  { name: "alice (student of companies 1, 2)", role: "student", sub: "alice", claims: { company_ids: [1, 2] } },
  { name: "bob (student of company 2)", role: "student", sub: "bob", claims: { company_ids: 2 } },
  {
    name: "ted (teacher 1 of companies 1, 3)",
    role: "teacher",
    sub: "ted",
    claims: { company_ids: [1, 3], teacher_id: 1 },
  },
  {
    name: "tina (teacher 2 of companies 2, 3)",
    role: "teacher",
    sub: "tina",
    claims: { company_ids: [2, 3], teacher_id: 2 },
  },
  { name: "root (admin)", role: "admin", sub: "root", claims: {} },
  { name: "a student without company_ids", role: "student", sub: "alice", claims: {} },
  { name: "a student whose company_ids are text", role: "student", sub: "alice", claims: { company_ids: ["1", "2"] } },
  { name: "a teacher without teacher_id", role: "teacher", sub: "ted", claims: { company_ids: [1, 2, 3] } },
  { name: "a caller with no acting role", sub: "alice", claims: { company_ids: [1, 2, 3] } },
];

export const callerNamed = (prefix: string): Who => CALLERS.find((who) => who.name.startsWith(prefix))!;

/** Six projects: two per company, created by different students, with teachers 1, 2 or none. */
export const PROJECTS: (ProjectSpec & { company_id: number; created_by: string; teacher_id: number | null })[] = [
  { project_id: 1, company_id: 1, created_by: "alice", teacher_id: 1 },
  { project_id: 2, company_id: 1, created_by: "bob", teacher_id: 2 },
  { project_id: 3, company_id: 2, created_by: "alice", teacher_id: 2 },
  { project_id: 4, company_id: 2, created_by: "bob", teacher_id: null },
  { project_id: 5, company_id: 3, created_by: "carol", teacher_id: 1 },
  { project_id: 6, company_id: 3, created_by: "alice", teacher_id: 2 },
];

type Project = { company_id: number; created_by: string | null; teacher_id: number | null };

/** The claim's values a field of ids may take: whole numbers only (text never matches). */
function ids(claim: unknown): number[] {
  const values = Array.isArray(claim) ? (claim as unknown[]) : [claim];
  return values.filter((v): v is number => Number.isInteger(v));
}

/** Whether `who` may read the project, by the contract's example policy. */
export function mayRead(who: Who, project: Project): boolean {
  if (who.role === "admin") return true;
  if (who.role === "student" || who.role === "teacher") return ids(who.claims.company_ids).includes(project.company_id);
  return false;
}

/** Whether `who` may change the project (assignTeacher, updateProjectStatus), by the contract's example policy. */
export function mayChange(who: Who, project: Project): boolean {
  if (!mayRead(who, project)) return false;
  if (who.role === "admin") return true;
  if (who.role === "student") return project.created_by === who.sub;
  if (who.role === "teacher")
    return project.teacher_id !== null && ids(who.claims.teacher_id).includes(project.teacher_id);
  return false;
}

/** The headers of a jwt-mode request by `who`: a token with its claims, and X-User-Role when it acts in one. */
export async function jwtHeaders(who: Who): Promise<Headers> {
  const roles = who.role ? [who.role] : ["student", "teacher"];
  const headers: Headers = { authorization: `Bearer ${await token(roles, { sub: who.sub, claims: who.claims })}` };
  if (who.role) headers["x-user-role"] = who.role;
  return headers;
}

/** The headers of a header-mode request by `who` (it must act in a role: header mode requires one). */
export function headerModeHeaders(who: Who): Headers {
  return {
    "x-user-role": who.role!,
    "x-user-id": who.sub,
    "x-user-claims": JSON.stringify(who.claims),
  };
}

/** The expected answer of a change by `who`: success, or the code the contract gives. */
export function expectedChange(who: Who, project: Project): "success" | "FORBIDDEN" | "NOT_FOUND" {
  if (!mayRead(who, project)) return "NOT_FOUND";
  return mayChange(who, project) ? "success" : "FORBIDDEN";
}

/** The global id of a project, as node(id) takes it. */
export const projectGlobalId = (n: number): string => Buffer.from(`Project:${n}`).toString("base64url");
