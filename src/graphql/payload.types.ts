// GraphQL types of the mutation payload every component returns: the ErrorCode enum, FieldError and PayloadType
// (`XPayload { success message code data errors }`). List pages are in page.types.ts.
import { Field, ID, ObjectType, registerEnumType, type ClassType } from "type-graphql";
import type { DeletedRecord as DeletedRecordValue } from "../shared/global-id";
import { ErrorCode, FIELD_ERROR_REASONS, FieldErrorReason, type FieldError as FieldErrorValue } from "../shared/errors";

registerEnumType(ErrorCode, {
  name: "ErrorCode",
  description: "Why an operation failed",
  valuesConfig: {
    BAD_REQUEST: { description: "The request or a value in it is invalid (HTTP 400)" },
    UNAUTHORIZED: { description: "Not authenticated, or no acting role where one is needed (HTTP 401)" },
    FORBIDDEN: { description: "The acting role may not run the operation (HTTP 403)" },
    NOT_FOUND: { description: "The resource, or one it refers to, does not exist (HTTP 404)" },
    CONFLICT: { description: "The change collides with the current state (HTTP 409)" },
    INTERNAL_SERVER_ERROR: { description: "An unexpected failure, logged by the service (HTTP 500)" },
    TOO_MANY_REQUESTS: { description: "Over RATE_LIMIT_PER_MINUTE; retry after Retry-After seconds (HTTP 429)" },
    SERVICE_UNAVAILABLE: {
      description:
        "The service sheds load: a change did not get its turn at the database in time; retry after Retry-After seconds (HTTP 503)",
    },
  },
});

registerEnumType(FieldErrorReason, {
  name: "FieldErrorReason",
  description:
    "Why a field (or the request) was refused, for code: translate by it, not by message, which is English for people",
  valuesConfig: Object.fromEntries(
    Object.entries(FIELD_ERROR_REASONS).map(([reason, description]) => [reason, { description }]),
  ),
});

@ObjectType({
  simpleResolvers: true,
  description: "One problem of a mutation, tied to the input field or argument it concerns",
})
export class FieldError implements FieldErrorValue {
  @Field(() => String, {
    nullable: true,
    description: "The input field or argument as the interface names it (end_date, projectId); null: no single field",
  })
  field!: string | null;

  @Field({ description: "What is wrong and how to fix it, naming the field" })
  message!: string;

  @Field(() => ErrorCode, { description: "The failure's code, as the payload's code says for the first problem" })
  code!: ErrorCode;

  @Field(() => FieldErrorReason, { description: "Why, for code (a frontend translates by it)" })
  reason!: FieldErrorReason;
}

/** `XPayload { success message code data errors }`: the envelope every mutation returns, never null. */
export function PayloadType<T extends object>(name: string, dataType: ClassType<T>) {
  @ObjectType(name, {
    simpleResolvers: true,
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

@ObjectType({ simpleResolvers: true, description: "What a deletion names: the global id of what is gone" })
export class DeletedRecord implements DeletedRecordValue {
  @Field(() => ID, { description: "The global id (Node id) of the deleted record" })
  id!: string;
}

/** The payload of every deletion (deleteTeacher, deleteStudent). */
export const DeletedPayload = PayloadType("DeletedPayload", DeletedRecord);
