// The GraphQL Student type.
import { GraphQLSafeInt } from "graphql-scalars";
import { Field, ObjectType } from "type-graphql";
import { PageType } from "../../graphql/page.types";
import { PayloadType } from "../../graphql/payload.types";
import type { StudentRecord } from "./student.service";

@ObjectType({ description: "A student" })
// The record's timestamps are not part of the contract's Student type.
export class Student implements Omit<StudentRecord, "created_at" | "updated_at"> {
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
