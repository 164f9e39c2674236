// The GraphQL connection of teachers (Relay cursor connections) and Query.teachersConnection: decode, call one
// service function, return.
import type { GraphQLResolveInfo } from "graphql";
import { Args, Authorized, Ctx, Info, Query, Resolver } from "type-graphql";
import { rolesFor } from "../../auth/access-policy";
import { ConnectionArgs, ConnectionType } from "../../graphql/connection.types";
import type { Context } from "../../graphql/context";
import { connectionCost } from "../../graphql/query-cost";
import { selectsField } from "../../graphql/selection";
import type { Connection } from "../../shared/keyset-pagination";
import type { TeacherRecord } from "./teacher.service";
import { Teacher } from "./teacher.type";

export const TeacherConnection = ConnectionType(Teacher, "teacher_id");

@Resolver()
export class TeacherConnectionResolver {
  @Authorized(rolesFor("teachersConnection"))
  @Query(() => TeacherConnection, {
    complexity: connectionCost,
    description: "Teachers ordered by teacher_id, one page by cursor (Relay cursor connections)",
  })
  teachersConnection(
    @Args() request: ConnectionArgs,
    @Ctx() ctx: Context,
    @Info() info: GraphQLResolveInfo,
  ): Promise<Connection<TeacherRecord>> {
    return ctx.services.teachers.pageByKeyset(request, { total: selectsField(info, "totalCount") });
  }
}
