// Descriptions of the schema's root types: type-graphql builds Query, Mutation and Subscription without one, and every
// type of the schema is described (a test over introspection checks it).
import type { GraphQLSchema } from "graphql";

const ROOT_DESCRIPTIONS = {
  Query: "Reads: any authenticated caller, except students' personal data (student, students: teachers and admins)",
  Mutation:
    "Changes: each returns its payload, never null — on failure success false, code, message and every problem in errors",
  Subscription:
    "Live updates over WebSocket (graphql-transport-ws at /graphql): changes of projects, resumable by cursor",
} as const;

export function describeRootTypes(schema: GraphQLSchema): void {
  for (const type of [schema.getQueryType(), schema.getMutationType(), schema.getSubscriptionType()]) {
    if (type && !type.description) type.description = ROOT_DESCRIPTIONS[type.name as keyof typeof ROOT_DESCRIPTIONS];
  }
}
