// The GraphQL connection of projects (Relay cursor connections): ProjectConnection, ProjectEdge, the arguments of
// Query.projectsConnection and its entry point (decode, call one service function, return). Like a page of projects
// (project.resolver.ts), it reads only the fields its nodes' selection needs, and their teachers in the same command
// (an aggregation with $lookup), which answer the nodes' teacher fields from the loader. Teacher.projectsConnection
// (teacher-projects.connection.ts) answers the same type.
import type { GraphQLResolveInfo } from "graphql";
import { Args, ArgsType, Authorized, Ctx, Field, Info, Query, Resolver } from "type-graphql";
import { rolesFor } from "../../auth/access-policy";
import { ConnectionArgs, ConnectionType } from "../../graphql/connection.types";
import type { Context } from "../../graphql/context";
import { connectionCost } from "../../graphql/query-cost";
import { fieldsSelectedAt, selectsField } from "../../graphql/selection";
import type { Connection } from "../../shared/keyset-pagination";
import { ProjectFilterInput } from "./project.inputs";
import { ProjectOrder, ProjectWhere } from "./project.where.inputs";
import { primeTeachers } from "./project.resolver";
import { projectFieldsFor } from "./project.selection";
import type { ProjectRecord } from "./project.service";
import { Project } from "./project.type";

export const ProjectConnection = ConnectionType(Project, "project_id");

@ArgsType()
export class ProjectConnectionArgs extends ConnectionArgs {
  @Field(() => ProjectFilterInput, { nullable: true, description: "Every field given narrows the list" })
  filter?: ProjectFilterInput | null;

  @Field(() => ProjectWhere, { nullable: true, description: "Which projects the list holds (beside filter: both)" })
  where?: ProjectWhere | null;

  @Field(() => ProjectOrder, {
    nullable: true,
    description: "The list's order; default PROJECT_ID ASC. Cursors are valid only in the order they came from",
  })
  orderBy?: ProjectOrder | null;
}

/** Teacher.projectsConnection's arguments. */
@ArgsType()
export class TeacherProjectsConnectionArgs extends ConnectionArgs {
  @Field(() => ProjectWhere, { nullable: true, description: "Which of the teacher's projects the list holds" })
  where?: ProjectWhere | null;

  @Field(() => ProjectOrder, {
    nullable: true,
    description: "The list's order; default PROJECT_ID ASC. Cursors are valid only in the order they came from",
  })
  orderBy?: ProjectOrder | null;
}

@Resolver()
export class ProjectConnectionResolver {
  @Authorized(rolesFor("projectsConnection"))
  @Query(() => ProjectConnection, {
    complexity: connectionCost,
    description:
      "Projects in orderBy's order (default project_id), optionally filtered, one page by cursor (Relay cursor connections)",
  })
  async projectsConnection(
    @Args() { filter, where, orderBy, ...request }: ProjectConnectionArgs,
    @Ctx() ctx: Context,
    @Info() info: GraphQLResolveInfo,
  ): Promise<Connection<ProjectRecord>> {
    // The fields of the nodes, under edges and nodes alike: only those are read, as for a page of projects.
    const nodeFields = new Set([...fieldsSelectedAt(info, ["edges", "node"]), ...fieldsSelectedAt(info, ["nodes"])]);
    const connection = await ctx.services.projects.pageByKeyset(filter ?? {}, request, {
      total: selectsField(info, "totalCount"),
      fields: projectFieldsFor(nodeFields),
      access: ctx.access,
      teachers: nodeFields.has("teacher"),
      where,
      orderBy,
    });
    if (connection.teachers) primeTeachers(connection.teachers, ctx);
    return connection;
  }
}
