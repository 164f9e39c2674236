// Turns every mutation's outcome into its payload: { success, message, code, data, errors }, never null.
//
// type-graphql runs the auth check before any middleware and throws, so a middleware cannot catch it. Instead the
// built schema's mutation resolvers are wrapped once here, around everything type-graphql does (auth, argument
// handling, the resolver): resolvers return the changed resource, failures of any kind become the envelope. One
// exception: a change the service shed (SERVICE_UNAVAILABLE) is the request's failure, not the operation's: a GraphQL
// error answered with HTTP 503 and Retry-After (answers/graphql-error.ts), as a rate limit's is.
import { defaultFieldResolver, type GraphQLSchema } from "graphql";
import { failed, succeeded } from "../answers/envelope";
import { failureOf } from "../answers/failure";
import { ErrorCode } from "../shared/errors";
import type { Operation } from "../auth/access-policy";
import type { Context } from "./context";

/** Wraps every mutation; each is an Operation of the role table (assertRootFieldRules checked it before). */
export function wrapMutationsInEnvelope(schema: GraphQLSchema): void {
  const mutation = schema.getMutationType();
  if (!mutation) return;
  for (const field of Object.values(mutation.getFields())) {
    const resolve = field.resolve ?? defaultFieldResolver;
    const operation = field.name as Operation;
    field.resolve = async (source, args, context: Context, info) => {
      try {
        return succeeded(operation, await resolve(source, args, context, info));
      } catch (err) {
        const failure = failureOf(err, context.logger, { operation });
        if (failure.code === ErrorCode.SERVICE_UNAVAILABLE) throw err;
        return failed(failure);
      }
    };
  }
}
