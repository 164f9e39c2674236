// GraphQL input types generated from the zod input shapes (components/*/*.schemas.ts), so an input field is declared
// once: its GraphQL type, nullability and description come from the shape's JSON schema (the one REST bodies are
// checked with). Values are still checked by the services against the zod shapes; these types fix shapes only.
import { GraphQLBoolean, GraphQLFloat, GraphQLInt, GraphQLString, type GraphQLScalarType } from "graphql";
import { Field, InputType, type ClassType } from "type-graphql";
import type { z } from "zod";
import { inputJsonSchema } from "../shared/input-json-schema";

const SCALARS: Record<string, GraphQLScalarType> = {
  integer: GraphQLInt,
  number: GraphQLFloat,
  string: GraphQLString,
  boolean: GraphQLBoolean,
};

interface JsonProperty {
  type?: string | string[];
  description?: string;
}

/**
 * The GraphQL input type `name` of a zod object shape: a field per property, in the shape's order, non-null when the
 * shape requires it. A property no GraphQL scalar can hold stops the schema build, naming it.
 */
export function inputTypeOf<S extends z.ZodObject>(name: string, shape: S): ClassType<z.input<S>> {
  const json = inputJsonSchema(shape) as {
    description?: string;
    properties?: Record<string, JsonProperty>;
    required?: string[];
  };
  // A named class: type-graphql and the SDL know the type by it.
  const Input = { [name]: class {} }[name];
  for (const [field, property] of Object.entries(json.properties ?? {})) {
    const types = [property.type ?? []].flat();
    const scalars = types.filter((type) => type !== "null");
    const scalar = scalars.length === 1 ? SCALARS[scalars[0]] : undefined;
    if (!scalar) {
      throw new Error(`${name}.${field}: no GraphQL scalar holds JSON type ${JSON.stringify(property.type ?? "any")}`);
    }
    const nullable = types.includes("null") || !json.required?.includes(field);
    Field(() => scalar, { nullable, description: property.description })(Input.prototype, field);
  }
  InputType(name, { description: json.description })(Input);
  return Input as ClassType<z.input<S>>;
}
