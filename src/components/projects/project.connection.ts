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
import { primeTeachers } from "./project.resolver";
import { projectFieldsFor } from "./project.selection";
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
  async projectsConnection(
    @Args() { filter, ...request }: ProjectConnectionArgs,
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
    });
    if (connection.teachers) primeTeachers(connection.teachers, ctx);
    return connection;
  }
}
