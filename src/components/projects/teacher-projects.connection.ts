// Teacher.projectsConnection: a cursor page of a teacher's projects (Relay cursor connections), batched per request
// through a loader like Teacher.projects (teacher-projects.resolver.ts), and extending the teachers' type from here
// for the same reason: projects know teachers, teachers know nothing of projects.
import type { GraphQLResolveInfo } from "graphql";
import { Args, Ctx, FieldResolver, Info, Resolver, Root } from "type-graphql";
import type { Context } from "../../graphql/context";
import { connectionCost } from "../../graphql/query-cost";
import { selectsField } from "../../graphql/selection";
import type { Connection } from "../../shared/keyset-pagination";
import type { RelatedTeacher } from "../teachers";
import { Teacher } from "../teachers/graphql";
import { ProjectConnection, TeacherProjectsConnectionArgs } from "./project.connection";
import type { ProjectRecord } from "./project.service";

@Resolver(() => Teacher)
export class TeacherProjectsConnectionResolver {
  @FieldResolver(() => ProjectConnection, {
    complexity: connectionCost,
    description:
      "This teacher's projects in orderBy's order (default project_id), one page by cursor (Relay cursor connections)",
  })
  projectsConnection(
    @Root() teacher: RelatedTeacher,
    @Args() { where, orderBy, ...request }: TeacherProjectsConnectionArgs,
    @Ctx() ctx: Context,
    @Info() info: GraphQLResolveInfo,
  ): Promise<Connection<ProjectRecord>> {
    return ctx.loaders.projectsConnectionByTeacherId.load({
      ...request,
      teacher_id: teacher.teacher_id,
      totalCount: selectsField(info, "totalCount"),
      where: where ?? null,
      orderBy: orderBy ?? null,
    });
  }
}
