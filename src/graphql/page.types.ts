// GraphQL types of the list pages every component returns: PageType (`XPage { items total offset limit has_more }`)
// and the offset/limit arguments of every list query.
import { ArgsType, Field, Int, ObjectType, type ClassType } from "type-graphql";
import { PAGE_DEFAULT_LIMIT, PAGE_MAX_LIMIT, PAGE_MAX_OFFSET } from "../shared/pagination";

/** What a page type says of itself, its total and has_more; by default, a list ordered by id. */
interface PageDescriptions {
  type: string;
  total: string;
  has_more: string;
}

/** `XPage { items total offset limit has_more }`: one page of a list. */
export function PageType<T extends object>(
  name: string,
  itemType: ClassType<T>,
  descriptions: PageDescriptions = {
    type: `One page of ${itemType.name} items, ordered by id`,
    total: "Items matching the filter, over all pages",
    has_more: "True when items follow this page",
  },
) {
  @ObjectType(name, { simpleResolvers: true, description: descriptions.type })
  class Page {
    @Field(() => [itemType], { description: "The items of this page" })
    items!: T[];

    @Field(() => Int, { description: descriptions.total })
    total!: number;

    @Field(() => Int, { description: "Items skipped before this page, as asked" })
    offset!: number;

    @Field(() => Int, { description: "The page size asked for" })
    limit!: number;

    @Field({ description: descriptions.has_more })
    has_more!: boolean;
  }
  return Page;
}

/** offset and limit of every list query. */
@ArgsType()
export class PageArgs {
  @Field(() => Int, { defaultValue: 0, description: `Items to skip (0 to ${PAGE_MAX_OFFSET})` })
  offset!: number;

  @Field(() => Int, { defaultValue: PAGE_DEFAULT_LIMIT, description: `Page size, 1 to ${PAGE_MAX_LIMIT}` })
  limit!: number;
}
