// updateStudent: partial updates (payload and stored), neither field is a successful no-op, NOT_FOUND, validation,
// fields that cannot be updated, and roles.
import { UpdateStudentDocument, type UpdateStudentInput } from "../generated/graphql";
import { startTestApp, type TestApp } from "../helpers/app";
import { ADMIN, createStudent, expectFailure, expectSuccess, snapshot, STUDENT, TEACHER } from "./support";

describe("updateStudent", () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(async () => {
    await t.close();
  });

  it.each<[string, UpdateStudentInput, { student_name: string; class_code: string }]>([
    ["only student_name", { student_name: "  Mei Lin " }, { student_name: "Mei Lin", class_code: "A1" }],
    ["only class_code", { class_code: " B2 " }, { student_name: "Lin Chen", class_code: "B2" }],
    ["both fields", { student_name: "Mei", class_code: "C3" }, { student_name: "Mei", class_code: "C3" }],
    [
      "student_name and a null class_code",
      { student_name: "Mei", class_code: null },
      { student_name: "Mei", class_code: "A1" },
    ],
  ])(
    "when a teacher updates %s, then the payload and the stored student change only those fields",
    async (_label, input, expected) => {
      const student = await createStudent(t, { student_name: "Lin Chen", class_code: "A1" });

      const res = await t.gql(UpdateStudentDocument, { studentId: student.student_id, input }, TEACHER);

      const payload = expectSuccess(res);
      expect(payload.message).toBe("Student updated");
      expect(payload.data).toEqual({ student_id: student.student_id, email: student.email, ...expected });
      const stored = await t.db.models.Student.findOne({ student_id: student.student_id }).lean();
      expect(stored).toMatchObject({ email: student.email, ...expected });
    },
  );

  it("when an admin updates a student, then it succeeds too", async () => {
    const student = await createStudent(t);

    const res = await t.gql(
      UpdateStudentDocument,
      { studentId: student.student_id, input: { class_code: "Z9" } },
      ADMIN,
    );

    expect(expectSuccess(res).data.class_code).toBe("Z9");
    expect((await t.db.models.Student.findOne({ student_id: student.student_id }).lean())!.class_code).toBe("Z9");
  });

  it.each<[string, UpdateStudentInput]>([
    ["an empty input", {}],
    ["both fields null", { student_name: null, class_code: null }],
  ])("when called with %s, then it succeeds, returns the student and changes nothing stored", async (_label, input) => {
    const student = await createStudent(t, { student_name: "Same", class_code: "S1" });
    const before = await t.db.models.Student.findOne({ student_id: student.student_id }).lean();

    const res = await t.gql(UpdateStudentDocument, { studentId: student.student_id, input }, TEACHER);

    expect(expectSuccess(res).data).toEqual(student);
    expect(await t.db.models.Student.findOne({ student_id: student.student_id }).lean()).toEqual(before);
  });

  it("when boundary lengths are given (200-character name, 32-character class_code), then they are accepted", async () => {
    const student = await createStudent(t);
    const input = { student_name: "n".repeat(200), class_code: "c".repeat(32) };

    const res = await t.gql(UpdateStudentDocument, { studentId: student.student_id, input }, TEACHER);

    expect(expectSuccess(res).data).toMatchObject(input);
    expect(await t.db.models.Student.findOne({ student_id: student.student_id }).lean()).toMatchObject(input);
  });

  it.each<[string, number]>([
    ["an unknown studentId", 31_337],
    ["a studentId beyond 32 bits", 2 ** 40],
  ])("when the student does not exist (%s), then it is NOT_FOUND and nothing changes", async (_label, studentId) => {
    await createStudent(t);
    const before = await snapshot(t);

    const res = await t.gql(UpdateStudentDocument, { studentId, input: { student_name: "Ghost" } }, TEACHER);

    expectFailure(res, "NOT_FOUND", new RegExp(`student ${studentId}`));
    expect(await snapshot(t)).toEqual(before);
  });

  it("when the student does not exist and neither field is given, then it is NOT_FOUND too", async () => {
    const res = await t.gql(UpdateStudentDocument, { studentId: 31_338, input: {} }, TEACHER);

    expectFailure(res, "NOT_FOUND", /student 31338/);
  });

  it.each<[string, number | null, UpdateStudentInput, string]>([
    ["an empty student_name", null, { student_name: "" }, "student_name"],
    ["a student_name of spaces only", null, { student_name: "   " }, "student_name"],
    ["a 201-character student_name", null, { student_name: "n".repeat(201) }, "student_name"],
    ["an empty class_code", null, { class_code: "" }, "class_code"],
    ["a 33-character class_code", null, { class_code: "c".repeat(33) }, "class_code"],
    ["a valid name but an invalid class_code", null, { student_name: "Valid", class_code: " " }, "class_code"],
    ["studentId 0", 0, { student_name: "X" }, "studentId"],
    ["a negative studentId", -9, { student_name: "X" }, "studentId"],
  ])(
    "when called with %s, then it is BAD_REQUEST naming the field and nothing changes",
    async (_label, studentId, input, field) => {
      const student = await createStudent(t, { student_name: "Unchanged", class_code: "U1" });
      const before = await snapshot(t);

      const res = await t.gql(UpdateStudentDocument, { studentId: studentId ?? student.student_id, input }, TEACHER);

      expectFailure(res, "BAD_REQUEST", field);
      expect(await snapshot(t)).toEqual(before);
    },
  );

  it("when email is sent (not an updatable field), then it is a GraphQL error and nothing changes", async () => {
    const student = await createStudent(t);
    const before = await snapshot(t);

    const res = await t.gql(
      UpdateStudentDocument,
      { studentId: student.student_id, input: { email: "new@example.com" } as UpdateStudentInput },
      TEACHER,
    );

    expect(res.errors?.length).toBeGreaterThan(0);
    expect(res.errors![0].message).toMatch(/email/);
    expect(res.data ?? null).toBeNull();
    expect(await snapshot(t)).toEqual(before);
  });

  it("when studentId is beyond SafeInt, then it is a GraphQL error and nothing changes", async () => {
    const before = await snapshot(t);

    const res = await t.gql(UpdateStudentDocument, { studentId: 2 ** 53, input: { student_name: "X" } }, TEACHER);

    expect(res.errors?.length).toBeGreaterThan(0);
    expect(res.data ?? null).toBeNull();
    expect(await snapshot(t)).toEqual(before);
  });

  it("when a student updates a student, then it is FORBIDDEN and nothing changes", async () => {
    const student = await createStudent(t);
    const before = await snapshot(t);

    const res = await t.gql(
      UpdateStudentDocument,
      { studentId: student.student_id, input: { student_name: "Me" } },
      STUDENT,
    );

    expectFailure(res, "FORBIDDEN", /student/);
    expect(await snapshot(t)).toEqual(before);
  });

  it.each<[string, Record<string, string>]>([
    ["no X-User-Role", {}],
    ["an unknown X-User-Role", { "x-user-role": "parent" }],
  ])("when called with %s, then it is UNAUTHORIZED and nothing changes", async (_label, headers) => {
    const student = await createStudent(t);
    const before = await snapshot(t);

    const res = await t.gql(
      UpdateStudentDocument,
      { studentId: student.student_id, input: { student_name: "Me" } },
      headers,
    );

    expectFailure(res, "UNAUTHORIZED", /X-User-Role/);
    expect(await snapshot(t)).toEqual(before);
  });
});
