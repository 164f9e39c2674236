// GraphQL inputs of the student operations. Shapes only: values are checked by StudentService.
import { GraphQLSafeInt } from "graphql-scalars";
import { ArgsType, Field, InputType } from "type-graphql";
import { PageArgs } from "../../graphql/envelope.types";

@InputType({ description: "Fields left out (or null) stay as they are; with neither, nothing changes" })
export class UpdateStudentInput {
  @Field(() => String, { nullable: true })
  student_name?: string | null;

  @Field(() => String, { nullable: true })
  class_code?: string | null;
}

@InputType()
export class CreateStudentInput {
  @Field()
  student_name!: string;

  @Field()
  email!: string;

  @Field()
  class_code!: string;
}

@InputType()
export class StudentFilterInput {
  @Field(() => String, { nullable: true })
  class_code?: string | null;
}

// Arguments as classes so the SDL lists them in the contract's order (studentId, then input).
@ArgsType()
export class UpdateStudentArgs {
  @Field(() => GraphQLSafeInt)
  studentId!: number;

  @Field(() => UpdateStudentInput)
  input!: UpdateStudentInput;
}

@ArgsType()
export class StudentListArgs extends PageArgs {
  @Field(() => StudentFilterInput, { nullable: true })
  filter?: StudentFilterInput | null;
}
