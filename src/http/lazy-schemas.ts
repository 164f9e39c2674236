// Route schemas compiled on a route's first use, not at start-up. Fastify compiles, when it starts, one validator
// per route and request part (Ajv) and one serializer per route, status and content type (fast-json-stringify):
// about forty serializers for the REST facade alone, most of them the same error envelope. With the two compilers
// and Ajv that cost a fifth of the service's start, and most instances never answer most of them. These are
// Fastify's own default compilers (@fastify/ajv-compiler, @fastify/fast-json-stringify-compiler), loaded with the
// first request that needs them; equal response schemas share one serializer.
import type { FastifyServerOptions } from "fastify";

type SchemaController = NonNullable<FastifyServerOptions["schemaController"]>;
type Factories = NonNullable<SchemaController["compilersFactory"]>;
type ValidatorFactory = NonNullable<Factories["buildValidator"]>;
type SerializerFactory = NonNullable<Factories["buildSerializer"]>;
type AjvCompilerModule = typeof import("@fastify/ajv-compiler");
type JsonCompilerModule = typeof import("@fastify/fast-json-stringify-compiler");
/** What a validator is to Fastify: a function that tells valid, leaving the problems in `errors`. */
type Validate = ((data: unknown) => boolean) & { errors?: unknown };

/** A compiler built once, when `load` is first called. */
function once<T>(load: () => T): () => T {
  let value: T | undefined;
  return () => (value ??= load());
}

const buildValidator = ((externalSchemas: unknown, ajvOptions: unknown) => {
  const compiler = once(() => {
    // eslint-disable-next-line @typescript-eslint/no-require-imports -- lazy on purpose (see above)
    const ValidatorSelector = require("@fastify/ajv-compiler") as AjvCompilerModule;
    return ValidatorSelector()(externalSchemas as never, ajvOptions as never) as unknown as (
      route: unknown,
    ) => Validate;
  });
  return (route: unknown) => {
    const compiled = once(() => compiler()(route));
    const validate: Validate = (data) => {
      const valid = compiled()(data);
      validate.errors = compiled().errors;
      return valid;
    };
    return validate;
  };
}) as unknown as ValidatorFactory;

const buildSerializer: SerializerFactory = (externalSchemas, serializerOptions) => {
  const compiler = once(() => {
    // eslint-disable-next-line @typescript-eslint/no-require-imports -- lazy on purpose (see above)
    const { SerializerSelector } = require("@fastify/fast-json-stringify-compiler") as JsonCompilerModule;
    return SerializerSelector()(externalSchemas, serializerOptions);
  });
  const built = new Map<string, (data: unknown) => string>();
  return (route) => {
    const compiled = once(() => {
      const key = JSON.stringify(route.schema);
      const serialize = built.get(key) ?? (compiler()(route) as (data: unknown) => string);
      built.set(key, serialize);
      return serialize;
    });
    return (data: unknown) => compiled()(data);
  };
};

export const lazySchemaController: SchemaController = { compilersFactory: { buildValidator, buildSerializer } };
