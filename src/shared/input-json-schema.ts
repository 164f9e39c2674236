// The JSON schema of a zod input shape (components/*/*.schemas.ts, the one definition of each input), keeping only
// the shape: JSON types, required and unknown fields, descriptions. The REST routes check request bodies with it
// (Ajv, before the service runs) and the GraphQL input types are generated from it (graphql/input-types.ts). Value
// rules (lengths, dates, URLs, text rules) stay with the zod checks in the services, which report every invalid
// field at once with the same messages over GraphQL and REST; here they appear only as the descriptions the shapes
// carry.
import { z } from "zod";

/** An input shape's JSON schema, carrying (for the compiler only) the TypeScript type of the input it accepts. */
export type InputJsonSchema<Input> = Readonly<Record<string, unknown>> & { readonly __input?: Input };

/** Keywords of value rules: the services check these (with their own messages), Ajv does not. */
const VALUE_KEYWORDS = [
  "minimum",
  "maximum",
  "exclusiveMinimum",
  "exclusiveMaximum",
  "minLength",
  "maxLength",
  "pattern",
  "format",
];

type JsonNode = Record<string, unknown>;

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
  const simple = anyOf?.every(
    (alt) => typeof alt.type === "string" && Object.keys(alt).every((k) => k === "type" || k === "description"),
  );
  if (anyOf && simple) {
    const { anyOf: _alternatives, ...rest } = out;
    const description = anyOf.map((alt) => alt.description).find((d) => d !== undefined);
    return { ...(description === undefined ? {} : { description }), ...rest, type: anyOf.map((alt) => alt.type) };
  }
  return out;
}

/** The JSON schema of a zod input shape: types, required and unknown fields, descriptions. */
export function inputJsonSchema<S extends z.ZodType>(schema: S): InputJsonSchema<z.input<S>> {
  const { $schema: _dialect, ...json } = z.toJSONSchema(schema, {
    io: "input",
    // Refinements and transforms are value rules; the shape around them is what is kept.
    unrepresentable: "any",
    override: ({ jsonSchema }) => {
      for (const keyword of VALUE_KEYWORDS) delete (jsonSchema as Record<string, unknown>)[keyword];
    },
  });
  return collapseNullable(json) as InputJsonSchema<z.input<S>>;
}
