// Authorization fails closed: every root field of the schema is named in the role table and declares that rule
// with @Authorized (else the schema refuses to build, so the service refuses to start), and students' personal
// data (student, students) is for teachers and admins only, FORBIDDEN to students.
import "reflect-metadata";
import { Arg, Authorized, Field, Int, Mutation, ObjectType, Query, Resolver } from "type-graphql";
import { ACCESS_POLICY, rolesFor } from "../../src/auth/access-policy";
import { buildAppSchema, getSchema, RESOLVERS } from "../../src/graphql/schema";
import { GetStudentDocument, ListStudentsDocument } from "../generated/graphql";
import { startTestApp, type GraphQLResponse, type Headers, type TestApp } from "../helpers/app";
import { bearer, JWT_AUTH } from "../helpers/tokens";
import { createStudent } from "../operations/support";

@Resolver()
class ReportResolver {
  @Authorized()
  @Query(() => String, { description: "A query the role table does not name" })
  secretReport(): string {
    return "everything";
  }
}

@Resolver()
class PurgeResolver {
  @Authorized(["admin"])
  @Mutation(() => Boolean, { description: "A mutation the role table does not name" })
  purgeEverything(): boolean {
    return true;
  }
}

@Resolver()
class UndeclaredResolver {
  // Named in the table, but with no @Authorized type-graphql would run it for anyone.
  @Query(() => [String])
  projectStatuses(): string[] {
    return [];
  }
}

@Resolver()
class MisdeclaredResolver {
  // The table says teacher or admin.
  @Authorized()
  @Query(() => String, { nullable: true })
  student(@Arg("studentId", () => Int) _studentId: number): string | null {
    return null;
  }
}

@Resolver()
class DeclaredResolver {
  @Authorized(rolesFor("students"))
  @Query(() => [String])
  students(): string[] {
    return [];
  }
}

// Plain fields are answered by property access (simpleResolvers), which would skip a field's @Authorized.
@ObjectType({ simpleResolvers: true })
class Salary {
  @Authorized(["admin"])
  @Field(() => Int)
  amount!: number;
}

@Resolver()
class SalaryResolver {
  @Authorized(rolesFor("students"))
  @Query(() => Salary)
  students(): Salary {
    return { amount: 1 };
  }
}

describe("the role table names every root field (fail closed at start)", () => {
  it("when the service's own schema is built, then every Query, Mutation and Subscription field has exactly the table's rule", () => {
    const schema = getSchema();
    const rootFields = [
      ...Object.keys(schema.getQueryType()!.getFields()),
      ...Object.keys(schema.getMutationType()!.getFields()),
      ...Object.keys(schema.getSubscriptionType()!.getFields()),
    ].sort();
    expect(rootFields).toEqual(Object.keys(ACCESS_POLICY).sort());
  });

  it("when a schema gets a query the table does not name, then building it throws, naming the field", () => {
    expect(() => buildAppSchema([...RESOLVERS, ReportResolver])).toThrow(
      /refused: Query\.secretReport is not named in the role table.*src\/auth\/access-policy\.ts/,
    );
  });

  it("when a schema gets a mutation the table does not name, then building it throws, naming the field", () => {
    expect(() => buildAppSchema([...RESOLVERS, PurgeResolver])).toThrow(
      /Mutation\.purgeEverything is not named in the role table/,
    );
  });

  it("when a named root field declares no @Authorized, then building the schema throws", () => {
    expect(() => buildAppSchema([UndeclaredResolver])).toThrow(
      /Query\.projectStatuses has no @Authorized\(\.\.\.\) declaration/,
    );
  });

  it("when a root field declares other roles than the table, then building the schema throws", () => {
    expect(() => buildAppSchema([MisdeclaredResolver])).toThrow(
      /Query\.student declares roles \[\] but the role table says \[teacher, admin\]/,
    );
  });

  it("when a plain field of an object type declares @Authorized, then building the schema throws, naming it", () => {
    expect(() => buildAppSchema([SalaryResolver])).toThrow(
      /Salary\.amount declares @Authorized or a middleware on a plain field/,
    );
  });

  it("when a root field declares the table's rule, then the schema builds", () => {
    expect(() => buildAppSchema([DeclaredResolver])).not.toThrow();
  });
});

/** The refused field answers null (student is nullable) or nulls the whole data (students is not). */
function expectNoData(res: { data?: Record<string, unknown> | null }): void {
  for (const value of Object.values(res.data ?? {})) expect(value).toBeNull();
}

describe("who may read students", () => {
  let t: TestApp;
  let j: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
    j = await startTestApp({ db: t.db, auth: JWT_AUTH });
  });
  afterAll(async () => {
    await j.app.close();
    await t.close();
  });

  const READS: [
    string,
    (app: TestApp, headers: Headers, studentId: number) => Promise<GraphQLResponse<Record<string, unknown>>>,
  ][] = [
    ["student", (app, headers, studentId) => app.gql(GetStudentDocument, { studentId }, headers)],
    ["students", (app, headers) => app.gql(ListStudentsDocument, { limit: 100 }, headers)],
  ];

  it.each(READS)(
    "when a student reads %s (header mode), then it is a FORBIDDEN GraphQL error and no data",
    async (name, read) => {
      const student = await createStudent(t);

      const res = await read(t, { "x-user-role": "student" }, student.student_id);

      expect(res.status).toBe(200);
      expect(res.errors).toHaveLength(1);
      expect(res.errors![0].extensions?.code).toBe("FORBIDDEN");
      expect(res.errors![0].message).toBe(`${name} is not allowed for role student; allowed roles: teacher, admin`);
      expectNoData(res);
    },
  );

  it.each(READS)("when a student reads %s (jwt mode), then it is FORBIDDEN", async (_name, read) => {
    const student = await createStudent(t);

    const res = await read(j, await bearer("student"), student.student_id);

    expect(res.errors![0].extensions?.code).toBe("FORBIDDEN");
    expectNoData(res);
  });

  it.each(READS)(
    "when a valid token without X-User-Role reads %s, then it is UNAUTHORIZED (a role is needed)",
    async (_name, read) => {
      const student = await createStudent(t);

      const res = await read(j, await bearer(undefined, ["teacher"]), student.student_id);

      expect(res.errors![0].extensions?.code).toBe("UNAUTHORIZED");
      expect(res.errors![0].message).toMatch(/X-User-Role/);
      expectNoData(res);
    },
  );

  it.each(["teacher", "admin"])(
    "when a %s reads student and students, then both answer with names and emails",
    async (role) => {
      const student = await createStudent(t);

      for (const headers of [{ "x-user-role": role }, await bearer(role)]) {
        const app = "authorization" in headers ? j : t;
        const one = await app.gql(GetStudentDocument, { studentId: student.student_id }, headers);
        const list = await app.gql(ListStudentsDocument, { limit: 100 }, headers);

        expect(one.errors).toBeUndefined();
        expect(one.data?.student).toEqual(student);
        expect(list.errors).toBeUndefined();
        expect(list.data?.students.items).toContainEqual(student);
      }
    },
  );
});
