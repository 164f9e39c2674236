// The GraphQL Teacher type (projects are resolved in TeacherResolver through a loader).
import { Field, Int, ObjectType } from "type-graphql";
import { PageType, PayloadType } from "../../graphql/envelope.types";

@ObjectType({ description: "A teacher who may be assigned to projects" })
export class Teacher {
  @Field(() => Int)
  teacher_id!: number;

  @Field()
  teacher_name!: string;
}

export const TeacherPayload = PayloadType("TeacherPayload", Teacher);
export const TeacherPage = PageType("TeacherPage", Teacher);
