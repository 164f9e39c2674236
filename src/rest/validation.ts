// Request validation of the REST routes: a strict Ajv of their own (Fastify's default coerces "3" to 3 and strips
// unknown fields, which the interface forbids), and messages that name the offending field.
import Ajv, { type ErrorObject } from "ajv";
import type { FastifySchemaCompiler } from "fastify";
import type { SchemaErrorFormatter } from "fastify/types/schema";

export function strictValidatorCompiler(): FastifySchemaCompiler<object> {
  const ajv = new Ajv({
    coerceTypes: false,
    removeAdditional: false,
    useDefaults: false,
    allErrors: false,
    allowUnionTypes: true,
    // parentSchema and data let the messages list the accepted fields and say what was sent.
    verbose: true,
  });
  return ({ schema }) => ajv.compile(schema);
}

const TYPE_NAMES: Record<string, string> = {
  integer: "a whole number",
  number: "a number",
  string: "a string",
  boolean: "true or false",
  object: "a JSON object",
  array: "an array",
  null: "null",
};

function jsonType(value: unknown): string {
  if (value === null) return "null";
  if (Array.isArray(value)) return "array";
  if (typeof value === "number") return Number.isInteger(value) ? "integer" : "number";
  return typeof value;
}

function describe(error: ErrorObject, part: string): string {
  const path = error.instancePath.slice(1).replaceAll("/", ".");
  const field = path || (part === "body" ? "request body" : part);
  const within = path ? ` in ${path}` : "";
  const parent = error.parentSchema as { properties?: Record<string, unknown>; description?: string } | undefined;
  switch (error.keyword) {
    case "additionalProperties": {
      const accepted = Object.keys(parent?.properties ?? {});
      return `${String(error.params.additionalProperty)} is not an accepted field${within}; accepted fields: ${accepted.join(", ") || "none"}`;
    }
    case "required":
      return `${String(error.params.missingProperty)} is required${within}`;
    case "type": {
      const expected = String(error.params.type).split(",").map((t) => TYPE_NAMES[t] ?? t);
      return `${field} must be ${expected.join(" or ")} (got ${jsonType(error.data)})`;
    }
    case "pattern":
      return `${field} must be ${parent?.description ?? `of the form ${String(error.params.pattern)}`}`;
    default:
      return `${field} ${error.message ?? "is invalid"}`;
  }
}

/** One message for the first failure (allErrors is off): that is the field the caller must fix. */
export const formatSchemaErrors: SchemaErrorFormatter = (errors, dataVar) =>
  new Error(errors.length > 0 ? describe(errors[0] as ErrorObject, dataVar) : `${dataVar} is invalid`);
