// GraphQL shapes shared by every component: the ErrorCode enum, the mutation payload and the list page.
import { ArgsType, Field, Int, ObjectType, registerEnumType, type ClassType } from "type-graphql";
import { PAGE_DEFAULT_LIMIT, PAGE_MAX_LIMIT, PAGE_MAX_OFFSET } from "../shared/pagination";
import { ErrorCode, type FieldError as FieldErrorValue } from "../shared/errors";

registerEnumType(ErrorCode, { name: "ErrorCode", description: "Why an operation failed" });

@ObjectType({ description: "One problem of a mutation, tied to the input field or argument it concerns" })
export class FieldError implements FieldErrorValue {
  @Field(() => String, {
    nullable: true,
    description: "The input field or argument as the interface names it (end_date, projectId); null: no single field",
  })
  field!: string | null;

  @Field({ description: "What is wrong and how to fix it, naming the field" })
  message!: string;

  @Field(() => ErrorCode)
  code!: ErrorCode;
}

/** `XPayload { success message code data errors }`: the envelope every mutation returns, never null. */
export function PayloadType<T extends object>(name: string, dataType: ClassType<T>) {
  @ObjectType(name, { description: `Result of a mutation returning ${dataType.name}: data on success, code and message on failure` })
  class Payload {
    @Field({ description: "True when the operation succeeded" })
    success!: boolean;

    @Field(() => String, { nullable: true, description: "What happened, or what to fix" })
    message!: string | null;

    @Field(() => ErrorCode, { nullable: true, description: "Set on failure" })
    code!: ErrorCode | null;

    @Field(() => dataType, { nullable: true, description: "The resource after the change; null on failure" })
    data!: T | null;

    @Field(() => [FieldError], {
      description: "Empty on success; on failure every problem found (all invalid fields at once), the first being message and code",
    })
    errors!: FieldError[];
  }
  return Payload;
}

/** `XPage { items total offset limit has_more }`: one page of a list ordered by id. */
export function PageType<T extends object>(name: string, itemType: ClassType<T>) {
  @ObjectType(name, { description: `One page of ${itemType.name} items, ordered by id` })
  class Page {
    @Field(() => [itemType])
    items!: T[];

    @Field(() => Int, { description: "Items matching the filter, over all pages" })
    total!: number;

    @Field(() => Int)
    offset!: number;

    @Field(() => Int)
    limit!: number;

    @Field({ description: "True when items follow this page" })
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
