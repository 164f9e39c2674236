// The GraphQL Teacher type (projects are resolved in TeacherResolver through a loader).
import { Field, Int, ObjectType } from "type-graphql";
import { PageType } from "../../graphql/page.types";
import { PayloadType } from "../../graphql/payload.types";
import type { TeacherRecord } from "./teacher.service";

@ObjectType({ description: "A teacher who may be assigned to projects" })
// The record's timestamps are not part of the contract's Teacher type.
export class Teacher implements Omit<TeacherRecord, "created_at" | "updated_at"> {
  @Field(() => Int)
  teacher_id!: number;

  @Field()
  teacher_name!: string;
}

export const TeacherPayload = PayloadType("TeacherPayload", Teacher);
export const TeacherPage = PageType("TeacherPage", Teacher);
