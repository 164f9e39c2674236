// GraphQL inputs of the project operations. Shapes only: values are checked by ProjectService against the zod
// shapes of project.schemas.ts; `implements` and SameFields make the compiler keep these classes equal to them.
import { ArgsType, Field, InputType, Int } from "type-graphql";
import { PageArgs } from "../../graphql/page.types";
import type { SameFields } from "../../shared/validation";
import type {
  AssignTeacherValues,
  CreateProjectValues,
  ProjectFilter,
  UpdateProjectStatusValues,
} from "./project.schemas";

@InputType()
export class CreateProjectInput implements CreateProjectValues {
  @Field()
  project_name!: string;

  @Field()
  project_desc!: string;

  @Field(() => Int)
  company_id!: number;

  @Field()
  project_status!: string;

  @Field(() => String, { nullable: true })
  project_url?: string | null;

  @Field({ description: "YYYY-MM-DD" })
  start_date!: string;

  @Field({ description: "YYYY-MM-DD, not before start_date" })
  end_date!: string;
}

@InputType()
export class AssignTeacherInput implements AssignTeacherValues {
  @Field(() => Int)
  new_teacher_id!: number;

  @Field(() => Int, {
    nullable: true,
    description: "When given and not the project's current revision: CONFLICT, nothing changes",
  })
  expected_revision?: number | null;
}

@InputType()
export class UpdateProjectStatusInput implements UpdateProjectStatusValues {
  @Field()
  project_status!: string;

  @Field(() => Int, {
    nullable: true,
    description: "When given and not the project's current revision: CONFLICT, nothing changes",
  })
  expected_revision?: number | null;
}

@InputType({ description: "Every field given narrows the list" })
export class ProjectFilterInput implements ProjectFilter {
  @Field(() => Int, { nullable: true })
  company_id?: number | null;

  @Field(() => String, { nullable: true })
  project_status?: string | null;

  @Field(() => Int, { nullable: true })
  teacher_id?: number | null;
}

true satisfies SameFields<CreateProjectInput, CreateProjectValues>;
true satisfies SameFields<AssignTeacherInput, AssignTeacherValues>;
true satisfies SameFields<UpdateProjectStatusInput, UpdateProjectStatusValues>;
true satisfies SameFields<ProjectFilterInput, ProjectFilter>;

// Argument sets as classes so the SDL lists arguments in the contract's order (projectId, then input).
@ArgsType()
export class AssignTeacherArgs {
  @Field(() => Int)
  projectId!: number;

  @Field(() => AssignTeacherInput)
  input!: AssignTeacherInput;
}

@ArgsType()
export class UpdateProjectStatusArgs {
  @Field(() => Int)
  projectId!: number;

  @Field(() => UpdateProjectStatusInput)
  input!: UpdateProjectStatusInput;
}

@ArgsType()
export class ProjectListArgs extends PageArgs {
  @Field(() => ProjectFilterInput, { nullable: true, description: "Every field given narrows the list" })
  filter?: ProjectFilterInput | null;
}
