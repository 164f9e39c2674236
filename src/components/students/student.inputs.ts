// GraphQL inputs of the student operations. Shapes only: values are checked by StudentService against the zod
// shapes of student.schemas.ts; `implements` and SameFields make the compiler keep these classes equal to them.
import { GraphQLSafeInt } from "graphql-scalars";
import { ArgsType, Field, InputType } from "type-graphql";
import { PageArgs } from "../../graphql/page.types";
import type { SameFields } from "../../shared/validation";
import type { CreateStudentValues, StudentFilter, UpdateStudentValues } from "./student.schemas";

@InputType({ description: "Fields left out (or null) stay as they are; with neither, nothing changes" })
export class UpdateStudentInput implements UpdateStudentValues {
  @Field(() => String, { nullable: true })
  student_name?: string | null;

  @Field(() => String, { nullable: true })
  class_code?: string | null;
}

@InputType()
export class CreateStudentInput implements CreateStudentValues {
  @Field()
  student_name!: string;

  @Field()
  email!: string;

  @Field()
  class_code!: string;
}

@InputType()
export class StudentFilterInput implements StudentFilter {
  @Field(() => String, { nullable: true })
  class_code?: string | null;
}

true satisfies SameFields<UpdateStudentInput, UpdateStudentValues>;
true satisfies SameFields<CreateStudentInput, CreateStudentValues>;
true satisfies SameFields<StudentFilterInput, StudentFilter>;

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
