// REST PUT /students/{studentId} in both auth modes: update name and class (status, envelope, stored state), the
// no-op with neither field, email refused as not updatable, and every error kind.
import { bearer } from "../helpers/tokens";
import {
  actingAs,
  BAD_PATH_IDS,
  expectError,
  expectSuccess,
  MODES,
  seedStudent,
  startRestApps,
  unauthenticated,
  type RestApps,
} from "./support";

let apps: RestApps;
beforeAll(async () => {
  apps = await startRestApps();
});
afterAll(async () => {
  await apps.close();
});

describe.each(MODES)("PUT /students/{studentId} (%s mode)", (mode) => {
  const put = async (studentId: number | string, body: unknown, role = "teacher") =>
    apps[mode].http("PUT", `/students/${studentId}`, { body, headers: await actingAs(mode, role) });
  const stored = async (student_id: number) => (await apps[mode].db.models.Student.findOne({ student_id }).lean())!;

  it.each(["teacher", "admin"])(
    "when a %s updates name and class, then it is 200 with the student and both are stored",
    async (role) => {
      const student = await seedStudent(apps);

      const data = expectSuccess(
        await put(student.student_id, { student_name: " Mei Lin ", class_code: "B2" }, role),
        200,
        "Student updated",
      );

      expect(data).toEqual({
        student_id: student.student_id,
        student_name: "Mei Lin",
        email: student.email,
        class_code: "B2",
      });
      expect(await stored(student.student_id)).toMatchObject({
        student_name: "Mei Lin",
        class_code: "B2",
        email: student.email,
      });
    },
  );

  it("when only class_code is sent, then only it changes", async () => {
    const student = await seedStudent(apps);
    const data = expectSuccess(await put(student.student_id, { class_code: "C3" }), 200, "Student updated");
    expect(data).toMatchObject({ student_name: student.student_name, class_code: "C3" });
    expect(await stored(student.student_id)).toMatchObject({ student_name: student.student_name, class_code: "C3" });
  });

  it("when neither field is sent (or both are null), then it is a successful no-op", async () => {
    const student = await seedStudent(apps);
    const expected = {
      student_id: student.student_id,
      student_name: student.student_name,
      email: student.email,
      class_code: student.class_code,
    };
    expect(expectSuccess(await put(student.student_id, {}), 200, "Student updated")).toEqual(expected);
    expect(
      expectSuccess(await put(student.student_id, { student_name: null, class_code: null }), 200, "Student updated"),
    ).toEqual(expected);
    expect(await stored(student.student_id)).toMatchObject({
      student_name: student.student_name,
      class_code: student.class_code,
    });
  });

  it("when the body has email, then it is 400 naming email as not accepted, and nothing changes", async () => {
    const student = await seedStudent(apps);
    const res = await put(student.student_id, { student_name: "Changed", email: "new@example.com" });
    expectError(res, 400, "BAD_REQUEST", "email is not an accepted field; accepted fields: student_name, class_code");
    expect(await stored(student.student_id)).toMatchObject({
      student_name: student.student_name,
      email: student.email,
    });
  });

  it("when a field has the wrong type, then it is 400 naming it", async () => {
    const student = await seedStudent(apps);
    expectError(
      await put(student.student_id, { class_code: 5 }),
      400,
      "BAD_REQUEST",
      "class_code must be a string or null (got integer)",
    );
    expectError(
      await put(student.student_id, { student_name: { first: "Mei" } }),
      400,
      "BAD_REQUEST",
      "student_name must be a string or null (got object)",
    );
  });

  it("when a value breaks a domain rule, then it is 400 with the service's message", async () => {
    const student = await seedStudent(apps);
    expectError(
      await put(student.student_id, { class_code: "x".repeat(33) }),
      400,
      "BAD_REQUEST",
      /class_code must be at most 32 characters/,
    );
    expectError(
      await put(student.student_id, { student_name: "" }),
      400,
      "BAD_REQUEST",
      /student_name must not be empty/,
    );
    expect(await stored(student.student_id)).toMatchObject({
      student_name: student.student_name,
      class_code: student.class_code,
    });
  });

  it("when the student does not exist, then it is 404", async () => {
    expectError(await put(999_999, { class_code: "B2" }), 404, "NOT_FOUND", /student 999999 does not exist/);
    expectError(await put(999_999, {}), 404, "NOT_FOUND", /student 999999 does not exist/);
  });

  it.each(BAD_PATH_IDS)("when the path id is %p, then it is 400 naming studentId", async (id) => {
    expectError(
      await put(id, { class_code: "B2" }),
      400,
      "BAD_REQUEST",
      "studentId must be a whole number from 1 to 9007199254740991",
    );
  });

  it("when a student updates, then it is 403 and nothing changes", async () => {
    const student = await seedStudent(apps);
    expectError(
      await put(student.student_id, { class_code: "Z9" }, "student"),
      403,
      "FORBIDDEN",
      /updateStudent is not allowed for role student/,
    );
    expect((await stored(student.student_id)).class_code).toBe(student.class_code);
  });

  it("when the caller is not authenticated, then it is 401 and nothing changes", async () => {
    const student = await seedStudent(apps);
    for (const [, headers] of await unauthenticated(mode)) {
      expectError(
        await apps[mode].http("PUT", `/students/${student.student_id}`, { body: { class_code: "Z9" }, headers }),
        401,
        "UNAUTHORIZED",
      );
    }
    if (mode === "jwt") {
      const res = await apps.jwt.http("PUT", `/students/${student.student_id}`, {
        body: { class_code: "Z9" },
        headers: await bearer(undefined, ["teacher"]),
      });
      expectError(res, 401, "UNAUTHORIZED", /needs an X-User-Role header/);
    }
    expect((await stored(student.student_id)).class_code).toBe(student.class_code);
  });

  it("when the JSON is malformed, then it is 400", async () => {
    const res = await apps[mode].http("PUT", "/students/1", {
      rawBody: "{'class_code': 'B2'}",
      headers: await actingAs(mode, "admin"),
    });
    expectError(res, 400, "BAD_REQUEST", /malformed JSON/);
  });
});
