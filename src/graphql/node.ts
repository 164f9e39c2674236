// Global object identification (the Relay specification's `Node`): every resource type implements
// `interface Node { id: ID! }`, so clients (Apollo Client's and urql's normalised caches, Relay) can key what they
// cache by `__typename` and `id` with no configuration, and refetch any object with `node(id)`.
//
// The id is opaque and stable: base64url (no padding) of "<Type>:<numeric id>", e.g. "Project:42" is
// "UHJvamVjdDo0Mg". Records never change their numeric id, so their global id never changes either. It is not
// stored: GraphQL derives it from the record's key (NodeIdResolver), and REST, which answers the records, has none.
import {
  Field,
  FieldResolver,
  ID,
  InterfaceType,
  Resolver,
  Root,
  type ClassType,
  type ResolverInterface,
} from "type-graphql";
import { allows, type RootField } from "../auth/access-policy";
import { badRequest, FieldErrorReason } from "../shared/errors";
import { globalIdOf } from "../shared/global-id";
import { PAGE_MAX_LIMIT } from "../shared/pagination";
import type { Context } from "./context";

/** Each node type, the key of its records, and the query whose role rule decides who may read it. */
export const NODE_TYPES = {
  Project: { key: "project_id", readRule: "project" },
  Teacher: { key: "teacher_id", readRule: "teacher" },
  Student: { key: "student_id", readRule: "student" },
} as const satisfies Record<string, { key: string; readRule: RootField }>;

export type NodeTypeName = keyof typeof NODE_TYPES;

/** The most ids one `nodes` query may ask for, like the most items of a page. */
export const NODES_MAX_IDS = PAGE_MAX_LIMIT;

const GLOBAL_ID_TEXT = /^(Project|Teacher|Student):([1-9][0-9]{0,15})$/;

/**
 * The type of a Node record. The records are plain objects; only a project has project_id, and projects also carry
 * teacher_id. Also set on the built schema as it is (schema.ts): type-graphql wraps a resolveType in an async function,
 * which costs a promise per object and which compiled execution (graphql-jit) does not wait for.
 */
export function nodeTypeOf(value: Record<string, unknown>): NodeTypeName {
  return "project_id" in value ? "Project" : "student_id" in value ? "Student" : "Teacher";
}

@InterfaceType("Node", {
  description: "An object with a global id: clients cache it by __typename and id, and refetch it with node(id)",
  resolveType: nodeTypeOf,
})
export abstract class Node {
  @Field(() => ID, {
    description: "Opaque, stable, global id of this object; the same in every answer, never reused for another",
  })
  id!: string;
}

export { globalIdOf };

/** The type and key a global id names; null for anything this service did not hand out. */
export function parseGlobalId(globalId: string): { type: NodeTypeName; id: number } | null {
  const match = GLOBAL_ID_TEXT.exec(Buffer.from(globalId, "base64url").toString("utf8"));
  if (!match) return null;
  const type = match[1] as NodeTypeName;
  const id = Number(match[2]);
  // Only the canonical spelling names a record, so one record has exactly one id.
  return Number.isSafeInteger(id) && globalIdOf(type, id) === globalId ? { type, id } : null;
}

/**
 * The object a global id names, through the request's loaders (so the ids of one request are read in one batch per
 * type): null when the id is malformed or unknown, or names a type the caller may not read (a Student for a student).
 */
export function loadNode(ctx: Context, globalId: string): Promise<object | null> | null {
  const parsed = parseGlobalId(globalId);
  if (!parsed || !allows(ctx.caller, NODE_TYPES[parsed.type].readRule)) return null;
  switch (parsed.type) {
    case "Project":
      return ctx.loaders.projectById.load(parsed.id);
    case "Teacher":
      return ctx.loaders.teacherById.load(parsed.id);
    case "Student":
      return ctx.loaders.studentById.load(parsed.id);
  }
}

/** loadNode for each id, in order; more than NODES_MAX_IDS ids is BAD_REQUEST naming `ids`. */
export function loadNodes(ctx: Context, globalIds: readonly string[]): Promise<(object | null)[]> {
  if (globalIds.length > NODES_MAX_IDS) {
    throw badRequest(
      `ids may name at most ${NODES_MAX_IDS} objects; ask for the rest in another query`,
      "ids",
      FieldErrorReason.OUT_OF_RANGE,
    );
  }
  return Promise.all(globalIds.map((id) => loadNode(ctx, id)));
}

/** The resolver of `id` for a node type: derived from the record's key, never stored. */
export function NodeIdResolver<T extends object>(type: ClassType<T>, typeName: NodeTypeName) {
  const { key } = NODE_TYPES[typeName];
  @Resolver(() => type)
  class IdResolver implements Partial<ResolverInterface<{ id: string }>> {
    @FieldResolver(() => ID, {
      description: `Opaque, stable, global id of this ${typeName} (Node); ${key} stays its number in this API`,
    })
    id(@Root() record: Record<string, unknown>): string {
      return globalIdOf(typeName, record[key] as number);
    }
  }
  Object.defineProperty(IdResolver, "name", { value: `${typeName}IdResolver` });
  return IdResolver;
}
