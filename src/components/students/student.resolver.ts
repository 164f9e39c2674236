// GraphQL entry points of students: decode, call one service function, return. Mutation results are wrapped in
// the StudentPayload envelope by graphql/mutation-payloads.ts.
import { GraphQLSafeInt } from "graphql-scalars";
import type { GraphQLResolveInfo } from "graphql";
import { Arg, Args, Authorized, Ctx, Info, Mutation, Query, Resolver } from "type-graphql";
import { rolesFor } from "../../auth/access-policy";
import { listCost } from "../../graphql/query-cost";
import type { Context } from "../../graphql/context";
import { DeletedPayload } from "../../graphql/payload.types";
import type { DeletedRecord } from "../../shared/global-id";
import { selectsField } from "../../graphql/selection";
import { CreateStudentInput, StudentListArgs, UpdateStudentArgs } from "./student.inputs";
import type { StudentRecord } from "./student.service";
import { Student, StudentPage, StudentPayload } from "./student.type";

@Resolver(() => Student)
export class StudentResolver {
  @Authorized(rolesFor("student"))
  @Query(() => Student, { nullable: true, description: "A student by id; null when none has that id" })
  student(
    @Arg("studentId", () => GraphQLSafeInt, { description: "The student's student_id" }) studentId: number,
    @Ctx() ctx: Context,
  ): Promise<StudentRecord | null> {
    return ctx.services.students.get(studentId);
  }

  @Authorized(rolesFor("students"))
  @Query(() => StudentPage, {
    complexity: listCost,
    description: "Students in orderBy's order (default student_id), optionally filtered by class_code and where",
  })
  students(
    @Args() { filter, where, orderBy, offset, limit }: StudentListArgs,
    @Ctx() ctx: Context,
    @Info() info: GraphQLResolveInfo,
  ) {
    return ctx.services.students.list(
      filter ?? {},
      { offset, limit },
      { total: selectsField(info, "total"), where, orderBy },
    );
  }

  @Authorized(rolesFor("createStudent"))
  @Mutation(() => StudentPayload, { description: "Creates a student (roles: teacher, admin); email must be unused" })
  createStudent(
    @Arg("input", () => CreateStudentInput, { description: "The new student's fields" }) input: CreateStudentInput,
    @Ctx() ctx: Context,
  ): Promise<StudentRecord> {
    return ctx.services.students.create(input);
  }

  @Authorized(rolesFor("updateStudent"))
  @Mutation(() => StudentPayload, {
    description: "Changes a student's name or class (roles: teacher, admin); with neither field nothing changes",
  })
  updateStudent(@Args() { studentId, input }: UpdateStudentArgs, @Ctx() ctx: Context): Promise<StudentRecord> {
    return ctx.services.students.update(studentId, input);
  }

  @Authorized(rolesFor("deleteStudent"))
  @Mutation(() => DeletedPayload, {
    description:
      "Erases a student (role: admin): the record and every copy of their name and email the service keeps; the id is never given again",
  })
  deleteStudent(
    @Arg("studentId", () => GraphQLSafeInt, { description: "The student's student_id" }) studentId: number,
    @Ctx() ctx: Context,
  ): Promise<DeletedRecord> {
    return ctx.services.students.erase(studentId);
  }
}
