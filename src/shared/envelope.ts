// The success/message/code/data envelope of the contract, shared by the GraphQL payloads and the REST bodies.
import type { Operation } from "../auth/access-policy";
import { DomainError, ErrorCode } from "./errors";

export interface Envelope<T> {
  success: boolean;
  message: string | null;
  code: ErrorCode | null;
  data: T | null;
}

/** The short success message of each operation, the same over GraphQL and REST. */
export const SUCCESS_MESSAGES: Record<Exclude<Operation, "read">, string> = {
  createProject: "Project created",
  assignTeacher: "Teacher assigned to project",
  updateProjectStatus: "Project status updated",
  updateTeacher: "Teacher updated",
  updateStudent: "Student updated",
  createTeacher: "Teacher created",
  createStudent: "Student created",
};

export function succeeded<T>(data: T, message: string): Envelope<T> {
  return { success: true, message, code: null, data };
}

export function failed(error: DomainError): Envelope<never> {
  return { success: false, message: error.message, code: error.code, data: null };
}

export { ErrorCode };
