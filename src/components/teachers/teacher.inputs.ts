// GraphQL inputs of the teacher operations. Shapes only: values are checked by TeacherService.
import { ArgsType, Field, InputType, Int } from "type-graphql";

@InputType()
export class UpdateTeacherInput {
  @Field()
  teacher_name!: string;
}

@InputType()
export class CreateTeacherInput {
  @Field()
  teacher_name!: string;
}

// Arguments as a class so the SDL lists them in the contract's order (teacherId, then input).
@ArgsType()
export class UpdateTeacherArgs {
  @Field(() => Int)
  teacherId!: number;

  @Field(() => UpdateTeacherInput)
  input!: UpdateTeacherInput;
}
