// The global id of a record (the Relay specification's Node id, graphql/node.ts): base64url (no padding) of
// "<Type>:<numeric id>". Here, apart from GraphQL, because REST names a deleted record by it too.

/** The types a global id names. */
export type GlobalIdType = "Project" | "Teacher" | "Student";

/** The global id of the record of `type` whose key is `id`. */
export function globalIdOf(type: GlobalIdType, id: number): string {
  return Buffer.from(`${type}:${id}`, "utf8").toString("base64url");
}

/** What a deletion answers: the global id of what was deleted. */
export interface DeletedRecord {
  id: string;
}
