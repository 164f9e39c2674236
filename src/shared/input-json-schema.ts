// The JSON schema of a zod input shape (components/*/*.schemas.ts, the one definition of each input): JSON types,
// required and unknown fields, the ranges of whole numbers and the descriptions. The REST routes check request
// bodies with it (Ajv checks only the shape: rest/validation.ts leaves out the value keywords) and the OpenAPI
// document shows it; the GraphQL input types are generated from it (graphql/input-types.ts). Value rules (ranges,
// lengths, dates, URLs, text rules) stay with the zod checks in the services, which report every invalid field at
// once with the same messages over GraphQL and REST.
import { z } from "zod";

/** An input shape's JSON schema, carrying (for the compiler only) the TypeScript type of the input it accepts. */
export type InputJsonSchema<Input> = Readonly<Record<string, unknown>> & { readonly __input?: Input };

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

/** The JSON schema of a zod input shape: types, required and unknown fields, ranges, descriptions. */
export function inputJsonSchema<S extends z.ZodType>(schema: S): InputJsonSchema<z.input<S>> {
  const { $schema: _dialect, ...json } = z.toJSONSchema(schema, {
    io: "input",
    // Refinements and transforms are value rules; the shape around them is what is kept.
    unrepresentable: "any",
  });
  return collapseNullable(json) as InputJsonSchema<z.input<S>>;
}
