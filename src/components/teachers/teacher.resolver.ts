// GraphQL entry points of teachers: decode, call one service function, return. Mutation results are wrapped in
// the TeacherPayload envelope by graphql/mutation-payloads.ts.
import type { GraphQLResolveInfo } from "graphql";
import { Arg, Args, Authorized, Ctx, Info, Int, Mutation, Query, Resolver } from "type-graphql";
import { rolesFor } from "../../auth/access-policy";
import type { Context } from "../../graphql/context";
import { DeletedPayload } from "../../graphql/payload.types";
import type { DeletedRecord } from "../../shared/global-id";
import { listCost } from "../../graphql/query-cost";
import { selectsField } from "../../graphql/selection";
import { CreateTeacherInput, TeacherListArgs, UpdateTeacherArgs } from "./teacher.inputs";
import type { TeacherRecord } from "./teacher.service";
import { Teacher, TeacherPage, TeacherPayload } from "./teacher.type";

@Resolver(() => Teacher)
export class TeacherResolver {
  @Authorized(rolesFor("teacher"))
  @Query(() => Teacher, { nullable: true, description: "A teacher by id; null when none has that id" })
  teacher(
    @Arg("teacherId", () => Int, { description: "The teacher's teacher_id" }) teacherId: number,
    @Ctx() ctx: Context,
  ): Promise<TeacherRecord | null> {
    return ctx.services.teachers.get(teacherId);
  }

  @Authorized(rolesFor("teachers"))
  @Query(() => TeacherPage, {
    complexity: listCost,
    description: "Teachers in orderBy's order (default teacher_id), optionally narrowed by where",
  })
  teachers(
    @Args() { offset, limit, where, orderBy }: TeacherListArgs,
    @Ctx() ctx: Context,
    @Info() info: GraphQLResolveInfo,
  ) {
    return ctx.services.teachers.list({ offset, limit }, { total: selectsField(info, "total"), where, orderBy });
  }

  @Authorized(rolesFor("createTeacher"))
  @Mutation(() => TeacherPayload, { description: "Creates a teacher (role: admin)" })
  async createTeacher(
    @Arg("input", () => CreateTeacherInput, { description: "The new teacher's fields" }) input: CreateTeacherInput,
    @Ctx() ctx: Context,
  ): Promise<TeacherRecord> {
    const teacher = await ctx.services.teachers.create(input);
    ctx.loaders.teacherById.prime(teacher.teacher_id, teacher);
    return teacher;
  }

  @Authorized(rolesFor("updateTeacher"))
  @Mutation(() => TeacherPayload, {
    description: "Renames a teacher (roles: teacher, admin); an unknown teacherId is BAD_REQUEST, reason NOT_FOUND",
  })
  async updateTeacher(@Args() { teacherId, input }: UpdateTeacherArgs, @Ctx() ctx: Context): Promise<TeacherRecord> {
    const teacher = await ctx.services.teachers.update(teacherId, input);
    ctx.loaders.teacherById.clear(teacher.teacher_id).prime(teacher.teacher_id, teacher);
    return teacher;
  }

  @Authorized(rolesFor("deleteTeacher"))
  @Mutation(() => DeletedPayload, {
    description:
      "Deletes a teacher (role: admin); CONFLICT, reason IN_USE, while any project has the teacher (archived ones too)",
  })
  async deleteTeacher(
    @Arg("teacherId", () => Int, { description: "The teacher's teacher_id" }) teacherId: number,
    @Ctx() ctx: Context,
  ): Promise<DeletedRecord> {
    const deleted = await ctx.services.teachers.delete(teacherId);
    ctx.loaders.teacherById.clear(teacherId);
    return deleted;
  }
}
