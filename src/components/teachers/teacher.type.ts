// The GraphQL Teacher type (projects are resolved in TeacherResolver through a loader).
import { Field, Int, ObjectType } from "type-graphql";
import { Node } from "../../graphql/node";
import { PageType } from "../../graphql/page.types";
import { PayloadType } from "../../graphql/payload.types";
import type { HasFields } from "../../shared/field-checks";
import type { TeacherRecord } from "./teacher.service";

@ObjectType({ simpleResolvers: true, description: "A teacher who may be assigned to projects", implements: Node })
// The record's timestamps are not part of the contract's Teacher type.
export class Teacher implements Omit<TeacherRecord, "created_at" | "updated_at"> {
  @Field(() => Int, { description: "The teacher's id, given by the service: a whole number from 1" })
  teacher_id!: number;

  @Field({ description: "Trimmed, 1–200 characters" })
  teacher_name!: string;
}

// The compiler names a field declared on one side only (the class also `implements` the record, for the types).
true satisfies HasFields<
  Teacher,
  Omit<TeacherRecord, "created_at" | "updated_at">,
  "stored (TEACHER_FIELDS in teacher.fields.ts) but not in the GraphQL type Teacher: add it with @Field() to teacher.type.ts"
>;
true satisfies HasFields<
  Omit<TeacherRecord, "created_at" | "updated_at">,
  Teacher,
  "in the GraphQL type Teacher but not stored: add it to TEACHER_FIELDS in teacher.fields.ts"
>;

export const TeacherPayload = PayloadType("TeacherPayload", Teacher);
export const TeacherPage = PageType("TeacherPage", Teacher);
