// The GraphQL connection of students (Relay cursor connections) and Query.studentsConnection: decode, call one
// service function, return. Students' personal data: teachers and admins only, like Query.students.
import type { GraphQLResolveInfo } from "graphql";
import { Args, ArgsType, Authorized, Ctx, Field, Info, Query, Resolver } from "type-graphql";
import { rolesFor } from "../../auth/access-policy";
import { ConnectionArgs, ConnectionType } from "../../graphql/connection.types";
import type { Context } from "../../graphql/context";
import { connectionCost } from "../../graphql/query-cost";
import { selectsField } from "../../graphql/selection";
import type { Connection } from "../../shared/keyset-pagination";
import { StudentFilterInput } from "./student.inputs";
import type { StudentRecord } from "./student.service";
import { Student } from "./student.type";
import { StudentOrder, StudentWhere } from "./student.where.inputs";

export const StudentConnection = ConnectionType(Student, "student_id");

@ArgsType()
export class StudentConnectionArgs extends ConnectionArgs {
  @Field(() => StudentFilterInput, { nullable: true, description: "Every field given narrows the list" })
  filter?: StudentFilterInput | null;

  @Field(() => StudentWhere, { nullable: true, description: "Which students the list holds (beside filter: both)" })
  where?: StudentWhere | null;

  @Field(() => StudentOrder, {
    nullable: true,
    description: "The list's order; default STUDENT_ID ASC. Cursors are valid only in the order they came from",
  })
  orderBy?: StudentOrder | null;
}

@Resolver()
export class StudentConnectionResolver {
  @Authorized(rolesFor("studentsConnection"))
  @Query(() => StudentConnection, {
    complexity: connectionCost,
    description:
      "Students in orderBy's order (default student_id), optionally filtered by class_code and where, one page by cursor (Relay cursor connections)",
  })
  studentsConnection(
    @Args() { filter, where, orderBy, ...request }: StudentConnectionArgs,
    @Ctx() ctx: Context,
    @Info() info: GraphQLResolveInfo,
  ): Promise<Connection<StudentRecord>> {
    return ctx.services.students.pageByKeyset(filter ?? {}, request, {
      total: selectsField(info, "totalCount"),
      where,
      orderBy,
    });
  }
}
