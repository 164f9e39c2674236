// The envelope of the contract on both transports: the REST bodies ({success: true, message, data} and
// {success: false, message, code, errors}) and the GraphQL mutation payloads ({success, message, code, data, errors}).
import type { Operation } from "../auth/access-policy";
import type { ErrorCode, FieldError } from "../shared/errors";
import type { Failure } from "./failure";

/** The short success message of each operation, the same over GraphQL and REST. */
export const SUCCESS_MESSAGES: Record<Operation, string> = {
  createProject: "Project created",
  assignTeacher: "Teacher assigned to project",
  updateProjectStatus: "Project status updated",
  updateTeacher: "Teacher updated",
  updateStudent: "Student updated",
  createTeacher: "Teacher created",
  createStudent: "Student created",
  archiveProject: "Project archived",
  unarchiveProject: "Project unarchived",
  deleteProject: "Project deleted",
  deleteTeacher: "Teacher deleted",
  deleteStudent: "Student erased: no copy of their name or email is kept",
  redeliverWebhook: "Webhook delivery scheduled again",
};

/** A mutation's payload. */
export interface Envelope<T> {
  success: boolean;
  message: string | null;
  code: ErrorCode | null;
  data: T | null;
  /** Empty on success; on failure one entry per problem, the first being message and code. */
  errors: FieldError[];
}

export function succeeded<T>(operation: Operation, data: T): Envelope<T> {
  return { success: true, message: SUCCESS_MESSAGES[operation], code: null, data, errors: [] };
}

export function failed(failure: Failure): Envelope<never> {
  return { success: false, message: failure.message, code: failure.code, data: null, errors: failure.errors };
}

/** A REST success body. */
export function successBody<T>(operation: Operation, data: T): { success: true; message: string; data: T } {
  return { success: true, message: SUCCESS_MESSAGES[operation], data };
}

/** A REST error body (and every error body of a route outside /graphql). */
export interface ErrorBody {
  success: false;
  message: string;
  code: ErrorCode;
  errors: FieldError[];
}

export function errorBody(failure: Failure): ErrorBody {
  return { success: false, message: failure.message, code: failure.code, errors: failure.errors };
}
