// type-graphql's authChecker and the start-up check that makes GraphQL authorization fail closed.
//
// What a resolver declares with @Authorized(...) is what runs: the checker enforces the declared roles (none
// declared = any authenticated caller). The role table (auth/access-policy) stays the one source of truth:
// resolvers declare `@Authorized(rolesFor("field"))`, and assertRootFieldRules() refuses a schema whose root field
// is not in the table, has no @Authorized (type-graphql would run it unchecked), or declares other roles than the
// table, or one that declares @Authorized or a middleware on a plain field of an object type (those are answered by
// property access, which skips both). The checker throws the DomainError itself, so the code (UNAUTHORIZED or
// FORBIDDEN) and message follow the table; the mutation envelope (mutation-payloads.ts) turns that into a payload,
// queries get a GraphQL error.
import type { GraphQLSchema } from "graphql";
import { getMetadataStorage, type AuthChecker } from "type-graphql";
import { authorizeBy, ruleFor, type AccessRule } from "../auth/access-policy";
import type { Role } from "../auth/roles";
import { ErrorCode } from "../shared/errors";
import type { Context } from "./context";

/** A resolver class as type-graphql takes it (any constructor). */
export type ResolverClass = abstract new (...args: never[]) => object;

const ROOT_TYPES = new Set(["Query", "Mutation", "Subscription"]);

export const authChecker: AuthChecker<Context, Role> = ({ context, info }, declared) => {
  const name = info.fieldName;
  const root = ROOT_TYPES.has(info.parentType.name);
  // A root field missing from the table is refused to everyone (start-up refuses such a schema anyway).
  const tableRule = root ? ruleFor(info.parentType.name, name) : undefined;
  const rule: AccessRule | undefined =
    root && !tableRule
      ? undefined
      : { roles: declared.length === 0 ? "any" : declared, wrongRole: tableRule?.wrongRole ?? ErrorCode.FORBIDDEN };
  authorizeBy(rule, context.caller, name);
  return true;
};

/** Throws, naming every offender, unless each root field of the schema has a table rule that it declares. */
export function assertRootFieldRules(schema: GraphQLSchema, resolvers: readonly ResolverClass[]): void {
  const storage = getMetadataStorage();
  const handlers = {
    Query: storage.queries,
    Mutation: storage.mutations,
    Subscription: storage.subscriptions,
  } as const;
  const problems: string[] = [];
  for (const type of [schema.getQueryType(), schema.getMutationType(), schema.getSubscriptionType()]) {
    if (!type) continue;
    for (const fieldName of Object.keys(type.getFields())) {
      const where = `${type.name}.${fieldName}`;
      const rule = ruleFor(type.name, fieldName);
      if (!rule) {
        problems.push(`${where} is not named in the role table`);
        continue;
      }
      // type-graphql fills `roles` while building; undefined means the field has no @Authorized.
      const handler = handlers[type.name as keyof typeof handlers]?.find(
        (h) => h.schemaName === fieldName && (resolvers as readonly unknown[]).includes(h.target),
      );
      const declared = handler?.roles as Role[] | undefined;
      const expected = rule.roles === "any" ? [] : rule.roles;
      if (!declared) {
        problems.push(`${where} has no @Authorized(...) declaration`);
      } else if (!sameRoles(declared, expected)) {
        problems.push(
          `${where} declares roles [${declared.join(", ")}] but the role table says [${expected.join(", ")}]`,
        );
      }
    }
  }
  problems.push(...guardedPlainFields(schema));
  if (problems.length > 0) {
    throw new Error(
      `Authorization fails closed, so the GraphQL schema is refused: ${problems.join("; ")}. ` +
        `Name every Query and Mutation field in src/auth/access-policy.ts and declare it with @Authorized(rolesFor("<field>")).`,
    );
  }
}

/**
 * The plain fields of object types are answered by property access (`simpleResolvers: true`: graphql-js's default
 * resolver, not a type-graphql wrapper per field and record). type-graphql then skips a field's @Authorized and
 * middlewares, so each such declaration on a plain field is a problem: the schema is refused, never served unchecked.
 * A @FieldResolver is wrapped either way.
 */
function guardedPlainFields(schema: GraphQLSchema): string[] {
  const storage = getMetadataStorage();
  const simpleTypes = new Set(
    storage.objectTypes
      .filter((type) => type.simpleResolvers && schema.getType(type.name) !== undefined)
      .map((type) => type.target),
  );
  const resolved = new Set(storage.fieldResolvers.map((r) => `${r.getObjectType?.()?.name}.${r.methodName}`));
  return storage.fields
    .filter((field) => simpleTypes.has(field.target) && !resolved.has(`${field.target.name}.${field.name}`))
    .filter((field) => field.roles !== undefined || (field.middlewares?.length ?? 0) > 0)
    .map((field) => `${field.target.name}.${field.name} declares @Authorized or a middleware on a plain field`);
}

function sameRoles(a: readonly Role[], b: readonly Role[]): boolean {
  return a.length === b.length && a.every((role) => b.includes(role));
}
