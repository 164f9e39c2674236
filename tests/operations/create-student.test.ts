// createStudent: success (payload and stored, email lower-cased), validation, the email conflict (case-insensitive
// because emails are stored lower-cased), roles.
import { CreateStudentDocument, type CreateStudentInput } from "../generated/graphql";
import { startTestApp, type TestApp } from "../helpers/app";
import {
  ADMIN,
  counts,
  createStudent,
  expectFailure,
  expectSuccess,
  STUDENT,
  studentInput,
  TEACHER,
  unique,
} from "./support";

describe("createStudent", () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(async () => {
    await t.close();
  });

  it("when a teacher creates a student, then the payload carries it and the database stores the email lower-cased", async () => {
    const local = unique("Mixed.Case");
    const input = { student_name: "  Lin Chen ", email: `  ${local}@Example.COM `, class_code: " A1 " };
    const before = await counts(t);

    const res = await t.gql(CreateStudentDocument, { input }, TEACHER);

    const payload = expectSuccess(res);
    expect(payload.message).toBe("Student created");
    const email = `${local.toLowerCase()}@example.com`;
    expect(payload.data).toEqual({ student_id: expect.any(Number), student_name: "Lin Chen", email, class_code: "A1" });
    expect(payload.data.student_id).toBeGreaterThanOrEqual(1);
    const stored = await t.db.models.Student.findOne({ student_id: payload.data.student_id }).lean();
    expect(stored).toMatchObject({ student_name: "Lin Chen", email, class_code: "A1" });
    expect(await counts(t)).toEqual({ ...before, students: before.students + 1 });
  });

  it("when an admin creates a student, then it succeeds too", async () => {
    const input = studentInput();

    const res = await t.gql(CreateStudentDocument, { input }, ADMIN);

    const data = expectSuccess(res).data;
    expect(await t.db.models.Student.findOne({ student_id: data.student_id }).lean()).toMatchObject({
      email: input.email,
    });
  });

  it.each<[string, Partial<CreateStudentInput>]>([
    ["a 200-character name", { student_name: "s".repeat(200) }],
    ["a 32-character class_code", { class_code: "c".repeat(32) }],
    ["a 1-character class_code", { class_code: "c" }],
    ["an email with plus and subdomain", { email: `${unique("a+tag")}@mail.school.example.org` }],
  ])("when the student has %s, then it is accepted and stored", async (_label, overrides) => {
    const input = studentInput(overrides);

    const res = await t.gql(CreateStudentDocument, { input }, TEACHER);

    const data = expectSuccess(res).data;
    expect(await t.db.models.Student.findOne({ student_id: data.student_id }).lean()).toMatchObject({
      student_name: input.student_name,
      class_code: input.class_code,
      email: input.email.toLowerCase(),
    });
  });

  it.each<[string, Partial<CreateStudentInput>, string]>([
    ["an empty student_name", { student_name: "" }, "student_name"],
    ["a student_name of spaces only", { student_name: "  " }, "student_name"],
    ["a 201-character student_name", { student_name: "s".repeat(201) }, "student_name"],
    ["an empty class_code", { class_code: "" }, "class_code"],
    ["a 33-character class_code", { class_code: "c".repeat(33) }, "class_code"],
    ["an empty email", { email: "" }, "email"],
    ["an email without @", { email: "student.example.com" }, "email"],
    ["an email without domain", { email: "student@" }, "email"],
    ["an email without local part", { email: "@example.com" }, "email"],
    ["an email with spaces inside", { email: "stu dent@example.com" }, "email"],
    ["an email with two @", { email: "a@b@example.com" }, "email"],
    [
      "an email that is too long",
      { email: `${"a".repeat(64)}@${"b".repeat(63)}.${"c".repeat(63)}.${"d".repeat(63)}.com` },
      "email",
    ],
  ])(
    "when called with %s, then it is BAD_REQUEST naming the field and nothing is stored",
    async (_label, overrides, field) => {
      const before = await counts(t);

      const res = await t.gql(CreateStudentDocument, { input: studentInput(overrides) }, TEACHER);

      expectFailure(res, "BAD_REQUEST", field);
      expect(await counts(t)).toEqual(before);
    },
  );

  it("when the email is already taken, then it is CONFLICT naming email and nothing is stored", async () => {
    const existing = await createStudent(t);
    const before = await counts(t);

    const res = await t.gql(CreateStudentDocument, { input: studentInput({ email: existing.email }) }, TEACHER);

    expectFailure(res, "CONFLICT", "email");
    expect(await counts(t)).toEqual(before);
    expect(await t.db.models.Student.countDocuments({ email: existing.email })).toBe(1);
  });

  it("when the email is taken in other case and with spaces, then it is CONFLICT too (emails are stored lower-cased)", async () => {
    const existing = await createStudent(t, { email: `${unique("taken")}@example.com` });
    const before = await counts(t);

    const res = await t.gql(
      CreateStudentDocument,
      { input: studentInput({ email: `  ${existing.email.toUpperCase()} ` }) },
      ADMIN,
    );

    expectFailure(res, "CONFLICT", "email");
    expect(await counts(t)).toEqual(before);
    expect(await t.db.models.Student.countDocuments({ email: existing.email })).toBe(1);
  });

  it("when a student creates a student, then it is FORBIDDEN and nothing is stored", async () => {
    const before = await counts(t);

    const res = await t.gql(CreateStudentDocument, { input: studentInput() }, STUDENT);

    expectFailure(res, "FORBIDDEN", /student/);
    expect(await counts(t)).toEqual(before);
  });

  it.each<[string, Record<string, string>]>([
    ["no X-User-Role", {}],
    ["an unknown X-User-Role", { "x-user-role": "alumni" }],
  ])("when called with %s, then it is UNAUTHORIZED and nothing is stored", async (_label, headers) => {
    const before = await counts(t);

    const res = await t.gql(CreateStudentDocument, { input: studentInput() }, headers);

    expectFailure(res, "UNAUTHORIZED", /X-User-Role/);
    expect(await counts(t)).toEqual(before);
  });
});
