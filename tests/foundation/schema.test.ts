// When the code's schema changes, then schema/schema.graphql and tests/graphql/fields.graphql must be regenerated
// (npm run schema) and committed.
import fs from "node:fs";
import { isEnumType } from "graphql";
import { FIELD_FRAGMENTS_FILE, getSchema, printFieldFragments, printSdl, SCHEMA_FILE } from "../../src/graphql/schema";

describe("schema snapshot", () => {
  it("when the schema is built from the resolvers, then it equals the committed schema/schema.graphql", () => {
    const committed = fs.readFileSync(SCHEMA_FILE, "utf8");
    // On failure: run `npm run schema` and commit the file, so the API change shows in review.
    expect(printSdl()).toBe(committed);
  });

  it("when the schema is built, then the tests' field fragments select every value field (tests/graphql/fields.graphql)", () => {
    const committed = fs.readFileSync(FIELD_FRAGMENTS_FILE, "utf8");
    // On failure: run `npm run schema`, then `npm run codegen`, and commit both.
    expect(printFieldFragments()).toBe(committed);
  });

  it("when the schema is built, then it carries the contract's fixed mutations with their argument order", () => {
    // Each mutation as "name(arg: Type, …): Payload", read from the schema (the SDL spreads described arguments over lines).
    const mutations = Object.values(getSchema().getMutationType()!.getFields()).map(
      (field) =>
        `${field.name}(${field.args.map((arg) => `${arg.name}: ${String(arg.type)}`).join(", ")}): ${String(field.type)}`,
    );
    expect(mutations).toEqual(
      expect.arrayContaining([
        "createProject(input: CreateProjectInput!): ProjectPayload!",
        "assignTeacher(projectId: Int!, input: AssignTeacherInput!): ProjectPayload!",
        "updateProjectStatus(projectId: Int!, input: UpdateProjectStatusInput!): ProjectPayload!",
        "updateTeacher(teacherId: Int!, input: UpdateTeacherInput!): TeacherPayload!",
        "updateStudent(studentId: SafeInt!, input: UpdateStudentInput!): StudentPayload!",
        "createTeacher(input: CreateTeacherInput!): TeacherPayload!",
        "createStudent(input: CreateStudentInput!): StudentPayload!",
      ]),
    );
    const errorCode = getSchema().getType("ErrorCode");
    expect(isEnumType(errorCode) && errorCode.getValues().map((value) => value.name)).toEqual([
      "BAD_REQUEST",
      "UNAUTHORIZED",
      "FORBIDDEN",
      "NOT_FOUND",
      "CONFLICT",
      "INTERNAL_SERVER_ERROR",
      "TOO_MANY_REQUESTS",
      "SERVICE_UNAVAILABLE",
    ]);
  });
});
