// When the code's schema changes, then schema/schema.graphql and tests/graphql/fields.graphql must be regenerated
// (npm run schema) and committed.
import fs from "node:fs";
import { FIELD_FRAGMENTS_FILE, printFieldFragments, printSdl, SCHEMA_FILE } from "../../src/graphql/schema";

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
    const sdl = printSdl();
    expect(sdl).toContain("createProject(input: CreateProjectInput!): ProjectPayload!");
    expect(sdl).toContain("assignTeacher(projectId: Int!, input: AssignTeacherInput!): ProjectPayload!");
    expect(sdl).toContain("updateProjectStatus(projectId: Int!, input: UpdateProjectStatusInput!): ProjectPayload!");
    expect(sdl).toContain("updateTeacher(teacherId: Int!, input: UpdateTeacherInput!): TeacherPayload!");
    expect(sdl).toContain("updateStudent(studentId: SafeInt!, input: UpdateStudentInput!): StudentPayload!");
    expect(sdl).toContain("createTeacher(input: CreateTeacherInput!): TeacherPayload!");
    expect(sdl).toContain("createStudent(input: CreateStudentInput!): StudentPayload!");
    expect(sdl).toMatch(
      /enum ErrorCode \{\s+BAD_REQUEST\s+UNAUTHORIZED\s+FORBIDDEN\s+NOT_FOUND\s+CONFLICT\s+INTERNAL_SERVER_ERROR\s+TOO_MANY_REQUESTS\s+\}/,
    );
  });
});
