// GraphQL inputs of the project operations, generated from the zod shapes of project.schemas.ts (graphql/
// input-types.ts): shapes only, values are checked by ProjectService. Each name is also the type of the values.
import { ArgsType, Field, Int } from "type-graphql";
import { inputTypeOf } from "../../graphql/input-types";
import { PageArgs } from "../../graphql/page.types";
import {
  AssignTeacherSchema,
  CreateProjectSchema,
  ProjectFilterSchema,
  UpdateProjectStatusSchema,
  type AssignTeacherValues,
  type CreateProjectValues,
  type ProjectFilter,
  type UpdateProjectStatusValues,
} from "./project.schemas";

export const CreateProjectInput = inputTypeOf("CreateProjectInput", CreateProjectSchema);
export type CreateProjectInput = CreateProjectValues;

export const AssignTeacherInput = inputTypeOf("AssignTeacherInput", AssignTeacherSchema);
export type AssignTeacherInput = AssignTeacherValues;

export const UpdateProjectStatusInput = inputTypeOf("UpdateProjectStatusInput", UpdateProjectStatusSchema);
export type UpdateProjectStatusInput = UpdateProjectStatusValues;

export const ProjectFilterInput = inputTypeOf("ProjectFilterInput", ProjectFilterSchema);
export type ProjectFilterInput = ProjectFilter;

// Argument sets as classes so the SDL lists arguments in the contract's order (projectId, then input).
@ArgsType()
export class AssignTeacherArgs {
  @Field(() => Int, { description: "The project's project_id" })
  projectId!: number;

  @Field(() => AssignTeacherInput, { description: "The teacher to assign" })
  input!: AssignTeacherInput;
}

@ArgsType()
export class UpdateProjectStatusArgs {
  @Field(() => Int, { description: "The project's project_id" })
  projectId!: number;

  @Field(() => UpdateProjectStatusInput, { description: "The new status" })
  input!: UpdateProjectStatusInput;
}

@ArgsType()
export class ProjectListArgs extends PageArgs {
  @Field(() => ProjectFilterInput, { nullable: true, description: "Every field given narrows the list" })
  filter?: ProjectFilterInput | null;
}
