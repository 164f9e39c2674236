// JSON schemas of the REST facade: request shapes and response shapes. The routes validate and serialise with them,
// and @fastify/swagger generates the OpenAPI document from the routes: each shared schema carries an `$id` (its
// component name; SHARED_SCHEMAS lists them) and the routes and other schemas refer to it by `{ $ref: "<$id>#" }`.
//
// Request bodies are generated from the components' zod shapes (shared/input-json-schema.ts), resources from their
// GraphQL types (resourceSchema).
import { getNullableType, isEnumType, isNonNullType, type GraphQLLeafType } from "graphql";
import type { z } from "zod";
import { AssignTeacherSchema, CreateProjectSchema, UpdateProjectStatusSchema } from "../components/projects";
import { UpdateStudentSchema } from "../components/students";
import { UpdateTeacherSchema } from "../components/teachers";
import { valueFieldsOf } from "../graphql/schema";
import { ErrorCode, FIELD_ERROR_REASONS, FieldErrorReason } from "../shared/errors";
import { inputJsonSchema, type InputJsonSchema } from "../shared/input-json-schema";

/** A request body's JSON schema, named as a component (the TypeScript type of the body rides along for restRoute). */
export type BodySchema<Body> = InputJsonSchema<Body> & { readonly $id: string };

/** A reference to a shared schema, as the routes and other schemas write it. */
export const ref = (schema: { $id: string }) => ({ $ref: `${schema.$id}#` }) as const;

/** The body schema of a zod input shape, named as a component. */
const bodySchema = <S extends z.ZodType>(id: string, shape: S): BodySchema<z.input<S>> => ({
  $id: id,
  ...inputJsonSchema(shape),
});

/**
 * The path parameter of an id argument's zod shape (e.g. ProjectIdArg): a whole number written in digits here; its
 * range, given in the description, is checked by the service with the same rule (and the same reason, OUT_OF_RANGE)
 * as the GraphQL argument, so 0 and -3 are refused the same way on both transports.
 */
export function idParam(arg: z.ZodObject) {
  const [[param, rule]] = Object.entries(arg.shape);
  return {
    type: "object",
    required: [param],
    properties: {
      [param]: { type: "string", pattern: "^(0|-?[1-9][0-9]*)$", description: (rule as z.ZodType).meta()?.description },
    },
    additionalProperties: false,
  } as const;
}

// ---- request bodies

export const CreateProjectInput = bodySchema("CreateProjectInput", CreateProjectSchema);
export const AssignTeacherInput = bodySchema("AssignTeacherInput", AssignTeacherSchema);
export const UpdateProjectStatusInput = bodySchema("UpdateProjectStatusInput", UpdateProjectStatusSchema);
export const UpdateTeacherInput = bodySchema("UpdateTeacherInput", UpdateTeacherSchema);
export const UpdateStudentInput = bodySchema("UpdateStudentInput", UpdateStudentSchema);

// ---- resources

/** JSON types of the GraphQL scalars the resources' fields hold. */
const JSON_TYPES: Record<string, string> = {
  Int: "integer",
  SafeInt: "integer",
  Float: "number",
  String: "string",
  ID: "string",
  // The date scalars answer text (YYYY-MM-DD, ISO 8601 UTC), unchanged on REST: no `format`, so generated REST
  // clients keep the strings they had.
  LocalDate: "string",
  DateTime: "string",
  Boolean: "boolean",
};

/**
 * A resource as the REST routes answer it (and serialise it: a field the schema lacks is dropped), from its GraphQL
 * type, where its fields are declared: every value field (valueFieldsOf), all present (null when empty). Relations
 * (Project.teacher, Project.history, Teacher.projects) are GraphQL's alone.
 */
function resourceSchema<Id extends string>(id: Id) {
  const properties: Record<string, { type: string | string[]; description?: string }> = {};
  for (const field of valueFieldsOf(id)) {
    const value = getNullableType(field.type) as GraphQLLeafType;
    const json = isEnumType(value) ? "string" : JSON_TYPES[value.name];
    if (!json) throw new Error(`${id}.${field.name}: no JSON type for the GraphQL scalar ${value.name}`);
    properties[field.name] = {
      type: isNonNullType(field.type) ? json : [json, "null"],
      ...(field.description ? { description: field.description } : {}),
    };
  }
  return {
    $id: id,
    type: "object",
    required: Object.keys(properties),
    properties,
    additionalProperties: false,
  } as const;
}

export const Project = resourceSchema("Project");
export const Teacher = resourceSchema("Teacher");
export const Student = resourceSchema("Student");
export const DeletedRecord = resourceSchema("DeletedRecord");

// ---- envelopes

export const ErrorCodeSchema = { $id: "ErrorCode", type: "string", enum: Object.values(ErrorCode) } as const;

export const FieldErrorReasonSchema = {
  $id: "FieldErrorReason",
  type: "string",
  enum: Object.values(FieldErrorReason),
  description: `why the field (or the request) was refused, for code; message is for people. ${Object.entries(
    FIELD_ERROR_REASONS,
  )
    .map(([reason, meaning]) => `${reason}: ${meaning}.`)
    .join(" ")}`,
} as const;

export const FieldError = {
  $id: "FieldError",
  type: "object",
  required: ["field", "message", "code", "reason"],
  properties: {
    field: {
      type: ["string", "null"],
      description:
        "the body field or path parameter as the interface names it (end_date, projectId); null: no single field",
    },
    message: { type: "string", description: "what is wrong and how to fix it, naming the field" },
    code: ref(ErrorCodeSchema),
    reason: ref(FieldErrorReasonSchema),
  },
  additionalProperties: false,
} as const;

export const ErrorEnvelope = {
  $id: "ErrorEnvelope",
  type: "object",
  required: ["success", "message", "code", "errors"],
  properties: {
    success: { type: "boolean", const: false },
    message: {
      type: "string",
      description: "what went wrong (the first problem), naming the offending field where there is one",
    },
    code: ref(ErrorCodeSchema),
    errors: {
      type: "array",
      items: ref(FieldError),
      description: "every problem found (all invalid fields at once), the first being message and code",
    },
  },
  additionalProperties: false,
} as const;

const successEnvelope = <Id extends string>(id: Id, data: { $id: string }) =>
  ({
    $id: id,
    type: "object",
    required: ["success", "message", "data"],
    properties: { success: { type: "boolean", const: true }, message: { type: "string" }, data: ref(data) },
    additionalProperties: false,
  }) as const;

export const ProjectEnvelope = successEnvelope("ProjectEnvelope", Project);
export const TeacherEnvelope = successEnvelope("TeacherEnvelope", Teacher);
export const StudentEnvelope = successEnvelope("StudentEnvelope", Student);
export const DeletedEnvelope = successEnvelope("DeletedEnvelope", DeletedRecord);

/** Every schema routes refer to by `$id`: added to the REST plugin's context, they are the document's components. */
export const SHARED_SCHEMAS: readonly { $id: string }[] = [
  Project,
  Teacher,
  Student,
  ErrorCodeSchema,
  FieldErrorReasonSchema,
  FieldError,
  ErrorEnvelope,
  ProjectEnvelope,
  TeacherEnvelope,
  StudentEnvelope,
  DeletedRecord,
  DeletedEnvelope,
  CreateProjectInput,
  AssignTeacherInput,
  UpdateProjectStatusInput,
  UpdateTeacherInput,
  UpdateStudentInput,
];
