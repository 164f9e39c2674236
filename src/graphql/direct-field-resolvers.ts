// type-graphql calls every @FieldResolver through one generic wrapper, which on each call sorts the method's
// parameter list in place, maps it to values (converting the root to its declared class when it has one) and runs the
// middleware chain. A field resolved once per record (Project.teacher: a hundred times for a page of a hundred) paid
// that a hundred times: in V8's profile of a page at 16 connections, the wrapper around Project.teacher took more time
// than the resolver and the loader together, and its sorts allocated 80 KB a page for the collector.
//
// A field resolver that declares only an untyped @Root() (the record as it is), @Ctx() and @Info(), with no
// @Authorized and no middleware, is therefore set on the built schema as it is written: the same method, on an
// instance of its class, given the same arguments in the same order. type-graphql would run no check around it
// either (no roles, no middleware), so nothing is skipped; any other field resolver keeps type-graphql's wrapper.
import { isObjectType, type GraphQLFieldResolver, type GraphQLSchema } from "graphql";
import { getMetadataStorage } from "type-graphql";
import type { ResolverClass } from "./auth-checker";

type ParamPick = (root: unknown, context: unknown, info: unknown) => unknown;

const PICKS: Record<string, ParamPick | undefined> = {
  root: (root) => root,
  context: (_root, context) => context,
  info: (_root, _context, info) => info,
};

/** Sets, on the schema's fields, each direct field resolver of these classes; returns the fields set ("Type.field"). */
export function callFieldResolversAsWritten(schema: GraphQLSchema, resolvers: readonly ResolverClass[]): string[] {
  const storage = getMetadataStorage();
  const set: string[] = [];
  for (const def of storage.fieldResolvers) {
    if (def.kind !== "external" || !(resolvers as readonly unknown[]).includes(def.target)) continue;
    if (def.roles !== undefined || (def.middlewares?.length ?? 0) > 0) continue;
    const objectClass = def.getObjectType?.();
    const typeName = storage.objectTypes.find((t) => t.target === objectClass)?.name;
    const type = typeName ? schema.getType(typeName) : undefined;
    const field = isObjectType(type) ? type.getFields()[def.schemaName] : undefined;
    const target = def.target as new () => Record<string, unknown>;
    const picks = directPicks(def.params ?? []);
    if (!field || !picks || target.length !== 0) continue;
    const instance = new target();
    const method = instance[def.methodName];
    if (typeof method !== "function") continue;
    field.resolve = directResolver(instance, method as (...args: unknown[]) => unknown, picks);
    set.push(`${typeName}.${def.schemaName}`);
  }
  return set;
}

/** Each parameter's value in order, or undefined when one needs type-graphql (arguments, a typed or named root…). */
function directPicks(params: readonly { kind: string; index: number }[]): ParamPick[] | undefined {
  const picks: ParamPick[] = [];
  for (const param of [...params].sort((a, b) => a.index - b.index)) {
    const { propertyName, getType } = param as { propertyName?: string; getType?: () => unknown };
    const pick = PICKS[param.kind];
    if (param.index !== picks.length || !pick || propertyName !== undefined) return undefined;
    // type-graphql converts a root declared as a class into an instance of it; a plain object type leaves it as is.
    if (param.kind === "root" && getType && getType() !== Object) return undefined;
    picks.push(pick);
  }
  return picks;
}

function directResolver(
  instance: object,
  method: (...args: unknown[]) => unknown,
  picks: readonly ParamPick[],
): GraphQLFieldResolver<unknown, unknown> {
  if (picks.length === 1) return (root, _args, context, info) => method.call(instance, picks[0](root, context, info));
  if (picks.length === 2) {
    const [first, second] = picks;
    return (root, _args, context, info) =>
      method.call(instance, first(root, context, info), second(root, context, info));
  }
  return (root, _args, context, info) =>
    method.apply(
      instance,
      picks.map((pick) => pick(root, context, info)),
    );
}
