// REST PUT /teachers/{teacherId} in both auth modes: rename (status, envelope, stored name) and every error kind —
// an unknown teacher is 400 because the interface lists no 404 for it.
import { bearer } from "../helpers/tokens";
import {
  actingAs,
  BAD_PATH_IDS,
  expectError,
  expectSuccess,
  MODES,
  seedTeacher,
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

describe.each(MODES)("PUT /teachers/{teacherId} (%s mode)", (mode) => {
  const put = async (teacherId: number | string, body: unknown, role = "teacher") =>
    apps[mode].http("PUT", `/teachers/${teacherId}`, { body, headers: await actingAs(mode, role) });
  const storedName = async (teacher_id: number) =>
    (await apps[mode].db.models.Teacher.findOne({ teacher_id }).lean())!.teacher_name;

  it.each(["teacher", "admin"])(
    "when a %s renames a teacher, then it is 200 with the teacher and the trimmed name is stored",
    async (role) => {
      const teacher = await seedTeacher(apps);

      const data = expectSuccess(
        await put(teacher.teacher_id, { teacher_name: "  Grace Hopper " }, role),
        200,
        "Teacher updated",
      );

      expect(data).toEqual({ teacher_id: teacher.teacher_id, teacher_name: "Grace Hopper" });
      expect(await storedName(teacher.teacher_id)).toBe("Grace Hopper");
    },
  );

  it("when the teacher does not exist, then it is 400 (the interface lists no 404 here)", async () => {
    expectError(
      await put(999_999, { teacher_name: "Nobody" }),
      400,
      "BAD_REQUEST",
      /teacherId 999999 does not name an existing teacher/,
    );
    expect(await apps[mode].db.models.Teacher.exists({ teacher_id: 999_999 })).toBeNull();
  });

  it("when teacher_name is empty, too long, not a string, null or missing, then it is 400 naming it and the name stays", async () => {
    const teacher = await seedTeacher(apps);
    expectError(
      await put(teacher.teacher_id, { teacher_name: " " }),
      400,
      "BAD_REQUEST",
      /teacher_name must not be empty/,
    );
    expectError(
      await put(teacher.teacher_id, { teacher_name: "x".repeat(201) }),
      400,
      "BAD_REQUEST",
      /teacher_name must be at most 200 characters/,
    );
    expectError(
      await put(teacher.teacher_id, { teacher_name: ["Ada"] }),
      400,
      "BAD_REQUEST",
      "teacher_name must be a string (got array)",
    );
    expectError(
      await put(teacher.teacher_id, { teacher_name: null }),
      400,
      "BAD_REQUEST",
      "teacher_name must be a string (got null)",
    );
    expectError(await put(teacher.teacher_id, {}), 400, "BAD_REQUEST", "teacher_name is required");
    expect(await storedName(teacher.teacher_id)).toBe(teacher.teacher_name);
  });

  it("when the body has an unknown field, then it is 400 naming it", async () => {
    const teacher = await seedTeacher(apps);
    const res = await put(teacher.teacher_id, { teacher_name: "Ada", teacher_id: 5 });
    expectError(res, 400, "BAD_REQUEST", "teacher_id is not an accepted field; accepted fields: teacher_name");
    expect(await storedName(teacher.teacher_id)).toBe(teacher.teacher_name);
  });

  it.each(BAD_PATH_IDS)("when the path id is %p, then it is 400 naming teacherId", async (id) => {
    expectError(
      await put(id, { teacher_name: "Ada" }),
      400,
      "BAD_REQUEST",
      "teacherId must be a whole number from 1 to 2147483647",
    );
  });

  it("when a student renames, then it is 403 and the name stays", async () => {
    const teacher = await seedTeacher(apps);
    expectError(
      await put(teacher.teacher_id, { teacher_name: "Mallory" }, "student"),
      403,
      "FORBIDDEN",
      /updateTeacher is not allowed for role student/,
    );
    expect(await storedName(teacher.teacher_id)).toBe(teacher.teacher_name);
  });

  it("when the caller is not authenticated, then it is 401 and the name stays", async () => {
    const teacher = await seedTeacher(apps);
    for (const [, headers] of await unauthenticated(mode)) {
      expectError(
        await apps[mode].http("PUT", `/teachers/${teacher.teacher_id}`, { body: { teacher_name: "Mallory" }, headers }),
        401,
        "UNAUTHORIZED",
      );
    }
    if (mode === "jwt") {
      const res = await apps.jwt.http("PUT", `/teachers/${teacher.teacher_id}`, {
        body: { teacher_name: "Mallory" },
        headers: await bearer(undefined, ["admin"]),
      });
      expectError(res, 401, "UNAUTHORIZED", /needs an X-User-Role header/);
    }
    expect(await storedName(teacher.teacher_id)).toBe(teacher.teacher_name);
  });

  it("when the JSON is malformed, then it is 400", async () => {
    const res = await apps[mode].http("PUT", "/teachers/1", {
      rawBody: '{"teacher_name": "Ada"',
      headers: await actingAs(mode, "admin"),
    });
    expectError(res, 400, "BAD_REQUEST", /malformed JSON/);
  });
});
