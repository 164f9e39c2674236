// The GraphQL connection of teachers (Relay cursor connections) and Query.teachersConnection: decode, call one
// service function, return.
import type { GraphQLResolveInfo } from "graphql";
import { Args, ArgsType, Authorized, Ctx, Field, Info, Query, Resolver } from "type-graphql";
import { rolesFor } from "../../auth/access-policy";
import { ConnectionArgs, ConnectionType } from "../../graphql/connection.types";
import type { Context } from "../../graphql/context";
import { connectionCost } from "../../graphql/query-cost";
import { selectsField } from "../../graphql/selection";
import type { Connection } from "../../shared/keyset-pagination";
import type { TeacherRecord } from "./teacher.service";
import { Teacher } from "./teacher.type";
import { TeacherOrder, TeacherWhere } from "./teacher.where.inputs";

export const TeacherConnection = ConnectionType(Teacher, "teacher_id");

@ArgsType()
export class TeacherConnectionArgs extends ConnectionArgs {
  @Field(() => TeacherWhere, { nullable: true, description: "Which teachers the list holds" })
  where?: TeacherWhere | null;

  @Field(() => TeacherOrder, {
    nullable: true,
    description: "The list's order; default TEACHER_ID ASC. Cursors are valid only in the order they came from",
  })
  orderBy?: TeacherOrder | null;
}

@Resolver()
export class TeacherConnectionResolver {
  @Authorized(rolesFor("teachersConnection"))
  @Query(() => TeacherConnection, {
    complexity: connectionCost,
    description:
      "Teachers in orderBy's order (default teacher_id), optionally narrowed by where, one page by cursor (Relay cursor connections)",
  })
  teachersConnection(
    @Args() { where, orderBy, ...request }: TeacherConnectionArgs,
    @Ctx() ctx: Context,
    @Info() info: GraphQLResolveInfo,
  ): Promise<Connection<TeacherRecord>> {
    return ctx.services.teachers.pageByKeyset(request, { total: selectsField(info, "totalCount"), where, orderBy });
  }
}
