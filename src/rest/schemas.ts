// JSON schemas of the REST facade: request shapes and response shapes. The routes validate and serialise with them,
// and @fastify/swagger generates the OpenAPI document from the routes: each shared schema carries an `$id` (its
// component name; SHARED_SCHEMAS lists them) and the routes and other schemas refer to it by `{ $ref: "<$id>#" }`.
//
// Request bodies are generated from the components' zod shapes (the one definition of each input): JSON types,
// required and unknown fields, the ranges of whole numbers and the descriptions, as the OpenAPI document shows them.
// Ajv checks only the shape before the service runs (validation.ts leaves out the value keywords): value rules
// (ranges, lengths, dates, URLs, text rules) stay with the zod checks in the services, which report every invalid
// field at once with the same messages over GraphQL and REST.
import { z } from "zod";
import {
  AssignTeacherSchema,
  CreateProjectSchema,
  UpdateProjectStatusSchema,
  type ProjectRecord,
} from "../components/projects";
import { UpdateStudentSchema, type StudentRecord } from "../components/students";
import { UpdateTeacherSchema, type TeacherRecord } from "../components/teachers";
import { ErrorCode } from "../shared/errors";
import type { SameFields } from "../shared/validation";

/** A request body's JSON schema, carrying (for the compiler only) the TypeScript type of the body it accepts. */
export type BodySchema<Body> = Readonly<Record<string, unknown>> & { readonly $id: string; readonly __body?: Body };

/** A reference to a shared schema, as the routes and other schemas write it. */
export const ref = (schema: { $id: string }) => ({ $ref: `${schema.$id}#` }) as const;

/** A body schema named as a component. */
const shared = <Body>(id: string, schema: Omit<BodySchema<Body>, "$id">): BodySchema<Body> =>
  ({ $id: id, ...schema }) as BodySchema<Body>;

type JsonNode = Record<string, unknown>;

const SCALAR_KEYS = new Set(["type", "description", "minimum", "maximum"]);

/**
 * `anyOf: [{type: "string"}, {type: "null"}]` (how zod writes a nullable field) as `type: ["string", "null"]`, so Ajv
 * reports one type error ("must be a string or null") instead of one per alternative.
 */
function collapseNullable(node: JsonNode): JsonNode {
  const out: JsonNode = {};
  for (const [key, value] of Object.entries(node)) {
    if (key === "properties") {
      out[key] = Object.fromEntries(
        Object.entries(value as Record<string, JsonNode>).map(([k, v]) => [k, collapseNullable(v)]),
      );
    } else {
      out[key] = value;
    }
  }
  const anyOf = out.anyOf as JsonNode[] | undefined;
  // One scalar type (with its description and range) or null: a range applies to numbers only, so null still passes.
  const simple =
    anyOf?.length === 2 &&
    anyOf.some((alt) => alt.type === "null" && Object.keys(alt).length === 1) &&
    anyOf.every((alt) => typeof alt.type === "string" && Object.keys(alt).every((k) => SCALAR_KEYS.has(k)));
  if (anyOf && simple) {
    const { anyOf: _alternatives, ...rest } = out;
    const value = anyOf.find((alt) => alt.type !== "null")!;
    return { ...value, ...rest, type: [value.type, "null"] };
  }
  return out;
}

/** The JSON schema of a zod input shape: types, required and unknown fields, descriptions. */
function bodySchema<S extends z.ZodType>(schema: S): Omit<BodySchema<z.input<S>>, "$id"> {
  const { $schema: _dialect, ...json } = z.toJSONSchema(schema, {
    io: "input",
    // Refinements and transforms are value rules; the shape around them is what is kept.
    unrepresentable: "any",
  });
  return collapseNullable(json) as Omit<BodySchema<z.input<S>>, "$id">;
}

/**
 * The path parameter of an id argument's zod shape (e.g. ProjectIdArg): digits only here; its range, given in the
 * description, is checked by the service with the same rule as the GraphQL argument.
 */
export function idParam(arg: z.ZodObject) {
  const [[param, rule]] = Object.entries(arg.shape);
  return {
    type: "object",
    required: [param],
    properties: {
      [param]: { type: "string", pattern: "^[1-9][0-9]*$", description: (rule as z.ZodType).meta()?.description },
    },
    additionalProperties: false,
  } as const;
}

// ---- request bodies

export const CreateProjectInput = shared("CreateProjectInput", bodySchema(CreateProjectSchema));
export const AssignTeacherInput = shared("AssignTeacherInput", bodySchema(AssignTeacherSchema));
export const UpdateProjectStatusInput = shared("UpdateProjectStatusInput", bodySchema(UpdateProjectStatusSchema));
export const UpdateTeacherInput = shared("UpdateTeacherInput", bodySchema(UpdateTeacherSchema));
export const UpdateStudentInput = shared("UpdateStudentInput", bodySchema(UpdateStudentSchema));

// ---- resources

export const Project = {
  $id: "Project",
  type: "object",
  required: [
    "project_id",
    "project_name",
    "project_desc",
    "company_id",
    "project_status",
    "project_url",
    "start_date",
    "end_date",
    "teacher_id",
    "revision",
    "created_by",
    "created_at",
    "updated_at",
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
  $id: "Teacher",
  type: "object",
  required: ["teacher_id", "teacher_name"],
  properties: { teacher_id: { type: "integer" }, teacher_name: { type: "string" } },
  additionalProperties: false,
} as const;

export const Student = {
  $id: "Student",
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

// Responses are serialised with these schemas (a field they lack is dropped from the answer), so the compiler checks
// that they list exactly the fields of the records the services return (timestamps of teachers and students aside,
// as the contract's types have none).
true satisfies SameFields<(typeof Project)["properties"], ProjectRecord>;
true satisfies SameFields<(typeof Teacher)["properties"], Omit<TeacherRecord, "created_at" | "updated_at">>;
true satisfies SameFields<(typeof Student)["properties"], Omit<StudentRecord, "created_at" | "updated_at">>;

// ---- envelopes

export const ErrorCodeSchema = { $id: "ErrorCode", type: "string", enum: Object.values(ErrorCode) } as const;

export const FieldError = {
  $id: "FieldError",
  type: "object",
  required: ["field", "message", "code"],
  properties: {
    field: {
      type: ["string", "null"],
      description:
        "the body field or path parameter as the interface names it (end_date, projectId); null: no single field",
    },
    message: { type: "string", description: "what is wrong and how to fix it, naming the field" },
    code: ref(ErrorCodeSchema),
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

/** Every schema routes refer to by `$id`: added to the REST plugin's context, they are the document's components. */
export const SHARED_SCHEMAS: readonly { $id: string }[] = [
  Project,
  Teacher,
  Student,
  ErrorCodeSchema,
  FieldError,
  ErrorEnvelope,
  ProjectEnvelope,
  TeacherEnvelope,
  StudentEnvelope,
  CreateProjectInput,
  AssignTeacherInput,
  UpdateProjectStatusInput,
  UpdateTeacherInput,
  UpdateStudentInput,
];
