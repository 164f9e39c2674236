// GraphQL inputs of the project operations, generated from the zod shapes of project.schemas.ts (graphql/
// input-types.ts): shapes only, values are checked by ProjectService. Each name is also the type of the values.
import { ArgsType, Field, Int } from "type-graphql";
import { inputTypeOf } from "../../graphql/input-types";
import { PageArgs } from "../../graphql/page.types";
import { ProjectGroupField, ProjectOrder, ProjectWhere } from "./project.where.inputs";
import type { ProjectGroupField as ProjectGroupFieldValue } from "./project.where";
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

/** where and orderBy of every list of projects (contract, sixth revision). */
@ArgsType()
export class ProjectWhereArgs {
  @Field(() => ProjectWhere, { nullable: true, description: "Which projects the list holds (beside filter: both)" })
  where?: ProjectWhere | null;

  @Field(() => ProjectOrder, { nullable: true, description: "The list's order; default PROJECT_ID ASC" })
  orderBy?: ProjectOrder | null;
}

@ArgsType()
export class ProjectListArgs extends PageArgs {
  @Field(() => ProjectFilterInput, { nullable: true, description: "Every field given narrows the list" })
  filter?: ProjectFilterInput | null;

  @Field(() => ProjectWhere, { nullable: true, description: "Which projects the list holds (beside filter: both)" })
  where?: ProjectWhere | null;

  @Field(() => ProjectOrder, { nullable: true, description: "The list's order; default PROJECT_ID ASC" })
  orderBy?: ProjectOrder | null;
}

/** A teacher's page of projects (Teacher.projects). */
@ArgsType()
export class TeacherProjectsArgs extends PageArgs {
  @Field(() => ProjectWhere, { nullable: true, description: "Which of the teacher's projects the list holds" })
  where?: ProjectWhere | null;

  @Field(() => ProjectOrder, { nullable: true, description: "The list's order; default PROJECT_ID ASC" })
  orderBy?: ProjectOrder | null;
}

@ArgsType()
export class ProjectCountsArgs {
  @Field(() => ProjectWhere, { nullable: true, description: "Which projects are counted" })
  where?: ProjectWhere | null;

  @Field(() => ProjectFilterInput, { nullable: true, description: "Every field given narrows what is counted" })
  filter?: ProjectFilterInput | null;

  @Field(() => ProjectGroupField, { nullable: true, description: "The field counted by; none: groups is empty" })
  groupBy?: ProjectGroupFieldValue | null;
}
