// The success/message/code/data/errors envelope of the contract, shared by the GraphQL payloads and the REST bodies.
import type { Operation } from "../auth/access-policy";
import type { DomainError, ErrorCode, FieldError } from "./errors";

export interface Envelope<T> {
  success: boolean;
  message: string | null;
  code: ErrorCode | null;
  data: T | null;
  /** Empty on success; on failure one entry per problem, the first being message and code. */
  errors: FieldError[];
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
  return { success: true, message, code: null, data, errors: [] };
}

/** Every problem of a failure; an error raised without a list is one problem tied to no field. */
export function fieldErrorsOf(error: DomainError): FieldError[] {
  return error.errors.length > 0 ? error.errors : [{ field: null, message: error.message, code: error.code }];
}

export function failed(error: DomainError): Envelope<never> {
  return { success: false, message: error.message, code: error.code, data: null, errors: fieldErrorsOf(error) };
}
