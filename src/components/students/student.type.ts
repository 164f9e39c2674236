// The GraphQL Student type.
import { GraphQLSafeInt } from "graphql-scalars";
import { Field, ObjectType } from "type-graphql";
import { PageType, PayloadType } from "../../graphql/envelope.types";

@ObjectType({ description: "A student" })
export class Student {
  @Field(() => GraphQLSafeInt)
  student_id!: number;

  @Field()
  student_name!: string;

  @Field({ description: "Stored lower-cased; unique" })
  email!: string;

  @Field()
  class_code!: string;
}

export const StudentPayload = PayloadType("StudentPayload", Student);
export const StudentPage = PageType("StudentPage", Student);
