// GraphQL types of the mutation payload every component returns: the ErrorCode enum, FieldError and PayloadType
// (`XPayload { success message code data errors }`). List pages are in page.types.ts.
import { Field, ObjectType, registerEnumType, type ClassType } from "type-graphql";
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
  @ObjectType(name, {
    description: `Result of a mutation returning ${dataType.name}: data on success, code and message on failure`,
  })
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
      description:
        "Empty on success; on failure every problem found (all invalid fields at once), the first being message and code",
    })
    errors!: FieldError[];
  }
  return Payload;
}
