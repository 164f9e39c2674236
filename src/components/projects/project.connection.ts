// The GraphQL connection of projects (Relay cursor connections): ProjectConnection, ProjectEdge, the arguments of
// Query.projectsConnection and its entry point (decode, call one service function, return). Teacher.projectsConnection
// (teacher-projects.connection.ts) answers the same type.
import type { GraphQLResolveInfo } from "graphql";
import { Args, ArgsType, Authorized, Ctx, Field, Info, Query, Resolver } from "type-graphql";
import { rolesFor } from "../../auth/access-policy";
import { ConnectionArgs, ConnectionType } from "../../graphql/connection.types";
import type { Context } from "../../graphql/context";
import { connectionCost } from "../../graphql/query-cost";
import { selectsField } from "../../graphql/selection";
import type { Connection } from "../../shared/keyset-pagination";
import { ProjectFilterInput } from "./project.inputs";
import type { ProjectRecord } from "./project.service";
import { Project } from "./project.type";

export const ProjectConnection = ConnectionType(Project, "project_id");

@ArgsType()
export class ProjectConnectionArgs extends ConnectionArgs {
  @Field(() => ProjectFilterInput, { nullable: true, description: "Every field given narrows the list" })
  filter?: ProjectFilterInput | null;
}

@Resolver()
export class ProjectConnectionResolver {
  @Authorized(rolesFor("projectsConnection"))
  @Query(() => ProjectConnection, {
    complexity: connectionCost,
    description: "Projects ordered by project_id, optionally filtered, one page by cursor (Relay cursor connections)",
  })
  projectsConnection(
    @Args() { filter, ...request }: ProjectConnectionArgs,
    @Ctx() ctx: Context,
    @Info() info: GraphQLResolveInfo,
  ): Promise<Connection<ProjectRecord>> {
    return ctx.services.projects.pageByKeyset(filter ?? {}, request, {
      total: selectsField(info, "totalCount"),
      access: ctx.access,
    });
  }
}
