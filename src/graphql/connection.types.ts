// GraphQL types of the cursor connections (the Relay cursor connections specification) every component returns:
// PageInfo, ConnectionType (`XConnection { edges nodes pageInfo totalCount }` with `XEdge { cursor node }`) and the
// first/after/last/before arguments. The pages themselves are built by the services (shared/keyset-pagination.ts).
import { ArgsType, Field, Int, ObjectType, type ClassType } from "type-graphql";
import { PAGE_DEFAULT_LIMIT, PAGE_MAX_LIMIT } from "../shared/pagination";
import type { ConnectionRequest } from "../shared/keyset-pagination";

@ObjectType({
  simpleResolvers: true,
  description: "Where a page of a connection lies in its list (Relay cursor connections)",
})
export class PageInfo {
  @Field({
    description:
      "Paging forward (first): true when items follow this page. Paging backward (last): false, as the Relay specification allows",
  })
  hasNextPage!: boolean;

  @Field({
    description:
      "Paging backward (last): true when items precede this page. Paging forward (first): false, as the Relay specification allows",
  })
  hasPreviousPage!: boolean;

  @Field(() => String, { nullable: true, description: "The cursor of the first edge; null when the page is empty" })
  startCursor!: string | null;

  @Field(() => String, { nullable: true, description: "The cursor of the last edge; null when the page is empty" })
  endCursor!: string | null;
}

/** `XConnection { edges nodes pageInfo totalCount }` and `XEdge { cursor node }` of a node type named X. */
export function ConnectionType<T extends object>(nodeType: ClassType<T>, orderedBy: string) {
  const name = nodeType.name;

  @ObjectType(`${name}Edge`, {
    simpleResolvers: true,
    description: `One ${name} of a ${name}Connection and its cursor`,
  })
  class Edge {
    @Field({ description: "Opaque position of this node: pass it as after or before to page from here" })
    cursor!: string;

    @Field(() => nodeType, { description: `The ${name}` })
    node!: T;
  }

  @ObjectType(`${name}Connection`, {
    simpleResolvers: true,
    description: `One page of ${name} items ordered by ${orderedBy}, by cursor (Relay cursor connections)`,
  })
  class Connection {
    @Field(() => [Edge], { description: "The page's items with their cursors" })
    edges!: Edge[];

    @Field(() => [nodeType], { description: "The page's items, as in edges, without cursors" })
    nodes!: T[];

    @Field(() => PageInfo, { description: "Cursors of this page's ends and whether items lie beyond them" })
    pageInfo!: PageInfo;

    @Field(() => Int, { description: "Items in the whole list (over all pages); counted only when asked for" })
    totalCount!: number;
  }
  return Connection;
}

/** first/after/last/before of every connection, in the specification's order. */
@ArgsType()
export class ConnectionArgs implements ConnectionRequest {
  @Field(() => Int, {
    nullable: true,
    description: `Page forward: this many items (0 to ${PAGE_MAX_LIMIT}) after \`after\`, or from the start. Without first and last: the first ${PAGE_DEFAULT_LIMIT}`,
  })
  first?: number | null;

  @Field(() => String, { nullable: true, description: "A cursor (from edges or pageInfo): the page starts after it" })
  after?: string | null;

  @Field(() => Int, {
    nullable: true,
    description: `Page backward: this many items (0 to ${PAGE_MAX_LIMIT}) before \`before\`, or up to the end. Not with first`,
  })
  last?: number | null;

  @Field(() => String, { nullable: true, description: "A cursor (from edges or pageInfo): the page ends before it" })
  before?: string | null;
}
