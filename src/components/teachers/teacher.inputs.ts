// GraphQL inputs of the teacher operations. Shapes only: values are checked by TeacherService against the zod
// shapes of teacher.schemas.ts; `implements` and SameFields make the compiler keep these classes equal to them.
import { ArgsType, Field, InputType, Int } from "type-graphql";
import type { SameFields } from "../../shared/validation";
import type { CreateTeacherValues, UpdateTeacherValues } from "./teacher.schemas";

@InputType()
export class UpdateTeacherInput implements UpdateTeacherValues {
  @Field()
  teacher_name!: string;
}

@InputType()
export class CreateTeacherInput implements CreateTeacherValues {
  @Field()
  teacher_name!: string;
}

true satisfies SameFields<UpdateTeacherInput, UpdateTeacherValues>;
true satisfies SameFields<CreateTeacherInput, CreateTeacherValues>;

// Arguments as a class so the SDL lists them in the contract's order (teacherId, then input).
@ArgsType()
export class UpdateTeacherArgs {
  @Field(() => Int)
  teacherId!: number;

  @Field(() => UpdateTeacherInput)
  input!: UpdateTeacherInput;
}
