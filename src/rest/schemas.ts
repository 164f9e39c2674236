// JSON schemas of the REST facade: request shapes (types, required and unknown fields — never value rules, which the
// domain services own) and response shapes. The routes validate and serialise with them and the OpenAPI document
// is generated from them; openapi.ts names the exported objects as components.
import { ErrorCode } from "../shared/errors";
import { LIMITS } from "../shared/validation";

// Descriptions only document the service's rules (from the same LIMITS); nothing here enforces them.
const name = { type: "string", description: `trimmed, 1–${LIMITS.name} characters` } as const;
const date = { type: "string", description: "a real calendar date written YYYY-MM-DD" } as const;
const status = { type: "string", description: `1–${LIMITS.project_status} characters; PROJECT_STATUS_WORKFLOW may restrict it` } as const;
const wholeNumber = { type: "integer", description: "a whole number of at least 1" } as const;
const expectedRevision = {
  type: ["integer", "null"],
  description: "optional: when given and not the project's current revision, 409 CONFLICT and nothing changes",
} as const;

export const idParam = (param: string) =>
  ({
    type: "object",
    required: [param],
    properties: { [param]: { type: "string", pattern: "^[1-9][0-9]*$", description: "a whole number of at least 1" } },
    additionalProperties: false,
  }) as const;

// ---- request bodies

export const CreateProjectInput = {
  type: "object",
  required: ["project_name", "project_desc", "company_id", "project_status", "start_date", "end_date"],
  properties: {
    project_name: { ...name, description: `${name.description}; unique per company_id, ignoring case` },
    project_desc: { type: "string", description: `trimmed, 1–${LIMITS.project_desc} characters` },
    company_id: wholeNumber,
    project_status: status,
    project_url: {
      type: ["string", "null"],
      description: `an absolute http or https URL of at most ${LIMITS.project_url} characters`,
    },
    start_date: date,
    end_date: { ...date, description: `${date.description}, not before start_date` },
  },
  additionalProperties: false,
} as const;

export const AssignTeacherInput = {
  type: "object",
  required: ["new_teacher_id"],
  properties: { new_teacher_id: wholeNumber, expected_revision: expectedRevision },
  additionalProperties: false,
} as const;

export const UpdateProjectStatusInput = {
  type: "object",
  required: ["project_status"],
  properties: { project_status: status, expected_revision: expectedRevision },
  additionalProperties: false,
} as const;

export const UpdateTeacherInput = {
  type: "object",
  required: ["teacher_name"],
  properties: { teacher_name: name },
  additionalProperties: false,
} as const;

export const UpdateStudentInput = {
  type: "object",
  description: "Only these fields can change (not email); with neither field nothing changes",
  properties: {
    student_name: { ...name, type: ["string", "null"] },
    class_code: { type: ["string", "null"], description: `trimmed, 1–${LIMITS.class_code} characters` },
  },
  additionalProperties: false,
} as const;

// ---- resources

export const Project = {
  type: "object",
  required: [
    "project_id", "project_name", "project_desc", "company_id", "project_status", "project_url",
    "start_date", "end_date", "teacher_id", "revision", "created_by", "created_at", "updated_at",
  ],
  properties: {
    project_id: { type: "integer" },
    project_name: { type: "string" },
    project_desc: { type: "string" },
    company_id: { type: "integer" },
    project_status: { type: "string" },
    project_url: { type: ["string", "null"] },
    start_date: { type: "string", description: "YYYY-MM-DD" },
    end_date: { type: "string", description: "YYYY-MM-DD" },
    teacher_id: { type: ["integer", "null"], description: "null until a teacher is assigned" },
    revision: { type: "integer", description: "1 when created, +1 on every change" },
    created_by: { type: ["string", "null"], description: "the caller id that created it, if known" },
    created_at: { type: "string", description: "ISO 8601 timestamp" },
    updated_at: { type: "string", description: "ISO 8601 timestamp" },
  },
  additionalProperties: false,
} as const;

export const Teacher = {
  type: "object",
  required: ["teacher_id", "teacher_name"],
  properties: { teacher_id: { type: "integer" }, teacher_name: { type: "string" } },
  additionalProperties: false,
} as const;

export const Student = {
  type: "object",
  required: ["student_id", "student_name", "email", "class_code"],
  properties: {
    student_id: { type: "integer", description: "int64 (within ±(2^53−1))" },
    student_name: { type: "string" },
    email: { type: "string", description: "stored lower-cased; unique" },
    class_code: { type: "string" },
  },
  additionalProperties: false,
} as const;

// ---- envelopes

export const ErrorCodeSchema = { type: "string", enum: Object.values(ErrorCode) } as const;

export const ErrorEnvelope = {
  type: "object",
  required: ["success", "message", "code"],
  properties: {
    success: { type: "boolean", const: false },
    message: { type: "string", description: "what went wrong, naming the offending field where there is one" },
    code: ErrorCodeSchema,
  },
  additionalProperties: false,
} as const;

const successEnvelope = <T extends object>(data: T) =>
  ({
    type: "object",
    required: ["success", "message", "data"],
    properties: { success: { type: "boolean", const: true }, message: { type: "string" }, data },
    additionalProperties: false,
  }) as const;

export const ProjectEnvelope = successEnvelope(Project);
export const TeacherEnvelope = successEnvelope(Teacher);
export const StudentEnvelope = successEnvelope(Student);
