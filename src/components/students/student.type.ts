// The GraphQL Student type.
import { GraphQLSafeInt } from "graphql-scalars";
import { Field, ObjectType } from "type-graphql";
import { Node } from "../../graphql/node";
import { PageType } from "../../graphql/page.types";
import { PayloadType } from "../../graphql/payload.types";
import type { HasFields } from "../../shared/field-checks";
import type { StudentRecord } from "./student.service";

@ObjectType({ simpleResolvers: true, description: "A student", implements: Node })
// The record's timestamps are not part of the contract's Student type.
export class Student implements Omit<StudentRecord, "created_at" | "updated_at"> {
  @Field(() => GraphQLSafeInt, { description: "int64 (within ±(2^53−1))" })
  student_id!: number;

  @Field({ description: "Trimmed, 1–200 characters" })
  student_name!: string;

  @Field({ description: "Stored lower-cased; unique" })
  email!: string;

  @Field({ description: "The student's class, 1–32 characters" })
  class_code!: string;
}

// The compiler names a field declared on one side only (the class also `implements` the record, for the types).
true satisfies HasFields<
  Student,
  Omit<StudentRecord, "created_at" | "updated_at">,
  "stored (STUDENT_FIELDS in student.fields.ts) but not in the GraphQL type Student: add it with @Field() to student.type.ts"
>;
true satisfies HasFields<
  Omit<StudentRecord, "created_at" | "updated_at">,
  Student,
  "in the GraphQL type Student but not stored: add it to STUDENT_FIELDS in student.fields.ts"
>;

export const StudentPayload = PayloadType("StudentPayload", Student);
export const StudentPage = PageType("StudentPage", Student);
