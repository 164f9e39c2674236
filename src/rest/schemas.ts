// JSON schemas of the REST facade: request shapes and response shapes. The routes validate and serialise with them
// and the OpenAPI document is generated from them; openapi.ts names the exported objects as components. Request
// bodies are generated from the components' zod shapes (shared/input-json-schema.ts).
import { getNullableType, isEnumType, isNonNullType, type GraphQLLeafType } from "graphql";
import { AssignTeacherSchema, CreateProjectSchema, UpdateProjectStatusSchema } from "../components/projects";
import { UpdateStudentSchema } from "../components/students";
import { UpdateTeacherSchema } from "../components/teachers";
import { valueFieldsOf } from "../graphql/schema";
import { ErrorCode } from "../shared/errors";
import { inputJsonSchema, type InputJsonSchema } from "../shared/input-json-schema";

/** A request body's JSON schema (the TypeScript type of the body it accepts rides along for restRoute). */
export type BodySchema<Body> = InputJsonSchema<Body>;

export const idParam = (param: string) =>
  ({
    type: "object",
    required: [param],
    properties: { [param]: { type: "string", pattern: "^[1-9][0-9]*$", description: "a whole number of at least 1" } },
    additionalProperties: false,
  }) as const;

// ---- request bodies

export const CreateProjectInput = inputJsonSchema(CreateProjectSchema);
export const AssignTeacherInput = inputJsonSchema(AssignTeacherSchema);
export const UpdateProjectStatusInput = inputJsonSchema(UpdateProjectStatusSchema);
export const UpdateTeacherInput = inputJsonSchema(UpdateTeacherSchema);
export const UpdateStudentInput = inputJsonSchema(UpdateStudentSchema);

// ---- resources

/** JSON types of the GraphQL scalars the resources' fields hold. */
const JSON_TYPES: Record<string, string> = {
  Int: "integer",
  SafeInt: "integer",
  Float: "number",
  String: "string",
  ID: "string",
  Boolean: "boolean",
};

/**
 * A resource as the REST routes answer it (and serialise it: a field the schema lacks is dropped), from its GraphQL
 * type, where its fields are declared: every value field (valueFieldsOf), all present (null when empty). Relations
 * (Project.teacher, Project.history, Teacher.projects) are GraphQL's alone.
 */
function resourceSchema(typeName: string) {
  const properties: Record<string, { type: string | string[]; description?: string }> = {};
  for (const field of valueFieldsOf(typeName)) {
    const value = getNullableType(field.type) as GraphQLLeafType;
    const json = isEnumType(value) ? "string" : JSON_TYPES[value.name];
    if (!json) throw new Error(`${typeName}.${field.name}: no JSON type for the GraphQL scalar ${value.name}`);
    properties[field.name] = {
      type: isNonNullType(field.type) ? json : [json, "null"],
      ...(field.description ? { description: field.description } : {}),
    };
  }
  return { type: "object", required: Object.keys(properties), properties, additionalProperties: false } as const;
}

export const Project = resourceSchema("Project");
export const Teacher = resourceSchema("Teacher");
export const Student = resourceSchema("Student");

// ---- envelopes

export const ErrorCodeSchema = { type: "string", enum: Object.values(ErrorCode) } as const;

export const FieldError = {
  type: "object",
  required: ["field", "message", "code"],
  properties: {
    field: {
      type: ["string", "null"],
      description:
        "the body field or path parameter as the interface names it (end_date, projectId); null: no single field",
    },
    message: { type: "string", description: "what is wrong and how to fix it, naming the field" },
    code: ErrorCodeSchema,
  },
  additionalProperties: false,
} as const;

export const ErrorEnvelope = {
  type: "object",
  required: ["success", "message", "code", "errors"],
  properties: {
    success: { type: "boolean", const: false },
    message: {
      type: "string",
      description: "what went wrong (the first problem), naming the offending field where there is one",
    },
    code: ErrorCodeSchema,
    errors: {
      type: "array",
      items: FieldError,
      description: "every problem found (all invalid fields at once), the first being message and code",
    },
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
