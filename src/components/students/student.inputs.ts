// GraphQL inputs of the student operations, generated from the zod shapes of student.schemas.ts (graphql/
// input-types.ts): shapes only, values are checked by StudentService. Each name is also the type of the values.
import { GraphQLSafeInt } from "graphql-scalars";
import { ArgsType, Field } from "type-graphql";
import { StudentOrder, StudentWhere } from "./student.where.inputs";
import { inputTypeOf } from "../../graphql/input-types";
import { PageArgs } from "../../graphql/page.types";
import {
  CreateStudentSchema,
  StudentFilterSchema,
  UpdateStudentSchema,
  type CreateStudentValues,
  type StudentFilter,
  type UpdateStudentValues,
} from "./student.schemas";

export const UpdateStudentInput = inputTypeOf("UpdateStudentInput", UpdateStudentSchema);
export type UpdateStudentInput = UpdateStudentValues;

export const CreateStudentInput = inputTypeOf("CreateStudentInput", CreateStudentSchema);
export type CreateStudentInput = CreateStudentValues;

export const StudentFilterInput = inputTypeOf("StudentFilterInput", StudentFilterSchema);
export type StudentFilterInput = StudentFilter;

// Arguments as classes so the SDL lists them in the contract's order (studentId, then input).
@ArgsType()
export class UpdateStudentArgs {
  @Field(() => GraphQLSafeInt, { description: "The student's student_id" })
  studentId!: number;

  @Field(() => UpdateStudentInput, { description: "The fields to change" })
  input!: UpdateStudentInput;
}

@ArgsType()
export class StudentListArgs extends PageArgs {
  @Field(() => StudentFilterInput, { nullable: true, description: "Every field given narrows the list" })
  filter?: StudentFilterInput | null;

  @Field(() => StudentWhere, { nullable: true, description: "Which students the list holds (beside filter: both)" })
  where?: StudentWhere | null;

  @Field(() => StudentOrder, { nullable: true, description: "The list's order; default STUDENT_ID ASC" })
  orderBy?: StudentOrder | null;
}
