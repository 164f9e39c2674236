// Request validation of the REST routes: a strict Ajv of their own (Fastify's default coerces "3" to 3 and strips
// unknown fields, which the interface forbids), and messages that name the offending field. Every problem of the
// request's shape is reported (allErrors), each as a FieldError, like the services' value checks.
import type { ErrorObject, ValidateFunction } from "ajv";
import type { FastifySchemaCompiler } from "fastify";
import type { SchemaErrorFormatter } from "fastify/types/schema";
import { ErrorCode, FieldErrorReason, type FieldError } from "../shared/errors";
import { invalid, jsonType } from "../shared/validation";

/** `sharedSchemas`: the schemas routes refer to by $id, added (shape only) before the first route compiles. */
export function strictValidatorCompiler(sharedSchemas: () => unknown[]): FastifySchemaCompiler<object> {
  // Ajv is loaded, and each route's schemas compiled, on a route's first request rather than at start-up: together
  // they cost about a tenth of the service's start, and most instances never see most routes.
  let ajv: import("ajv").default | undefined;
  const loadAjv = () => {
    if (ajv) return ajv;
    // eslint-disable-next-line @typescript-eslint/no-require-imports -- lazy on purpose (see above)
    const { default: Ajv } = require("ajv") as typeof import("ajv");
    ajv = new Ajv({
      coerceTypes: false,
      removeAdditional: false,
      useDefaults: false,
      allErrors: true,
      allowUnionTypes: true,
      // parentSchema and data let the messages list the accepted fields and say what was sent.
      verbose: true,
    });
    for (const shared of sharedSchemas()) ajv.addSchema(withoutValueRules(shared));
    return ajv;
  };
  // Bodies: the shape only (types, required and unknown fields). Their value rules, kept in the schemas for the
  // OpenAPI document, are the services' to check, so every invalid field of a request is reported at once.
  return ({ schema, httpPart }) => {
    let compiled: ValidateFunction | undefined;
    const validate = (data: unknown): boolean => {
      if (!compiled) {
        compiled = loadAjv().compile(httpPart === "body" ? withoutValueRules(schema) : schema);
      }
      const valid = compiled(data);
      validate.errors = compiled.errors;
      return valid;
    };
    validate.errors = undefined as ValidateFunction["errors"];
    return validate;
  };
}

/** Keywords of value rules: the services check these (with their own messages), Ajv does not. */
const VALUE_KEYWORDS = new Set([
  "minimum",
  "maximum",
  "exclusiveMinimum",
  "exclusiveMaximum",
  "minLength",
  "maxLength",
  "pattern",
  "format",
]);

function withoutValueRules(schema: unknown): object {
  if (Array.isArray(schema)) return schema.map(withoutValueRules);
  if (!schema || typeof schema !== "object") return schema as object;
  return Object.fromEntries(
    Object.entries(schema)
      .filter(([key]) => !VALUE_KEYWORDS.has(key))
      .map(([key, value]) => [
        key,
        // Under `properties` the keys are field names (a field may be called "format"): keep them all.
        key === "properties"
          ? Object.fromEntries(Object.entries(value as object).map(([name, field]) => [name, withoutValueRules(field)]))
          : withoutValueRules(value),
      ]),
  );
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

/** The field an error concerns: the property (unknown or missing ones included), null for the whole body. */
function fieldOf(error: ErrorObject): string | null {
  const path = error.instancePath.slice(1).replaceAll("/", ".");
  const property =
    error.keyword === "additionalProperties"
      ? String(error.params.additionalProperty)
      : error.keyword === "required"
        ? String(error.params.missingProperty)
        : "";
  return [path, property].filter(Boolean).join(".") || null;
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
      const expected = String(error.params.type)
        .split(",")
        .map((t) => TYPE_NAMES[t] ?? t);
      return `${field} must be ${expected.join(" or ")} (got ${jsonType(error.data)})`;
    }
    case "pattern":
      return `${field} must be ${parent?.description ?? `of the form ${String(error.params.pattern)}`}`;
    default:
      return `${field} ${error.message ?? "is invalid"}`;
  }
}

/**
 * The reason of each kind of problem Ajv finds: decided by the rule (keyword) that failed. A value that is null where
 * the field needs one is REQUIRED, as when it is left out.
 */
function reasonOf(error: ErrorObject): FieldErrorReason {
  switch (error.keyword) {
    case "additionalProperties":
      return FieldErrorReason.UNKNOWN_FIELD;
    case "required":
      return FieldErrorReason.REQUIRED;
    case "type":
      return error.data === null ? FieldErrorReason.REQUIRED : FieldErrorReason.WRONG_TYPE;
    case "minimum":
    case "maximum":
    case "exclusiveMinimum":
    case "exclusiveMaximum":
      return FieldErrorReason.OUT_OF_RANGE;
    case "maxLength":
      return FieldErrorReason.TOO_LONG;
    case "minLength":
      return FieldErrorReason.BLANK;
    default:
      return FieldErrorReason.INVALID_FORMAT;
  }
}

/** Every failure as a FieldError, one per field; the first is the message (Fastify answers it through the app's error handler, answers/http-fallback.ts). */
export const formatSchemaErrors: SchemaErrorFormatter = (errors, dataVar) => {
  const fieldErrors: FieldError[] = [];
  const seen = new Set<string | null>();
  for (const error of errors as ErrorObject[]) {
    const field = fieldOf(error);
    // A field with several problems (e.g. wrong type and a pattern) is listed once, with its first.
    if (seen.has(field)) continue;
    seen.add(field);
    fieldErrors.push({
      field,
      message: describe(error, dataVar),
      code: ErrorCode.BAD_REQUEST,
      reason: reasonOf(error),
    });
  }
  const [first = null, ...rest] = fieldErrors;
  return first
    ? invalid([first, ...rest])
    : invalid([
        {
          field: null,
          message: `${dataVar} is invalid`,
          code: ErrorCode.BAD_REQUEST,
          reason: FieldErrorReason.INVALID_FORMAT,
        },
      ]);
};
