// GraphQL inputs of the teacher operations, generated from the zod shapes of teacher.schemas.ts (graphql/
// input-types.ts): shapes only, values are checked by TeacherService. Each name is also the type of the values.
import { ArgsType, Field, Int } from "type-graphql";
import { inputTypeOf } from "../../graphql/input-types";
import { PageArgs } from "../../graphql/page.types";
import { TeacherOrder, TeacherWhere } from "./teacher.where.inputs";
import {
  CreateTeacherSchema,
  UpdateTeacherSchema,
  type CreateTeacherValues,
  type UpdateTeacherValues,
} from "./teacher.schemas";

export const UpdateTeacherInput = inputTypeOf("UpdateTeacherInput", UpdateTeacherSchema);
export type UpdateTeacherInput = UpdateTeacherValues;

export const CreateTeacherInput = inputTypeOf("CreateTeacherInput", CreateTeacherSchema);
export type CreateTeacherInput = CreateTeacherValues;

// Arguments as a class so the SDL lists them in the contract's order (teacherId, then input).
@ArgsType()
export class UpdateTeacherArgs {
  @Field(() => Int, { description: "The teacher's teacher_id" })
  teacherId!: number;

  @Field(() => UpdateTeacherInput, { description: "The new values" })
  input!: UpdateTeacherInput;
}

/** Query.teachers' arguments: the page, where and orderBy (contract, sixth revision). */
@ArgsType()
export class TeacherListArgs extends PageArgs {
  @Field(() => TeacherWhere, { nullable: true, description: "Which teachers the list holds" })
  where?: TeacherWhere | null;

  @Field(() => TeacherOrder, { nullable: true, description: "The list's order; default TEACHER_ID ASC" })
  orderBy?: TeacherOrder | null;
}
