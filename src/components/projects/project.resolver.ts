// GraphQL entry points of projects: decode, call one service function, return. Mutation results are wrapped in
// the ProjectPayload envelope by graphql/mutation-payloads.ts.
import type { GraphQLResolveInfo } from "graphql";
import { Arg, Args, Authorized, Ctx, FieldResolver, Info, Int, Mutation, Query, Resolver, Root } from "type-graphql";
import { rolesFor } from "../../auth/access-policy";
import { countsCost, listCost } from "../../graphql/query-cost";
import { actorOf } from "../../auth/actor";
import type { Context } from "../../graphql/context";
import { PageArgs } from "../../graphql/page.types";
import { DeletedPayload } from "../../graphql/payload.types";
import type { DeletedRecord } from "../../shared/global-id";
import { fieldsSelectedAt, selectsField } from "../../graphql/selection";
import type { RelatedTeacher } from "../teachers";
import { Teacher } from "../teachers/graphql";
import {
  AssignTeacherArgs,
  CreateProjectInput,
  ProjectCountsArgs,
  ProjectListArgs,
  UpdateProjectStatusArgs,
} from "./project.inputs";
import { ProjectCounts } from "./project.where.inputs";
import type { ProjectChangeRecord, ProjectRecord } from "./project.service";
import { projectFieldsFor } from "./project.selection";
import type { Page } from "../../shared/pagination";
import { Project, ProjectChangePage, ProjectPage, ProjectPayload } from "./project.type";

@Resolver(() => Project)
export class ProjectResolver {
  @Authorized(rolesFor("project"))
  @Query(() => Project, {
    nullable: true,
    description: "A project by id; null when none has that id, or when the caller's row rules (ACCESS_POLICY) hide it",
  })
  async project(
    @Arg("projectId", () => Int, { description: "The project's project_id" }) projectId: number,
    @Ctx() ctx: Context,
    @Info() info: GraphQLResolveInfo,
  ): Promise<ProjectRecord | null> {
    const selected = fieldsSelectedAt(info, []);
    const fields = projectFieldsFor(selected);
    const { access } = ctx;
    if (!selected.has("teacher")) return ctx.services.projects.get(projectId, { fields, access });
    // With its teacher, in one command; Project.teacher then answers it from the loader at once.
    const { project, teacher } = await ctx.services.projects.getWithTeacher(projectId, { fields, access });
    if (project?.teacher_id != null && teacher !== undefined)
      ctx.loaders.teacherById.prime(project.teacher_id, teacher);
    return project;
  }

  @Authorized(rolesFor("projects"))
  @Query(() => ProjectPage, {
    complexity: listCost,
    description: "Projects in orderBy's order (default project_id), optionally filtered",
  })
  async projects(
    @Args() { filter, where, orderBy, offset, limit }: ProjectListArgs,
    @Ctx() ctx: Context,
    @Info() info: GraphQLResolveInfo,
  ) {
    const itemFields = fieldsSelectedAt(info, ["items"]);
    const teachers = itemFields.has("teacher");
    const page = await ctx.services.projects.list(
      filter ?? {},
      { offset, limit },
      {
        total: selectsField(info, "total"),
        fields: projectFieldsFor(itemFields),
        access: ctx.access,
        teachers,
        where,
        orderBy,
      },
    );
    // The page's teachers came in its command: each item's teacher answers at once from the loader.
    if (page.teachers) primeTeachers(page.teachers, ctx);
    return page;
  }

  @Authorized(rolesFor("projectCounts"))
  @Query(() => ProjectCounts, {
    complexity: countsCost,
    description:
      "How many projects a where (and filter) matches, and with groupBy how many per value (a board's columns); only projects the caller may read count",
  })
  projectCounts(@Args() { where, filter, groupBy }: ProjectCountsArgs, @Ctx() ctx: Context) {
    return ctx.services.projects.counts(filter ?? {}, { where, groupBy, access: ctx.access });
  }

  @Authorized(rolesFor("projectStatuses"))
  @Query(() => [String], { description: "Statuses allowed by PROJECT_STATUS_WORKFLOW; empty when any is allowed" })
  projectStatuses(@Ctx() ctx: Context): string[] {
    return ctx.services.projects.statuses();
  }

  @Authorized(rolesFor("createProject"))
  @Mutation(() => ProjectPayload, {
    description: "Creates a project (roles: student, admin); its project_name must be new for its company_id",
  })
  createProject(
    @Arg("input", () => CreateProjectInput, { description: "The new project's fields" }) input: CreateProjectInput,
    @Ctx() ctx: Context,
  ): Promise<ProjectRecord> {
    return ctx.services.projects.create(input, actorOf(ctx.caller), ctx.access);
  }

  @Authorized(rolesFor("assignTeacher"))
  @Mutation(() => ProjectPayload, { description: "Assigns a teacher to a project (roles: teacher, admin)" })
  async assignTeacher(@Args() { projectId, input }: AssignTeacherArgs, @Ctx() ctx: Context): Promise<ProjectRecord> {
    const project = await ctx.services.projects.assignTeacher(projectId, input, actorOf(ctx.caller), ctx.access);
    ctx.loaders.projectsByTeacherId.clearAll();
    ctx.loaders.projectsConnectionByTeacherId.clearAll();
    return project;
  }

  @Authorized(rolesFor("updateProjectStatus"))
  @Mutation(() => ProjectPayload, {
    description: "Changes a project's status (any authenticated caller), as PROJECT_STATUS_WORKFLOW allows",
  })
  async updateProjectStatus(
    @Args() { projectId, input }: UpdateProjectStatusArgs,
    @Ctx() ctx: Context,
  ): Promise<ProjectRecord> {
    const project = await ctx.services.projects.updateStatus(projectId, input, actorOf(ctx.caller), ctx.access);
    ctx.loaders.projectsByTeacherId.clearAll();
    ctx.loaders.projectsConnectionByTeacherId.clearAll();
    return project;
  }

  @Authorized(rolesFor("archiveProject"))
  @Mutation(() => ProjectPayload, {
    description:
      "Archives a project (roles: student, teacher, admin, within ACCESS_POLICY's change rule): out of lists and counts, read-only until unarchived",
  })
  async archiveProject(
    @Arg("projectId", () => Int, { description: "The project's project_id" }) projectId: number,
    @Ctx() ctx: Context,
  ): Promise<ProjectRecord> {
    const project = await ctx.services.projects.archive(projectId, actorOf(ctx.caller), ctx.access);
    this.changed(ctx);
    return project;
  }

  @Authorized(rolesFor("unarchiveProject"))
  @Mutation(() => ProjectPayload, {
    description: "Unarchives a project (roles: student, teacher, admin, within ACCESS_POLICY's change rule)",
  })
  async unarchiveProject(
    @Arg("projectId", () => Int, { description: "The project's project_id" }) projectId: number,
    @Ctx() ctx: Context,
  ): Promise<ProjectRecord> {
    const project = await ctx.services.projects.unarchive(projectId, actorOf(ctx.caller), ctx.access);
    this.changed(ctx);
    return project;
  }

  @Authorized(rolesFor("deleteProject"))
  @Mutation(() => DeletedPayload, {
    description:
      "Deletes a project (role: admin): gone from every read, its name free again; the change log keeps its last entry",
  })
  async deleteProject(
    @Arg("projectId", () => Int, { description: "The project's project_id" }) projectId: number,
    @Ctx() ctx: Context,
  ): Promise<DeletedRecord> {
    const deleted = await ctx.services.projects.delete(projectId, actorOf(ctx.caller), ctx.access);
    this.changed(ctx);
    return deleted;
  }

  /** After a change, a teacher's lists read in the same request read it again. */
  private changed(ctx: Context): void {
    ctx.loaders.projectsByTeacherId.clearAll();
    ctx.loaders.projectsConnectionByTeacherId.clearAll();
  }

  @FieldResolver(() => Teacher, { nullable: true, description: "The assigned teacher; null until one is assigned" })
  teacher(@Root() project: ProjectRecord, @Ctx() ctx: Context): RelatedTeacher | null | Promise<RelatedTeacher | null> {
    return project.teacher_id == null ? null : ctx.loaders.teacherById.loadSettled(project.teacher_id);
  }

  @FieldResolver(() => ProjectChangePage, {
    complexity: listCost,
    description: "Every change of this project, newest first",
  })
  history(
    @Root() project: ProjectRecord,
    @Args() { offset, limit }: PageArgs,
    @Ctx() ctx: Context,
  ): Promise<Page<ProjectChangeRecord>> {
    return ctx.services.projects.history(project, { offset, limit });
  }
}

/**
 * Primes the teacher loader with the teachers a page read in its own command (the service's `teachers` option), so
 * each Project.teacher answers at once (settled-loader.ts) instead of a promise per item.
 */
export function primeTeachers(teachers: ReadonlyMap<number, RelatedTeacher | null>, ctx: Context): void {
  for (const [teacherId, teacher] of teachers) ctx.loaders.teacherById.prime(teacherId, teacher);
}
