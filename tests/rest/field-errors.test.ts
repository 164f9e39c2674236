// Field errors of the REST facade: error bodies carry the same errors array as the GraphQL payloads. Body-shape
// problems (Ajv: wrong types, missing and unknown fields) and value problems (the services' rules) are each listed
// all at once; the text rules hold for JSON escapes too (a lone \ud800 is refused, not stored as U+FFFD).
import { actingAs, expectError, projectBody, seedProject, seedStudent, startRestApps, type RestApps } from "./support";

let apps: RestApps;
beforeAll(async () => {
  apps = await startRestApps();
});
afterAll(async () => {
  await apps.close();
});

const post = async (body: unknown) =>
  apps.header.http("POST", "/projects", { body, headers: await actingAs("header", "student") });
const stored = (project_name: string) => apps.header.db.models.Project.exists({ project_name });

describe("REST field errors", () => {
  it("when several values are invalid, then every one is listed in body order and nothing is stored", async () => {
    const body = projectBody({ project_desc: " ", company_id: 0, project_url: "mailto:a@b.c", end_date: "2024-12-31" });

    const res = await post(body);

    expectError(res, 400, "BAD_REQUEST", "project_desc must not be empty");
    expect(res.body.errors).toEqual([
      { field: "project_desc", message: "project_desc must not be empty", code: "BAD_REQUEST", reason: "BLANK" },
      {
        field: "company_id",
        message: "company_id must be a whole number from 1 to 2147483647",
        code: "BAD_REQUEST",
        reason: "OUT_OF_RANGE",
      },
      {
        field: "project_url",
        message: "project_url must be an absolute http or https URL",
        code: "BAD_REQUEST",
        reason: "INVALID_FORMAT",
      },
      {
        field: "end_date",
        message: "end_date 2024-12-31 is before start_date 2025-01-10",
        code: "BAD_REQUEST",
        reason: "OUT_OF_RANGE",
      },
    ]);
    expect(await stored(body.project_name)).toBeNull();
  });

  it("when the body has several shape problems, then each is listed naming its field", async () => {
    const { project_desc: _missing, ...body } = projectBody({ company_id: "3", start_date: 20250110, teacher_id: 1 });

    const res = await post(body);

    expectError(res, 400, "BAD_REQUEST");
    expect(res.body.errors).toEqual(
      expect.arrayContaining([
        { field: "project_desc", message: "project_desc is required", code: "BAD_REQUEST", reason: "REQUIRED" },
        {
          field: "teacher_id",
          message: expect.stringMatching(/^teacher_id is not an accepted field; accepted fields: project_name,/),
          code: "BAD_REQUEST",
          reason: "UNKNOWN_FIELD",
        },
        {
          field: "company_id",
          message: "company_id must be a whole number (got string)",
          code: "BAD_REQUEST",
          reason: "WRONG_TYPE",
        },
        {
          field: "start_date",
          message: "start_date must be a string (got integer)",
          code: "BAD_REQUEST",
          reason: "WRONG_TYPE",
        },
      ]),
    );
    expect(res.body.errors).toHaveLength(4);
    expect(await stored(body.project_name)).toBeNull();
  });

  it("when the body is not an object, then the one entry concerns no field", async () => {
    const res = await apps.header.http("PUT", "/teachers/1", { body: [1], headers: await actingAs("header", "admin") });
    expectError(res, 400, "BAD_REQUEST", "request body must be a JSON object (got array)");
    expect(res.body.errors).toEqual([
      {
        field: null,
        message: "request body must be a JSON object (got array)",
        code: "BAD_REQUEST",
        reason: "WRONG_TYPE",
      },
    ]);
  });

  it("when the path id is invalid, then the entry names the parameter", async () => {
    const res = await apps.header.http("PUT", "/students/abc", {
      body: { class_code: "B2" },
      headers: await actingAs("header", "admin"),
    });
    expect(res.body.errors).toEqual([
      {
        field: "studentId",
        message: "studentId must be a whole number from 1 to 9007199254740991",
        code: "BAD_REQUEST",
        reason: "INVALID_FORMAT",
      },
    ]);
  });

  it.each([
    [
      "a NUL escape",
      '"Solar\\u0000Car"',
      /project_name must not contain control characters \(found U\+0000\)/,
      "FORBIDDEN_CHARACTERS",
    ],
    [
      "an ANSI escape sequence",
      '"\\u001b[31mSolar\\u001b[0m"',
      /project_name must not contain control characters \(found U\+001B\)/,
      "FORBIDDEN_CHARACTERS",
    ],
    [
      "a lone surrogate escape",
      '"Solar\\ud800Car"',
      /project_name must not contain an unpaired UTF-16 surrogate \(found U\+D800\)/,
      "FORBIDDEN_CHARACTERS",
    ],
    [
      "a right-to-left override",
      '"Solar\\u202eraC"',
      /project_name must not contain bidirectional .* \(found U\+202E\)/,
      "FORBIDDEN_CHARACTERS",
    ],
    [
      "only zero-width spaces",
      '"\\u200b\\u200b\\u200b"',
      /project_name must not be empty: it contains only invisible characters/,
      "BLANK",
    ],
  ])(
    "when project_name is sent with %s in the JSON text, then it is 400 naming project_name and nothing is stored",
    async (_label, json, message, reason) => {
      const marker = `marker-${Math.random()}`;
      const body = projectBody({ project_desc: marker });
      const rawBody = JSON.stringify(body).replace(JSON.stringify(body.project_name), json);

      const res = await apps.header.http("POST", "/projects", {
        rawBody,
        headers: await actingAs("header", "student"),
      });

      expectError(res, 400, "BAD_REQUEST", message);
      expect(res.body.errors).toEqual([
        { field: "project_name", message: res.body.message, code: "BAD_REQUEST", reason },
      ]);
      expect(await apps.header.db.models.Project.exists({ project_desc: marker })).toBeNull();
    },
  );

  it("when a student's update breaks text rules in both fields, then both are listed and nothing changes", async () => {
    const student = await seedStudent(apps);
    const res = await apps.header.http("PUT", `/students/${student.student_id}`, {
      rawBody: '{"student_name": "\\u2066Mei", "class_code": "B\\u00002"}',
      headers: await actingAs("header", "teacher"),
    });
    expectError(res, 400, "BAD_REQUEST", /student_name/);
    expect(res.body.errors!.map((e) => e.field)).toEqual(["student_name", "class_code"]);
    expect(await apps.header.db.models.Student.findOne({ student_id: student.student_id }).lean()).toMatchObject({
      student_name: "Lin Chen",
      class_code: "A1",
    });
  });

  it("when a failure belongs to a field (conflict) or to none (no route, no role), then errors says so", async () => {
    const project = await seedProject(apps);
    const conflict = await post(projectBody({ project_name: project.project_name }));
    expectError(conflict, 409, "CONFLICT");
    expect(conflict.body.errors).toEqual([
      { field: "project_name", message: conflict.body.message, code: "CONFLICT", reason: "TAKEN" },
    ]);

    const noRoute = await apps.header.http("GET", "/nowhere", { headers: await actingAs("header", "admin") });
    expect(noRoute.body.errors).toEqual([
      { field: null, message: "no route GET /nowhere", code: "NOT_FOUND", reason: "NOT_FOUND" },
    ]);

    const noRole = await apps.header.http("POST", "/projects", { body: projectBody() });
    expectError(noRole, 401, "UNAUTHORIZED");
    expect(noRole.body.errors).toEqual([
      { field: null, message: noRole.body.message, code: "UNAUTHORIZED", reason: "NOT_ALLOWED" },
    ]);
  });
});
