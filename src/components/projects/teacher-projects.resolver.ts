// Teacher.projects: a page of a teacher's projects. It extends the teachers' GraphQL type from here, the component
// whose data it returns, so the dependency runs one way: projects know teachers, teachers know nothing of projects.
import type { GraphQLResolveInfo } from "graphql";
import { Args, Ctx, FieldResolver, Info, Resolver, Root } from "type-graphql";
import type { Context } from "../../graphql/context";
import { fieldsSelectedAt } from "../../graphql/selection";
import { TeacherProjectsArgs } from "./project.inputs";
import { listCost } from "../../graphql/query-cost";
import type { RelatedTeacher } from "../teachers";
import { Teacher } from "../teachers/graphql";
import type { ProjectRecord } from "./project.service";
import { projectFieldsFor } from "./project.selection";
import { Project } from "./project.type";

@Resolver(() => Teacher)
export class TeacherProjectsResolver {
  @FieldResolver(() => [Project], {
    complexity: listCost,
    description: "A page of this teacher's projects, in orderBy's order (default project_id)",
  })
  projects(
    @Root() teacher: RelatedTeacher,
    @Args() { offset, limit, where, orderBy }: TeacherProjectsArgs,
    @Ctx() ctx: Context,
    @Info() info: GraphQLResolveInfo,
  ): Promise<ProjectRecord[]> {
    const fields = projectFieldsFor(fieldsSelectedAt(info, []));
    return ctx.loaders.projectsByTeacherId.load({
      teacher_id: teacher.teacher_id,
      offset,
      limit,
      fields,
      where: where ?? null,
      orderBy: orderBy ?? null,
    });
  }
}
