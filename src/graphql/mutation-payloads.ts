// Turns every mutation's outcome into its payload: { success, message, code, data }, never null.
//
// type-graphql runs the auth check before any middleware and throws, so a middleware cannot catch it. Instead the
// built schema's mutation resolvers are wrapped once here, around everything type-graphql does (auth, argument
// handling, the resolver): resolvers return the changed resource, failures of any kind become the envelope.
import { defaultFieldResolver, type GraphQLSchema } from "graphql";
import type { Operation } from "../auth/access-policy";
import { failed, succeeded, SUCCESS_MESSAGES } from "../shared/envelope";
import type { Context } from "./context";
import { reportError } from "./error-report";

export function wrapMutationsInEnvelope(schema: GraphQLSchema): void {
  const mutation = schema.getMutationType();
  if (!mutation) return;
  for (const field of Object.values(mutation.getFields())) {
    const resolve = field.resolve ?? defaultFieldResolver;
    const message = SUCCESS_MESSAGES[field.name as Exclude<Operation, "read">] ?? "Done";
    field.resolve = async (source, args, context: Context, info) => {
      try {
        return succeeded(await resolve(source, args, context, info), message);
      } catch (err) {
        return failed(reportError(err, context.logger, field.name));
      }
    };
  }
}
