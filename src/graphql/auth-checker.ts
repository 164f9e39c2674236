// type-graphql's authChecker: applies the role table (auth/access-policy) to the resolved caller in the context.
// It throws the DomainError itself, so the code (UNAUTHORIZED or FORBIDDEN) and message come from the table;
// the mutation envelope (mutation-envelope.ts) turns that into a payload, queries get a GraphQL error.
import type { AuthChecker } from "type-graphql";
import { authorize, isOperation } from "../auth/access-policy";
import type { Context } from "./context";

export const authChecker: AuthChecker<Context> = ({ context, info }) => {
  const operation = info.parentType.name === "Mutation" && isOperation(info.fieldName) ? info.fieldName : "read";
  authorize(context.caller, operation);
  return true;
};
