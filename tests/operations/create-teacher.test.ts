// createTeacher: admin only; success (payload and stored), name validation, roles.
import { CreateTeacherDocument } from "../generated/graphql";
import { startTestApp, type TestApp } from "../helpers/app";
import { ADMIN, counts, expectFailure, expectSuccess, STUDENT, TEACHER } from "./support";

describe("createTeacher", () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(async () => {
    await t.close();
  });

  it("when an admin creates a teacher, then the payload carries the new id and the database stores the trimmed name", async () => {
    const before = await counts(t);

    const res = await t.gql(CreateTeacherDocument, { input: { teacher_name: "  Grace Hopper " } }, ADMIN);

    const payload = expectSuccess(res);
    expect(payload.message).toBe("Teacher created");
    expect(payload.data).toEqual({ teacher_id: expect.any(Number), teacher_name: "Grace Hopper" });
    expect(payload.data.teacher_id).toBeGreaterThanOrEqual(1);
    const stored = await t.db.models.Teacher.findOne({ teacher_id: payload.data.teacher_id }).lean();
    expect(stored).toMatchObject({ teacher_id: payload.data.teacher_id, teacher_name: "Grace Hopper" });
    expect(stored!.created_at).toBeInstanceOf(Date);
    expect(await counts(t)).toEqual({ ...before, teachers: before.teachers + 1 });
  });

  it("when two teachers have the same name, then both are created with different ids (names need not be unique)", async () => {
    const first = expectSuccess(await t.gql(CreateTeacherDocument, { input: { teacher_name: "Twin" } }, ADMIN)).data;

    const second = expectSuccess(await t.gql(CreateTeacherDocument, { input: { teacher_name: "twin" } }, ADMIN)).data;

    expect(second.teacher_id).toBeGreaterThan(first.teacher_id);
    expect(
      await t.db.models.Teacher.countDocuments({ teacher_id: { $in: [first.teacher_id, second.teacher_id] } }),
    ).toBe(2);
  });

  it.each([
    ["a 200-character name", "g".repeat(200)],
    ["a 1-character name", "G"],
    ["a name with non-Latin letters", "Jürgen Ångström 李雷"],
    ["a name of 200 characters outside the BMP (400 UTF-16 units)", "🎓".repeat(200)],
  ])("when the teacher has %s, then it is accepted and stored", async (_label, name) => {
    const res = await t.gql(CreateTeacherDocument, { input: { teacher_name: name } }, ADMIN);

    const data = expectSuccess(res).data;
    expect(data.teacher_name).toBe(name);
    expect((await t.db.models.Teacher.findOne({ teacher_id: data.teacher_id }).lean())!.teacher_name).toBe(name);
  });

  it.each([
    ["an empty teacher_name", ""],
    ["a teacher_name of spaces only", "   "],
    ["a 201-character teacher_name", "g".repeat(201)],
    ["a teacher_name of 201 characters outside the BMP", "🎓".repeat(201)],
  ])("when called with %s, then it is BAD_REQUEST naming teacher_name and nothing is stored", async (_label, name) => {
    const before = await counts(t);

    const res = await t.gql(CreateTeacherDocument, { input: { teacher_name: name } }, ADMIN);

    expectFailure(res, "BAD_REQUEST", "teacher_name");
    expect(await counts(t)).toEqual(before);
  });

  it.each([
    ["teacher", TEACHER],
    ["student", STUDENT],
  ])("when a %s creates a teacher, then it is FORBIDDEN and nothing is stored", async (role, headers) => {
    const before = await counts(t);

    const res = await t.gql(CreateTeacherDocument, { input: { teacher_name: "Not Allowed" } }, headers);

    expectFailure(res, "FORBIDDEN", new RegExp(role));
    expect(await counts(t)).toEqual(before);
  });

  it.each<[string, Record<string, string>]>([
    ["no X-User-Role", {}],
    ["an unknown X-User-Role", { "x-user-role": "root" }],
  ])("when called with %s, then it is UNAUTHORIZED and nothing is stored", async (_label, headers) => {
    const before = await counts(t);

    const res = await t.gql(CreateTeacherDocument, { input: { teacher_name: "Not Allowed" } }, headers);

    expectFailure(res, "UNAUTHORIZED", /X-User-Role/);
    expect(await counts(t)).toEqual(before);
  });
});
