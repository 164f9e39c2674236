// REST project routes in both auth modes: POST /projects, PUT /projects/{id}/teacher, PUT /projects/{id}/updateStatus —
// success (status, envelope, stored state) and every error kind the contract lists for each.
import { bearer } from "../helpers/tokens";
import {
  actingAs,
  BAD_PATH_IDS,
  expectError,
  expectSuccess,
  MODES,
  projectBody,
  seedProject,
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

describe.each(MODES)("POST /projects (%s mode)", (mode) => {
  const post = async (body: unknown, role = "student") =>
    apps[mode].http("POST", "/projects", { body, headers: await actingAs(mode, role) });

  it.each(["student", "admin"])(
    "when a %s creates a valid project, then it is 201 with the project and it is stored",
    async (role) => {
      const body = projectBody({ project_name: "  Solar Car  ".replace("Solar", `Solar ${mode} ${role}`) });

      const res = await post(body, role);

      const data = expectSuccess<{ project_id: number; project_name: string }>(res, 201, "Project created");
      expect(data).toEqual({
        project_id: expect.any(Number),
        project_name: `Solar ${mode} ${role} Car`,
        project_desc: body.project_desc,
        company_id: 7,
        project_status: "planned",
        project_url: "https://example.com/project",
        start_date: "2025-01-10",
        end_date: "2025-06-30",
        teacher_id: null,
        revision: 1,
        // The caller: the token's sub in jwt mode; header mode sent no X-User-Id.
        created_by: mode === "jwt" ? "user-1" : null,
        archived_at: null,
        created_at: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T/),
        updated_at: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T/),
      });
      const stored = await apps[mode].db.models.Project.findOne({ project_id: data.project_id }).lean();
      expect(stored).toMatchObject({ project_name: data.project_name, company_id: 7, teacher_id: null });
    },
  );

  it("when project_url is left out or null, then the project is created without one", async () => {
    const { project_url: _omitted, ...withoutUrl } = projectBody();
    expect(expectSuccess(await post(withoutUrl), 201, "Project created").project_url).toBeNull();
    expect(
      expectSuccess(await post(projectBody({ project_url: null })), 201, "Project created").project_url,
    ).toBeNull();
  });

  it('when company_id is the string "3", then it is 400 naming company_id and it is not coerced', async () => {
    const body = projectBody({ company_id: "3" });
    const res = await post(body);
    expectError(res, 400, "BAD_REQUEST", /company_id must be a whole number/);
    expect(await apps[mode].db.models.Project.exists({ project_name: body.project_name })).toBeNull();
  });

  it.each([
    ["project_name", 5, /project_name must be a string \(got integer\)/],
    ["start_date", 20250110, /start_date must be a string/],
    ["company_id", 1.5, /company_id must be a whole number \(got number\)/],
    ["project_url", false, /project_url must be a string or null/],
  ])("when %s has the wrong JSON type, then it is 400 naming it", async (field, value, message) => {
    expectError(await post(projectBody({ [field]: value })), 400, "BAD_REQUEST", message);
  });

  it("when the body has an unknown field, then it is 400 naming it and nothing is stored", async () => {
    const body = projectBody({ teacher_id: 1 });
    expectError(
      await post(body),
      400,
      "BAD_REQUEST",
      /^teacher_id is not an accepted field; accepted fields: project_name,/,
    );
    expect(await apps[mode].db.models.Project.exists({ project_name: body.project_name })).toBeNull();
  });

  it("when a required field is missing, then it is 400 naming it", async () => {
    const { project_desc: _missing, ...body } = projectBody();
    expectError(await post(body), 400, "BAD_REQUEST", "project_desc is required");
  });

  it.each([
    [{ project_name: "   " }, /project_name must not be empty/],
    [{ project_desc: "x".repeat(5001) }, /project_desc must be at most 5000 characters/],
    [{ company_id: 0 }, /company_id must be a whole number from 1 to 2147483647/],
    [{ start_date: "2025-02-30" }, /start_date must be a real calendar date/],
    [{ end_date: "2024-12-31" }, /end_date 2024-12-31 is before start_date 2025-01-10/],
    [{ project_url: "ftp://example.com" }, /project_url must be an absolute http or https URL/],
  ])(
    "when a value breaks a domain rule (%o), then it is 400 with the service's message",
    async (overrides, message) => {
      expectError(await post(projectBody(overrides)), 400, "BAD_REQUEST", message);
    },
  );

  it("when another project of the same company has the name (ignoring case and spaces), then it is 409", async () => {
    const body = projectBody();
    expectSuccess(await post(body), 201, "Project created");
    const res = await post({ ...body, project_name: `  ${String(body.project_name).toUpperCase()} ` });
    expectError(res, 409, "CONFLICT", /company_id 7 already has a project/);
    expect(
      await apps[mode].db.models.Project.countDocuments({
        company_id: 7,
        name_key: String(body.project_name).toLowerCase(),
      }),
    ).toBe(1);
  });

  it("when several identical creations race, then exactly one is 201 and the others are 409", async () => {
    const body = projectBody();
    const results = await Promise.all(Array.from({ length: 5 }, () => post(body, "admin")));
    expect(results.map((r) => r.status).sort()).toEqual([201, 409, 409, 409, 409]);
    for (const res of results.filter((r) => r.status === 409)) expectError(res, 409, "CONFLICT");
    expect(await apps[mode].db.models.Project.countDocuments({ project_name: body.project_name })).toBe(1);
  });

  it("when a teacher (a role the operation does not allow) creates, then it is 401 as the interface lists no 403", async () => {
    expectError(await post(projectBody(), "teacher"), 401, "UNAUTHORIZED", /not allowed for role teacher/);
  });

  it("when the caller is not authenticated in any way, then it is 401 and nothing is stored", async () => {
    for (const [, headers] of await unauthenticated(mode)) {
      const body = projectBody();
      expectError(await apps[mode].http("POST", "/projects", { body, headers }), 401, "UNAUTHORIZED");
      expect(await apps[mode].db.models.Project.exists({ project_name: body.project_name })).toBeNull();
    }
  });

  it("when the JSON is malformed, then it is 400", async () => {
    const res = await apps[mode].http("POST", "/projects", {
      rawBody: '{"project_name": ',
      headers: await actingAs(mode, "admin"),
    });
    expectError(res, 400, "BAD_REQUEST", /malformed JSON/);
  });
});

describe.each(MODES)("PUT /projects/{projectId}/teacher (%s mode)", (mode) => {
  const put = async (projectId: number | string, body: unknown, role = "teacher") =>
    apps[mode].http("PUT", `/projects/${projectId}/teacher`, { body, headers: await actingAs(mode, role) });

  it.each(["teacher", "admin"])(
    "when a %s assigns an existing teacher, then it is 200 with the project and teacher_id is stored",
    async (role) => {
      const project = await seedProject(apps);
      const teacher = await seedTeacher(apps);

      const res = await put(project.project_id, { new_teacher_id: teacher.teacher_id }, role);

      const data = expectSuccess(res, 200, "Teacher assigned to project");
      expect(data).toMatchObject({
        project_id: project.project_id,
        project_name: project.project_name,
        teacher_id: teacher.teacher_id,
      });
      expect(Object.keys(data)).not.toContain("teacher");
      expect((await apps[mode].db.models.Project.findOne({ project_id: project.project_id }).lean())!.teacher_id).toBe(
        teacher.teacher_id,
      );
    },
  );

  it("when the project does not exist, then it is 404", async () => {
    const teacher = await seedTeacher(apps);
    expectError(
      await put(999_999, { new_teacher_id: teacher.teacher_id }),
      404,
      "NOT_FOUND",
      /project 999999 does not exist/,
    );
  });

  it("when the teacher does not exist, then it is 404 and the project keeps no teacher", async () => {
    const project = await seedProject(apps);
    expectError(
      await put(project.project_id, { new_teacher_id: 999_999 }),
      404,
      "NOT_FOUND",
      /teacher 999999 \(new_teacher_id\) does not exist/,
    );
    expect(
      (await apps[mode].db.models.Project.findOne({ project_id: project.project_id }).lean())!.teacher_id,
    ).toBeNull();
  });

  it("when expected_revision is the current revision, then it is 200 with the next revision; when it is not, 409 and nothing changes", async () => {
    const project = await seedProject(apps);
    const [first, second] = [await seedTeacher(apps), await seedTeacher(apps)];

    const ok = await put(project.project_id, { new_teacher_id: first.teacher_id, expected_revision: 1 });
    const stale = await put(project.project_id, { new_teacher_id: second.teacher_id, expected_revision: 1 });

    expect(expectSuccess(ok, 200, "Teacher assigned to project")).toMatchObject({
      teacher_id: first.teacher_id,
      revision: 2,
    });
    expectError(stale, 409, "CONFLICT", /expected_revision 1/);
    expect(await apps[mode].db.models.Project.findOne({ project_id: project.project_id }).lean()).toMatchObject({
      teacher_id: first.teacher_id,
      revision: 2,
    });
  });

  it("when a teacher is assigned, then the change is recorded with the caller as its actor", async () => {
    const project = await seedProject(apps);
    const teacher = await seedTeacher(apps);
    const headers = { ...(await actingAs(mode, "teacher")), ...(mode === "header" ? { "x-user-id": "t-42" } : {}) };

    await apps[mode].http("PUT", `/projects/${project.project_id}/teacher`, {
      body: { new_teacher_id: teacher.teacher_id },
      headers,
    });

    const history = await apps.services.projects.history({ project_id: project.project_id, revision: 2 });
    expect(history.items[0]).toMatchObject({
      revision: 2,
      operation: "assignTeacher",
      actor_id: mode === "jwt" ? "user-1" : "t-42",
      actor_role: "teacher",
      changes: [{ field: "teacher_id", from: null, to: String(teacher.teacher_id) }],
    });
  });

  it("when the project already has that teacher, then it is 409", async () => {
    const project = await seedProject(apps);
    const teacher = await seedTeacher(apps);
    expectSuccess(
      await put(project.project_id, { new_teacher_id: teacher.teacher_id }),
      200,
      "Teacher assigned to project",
    );
    expectError(
      await put(project.project_id, { new_teacher_id: teacher.teacher_id }),
      409,
      "CONFLICT",
      /already assigned/,
    );
  });

  it("when new_teacher_id is a string, missing, 0 or the body has another field, then it is 400 naming the field", async () => {
    const project = await seedProject(apps);
    const teacher = await seedTeacher(apps);
    expectError(
      await put(project.project_id, { new_teacher_id: String(teacher.teacher_id) }),
      400,
      "BAD_REQUEST",
      /new_teacher_id must be a whole number \(got string\)/,
    );
    expectError(await put(project.project_id, {}), 400, "BAD_REQUEST", "new_teacher_id is required");
    expectError(
      await put(project.project_id, { new_teacher_id: 0 }),
      400,
      "BAD_REQUEST",
      /new_teacher_id must be a whole number from 1 to 2147483647/,
    );
    expectError(
      await put(project.project_id, { new_teacher_id: teacher.teacher_id, teacher_id: 1 }),
      400,
      "BAD_REQUEST",
      /^teacher_id is not an accepted field; accepted fields: new_teacher_id, expected_revision$/,
    );
    expect(
      (await apps[mode].db.models.Project.findOne({ project_id: project.project_id }).lean())!.teacher_id,
    ).toBeNull();
  });

  it.each(BAD_PATH_IDS)("when the path id is %p, then it is 400 naming projectId", async (id) => {
    expectError(
      await put(id, { new_teacher_id: 1 }),
      400,
      "BAD_REQUEST",
      "projectId must be a whole number from 1 to 2147483647",
    );
  });

  it("when a student assigns, then it is 403 and nothing changes", async () => {
    const project = await seedProject(apps);
    const teacher = await seedTeacher(apps);
    expectError(
      await put(project.project_id, { new_teacher_id: teacher.teacher_id }, "student"),
      403,
      "FORBIDDEN",
      /assignTeacher is not allowed for role student/,
    );
    expect(
      (await apps[mode].db.models.Project.findOne({ project_id: project.project_id }).lean())!.teacher_id,
    ).toBeNull();
  });

  it("when the caller is not authenticated, then it is 401", async () => {
    const project = await seedProject(apps);
    for (const [, headers] of await unauthenticated(mode)) {
      expectError(
        await apps[mode].http("PUT", `/projects/${project.project_id}/teacher`, {
          body: { new_teacher_id: 1 },
          headers,
        }),
        401,
        "UNAUTHORIZED",
      );
    }
  });

  if (mode === "jwt") {
    it("when a valid token comes without X-User-Role, then it is 401 because this operation needs a role", async () => {
      const project = await seedProject(apps);
      const res = await apps.jwt.http("PUT", `/projects/${project.project_id}/teacher`, {
        body: { new_teacher_id: 1 },
        headers: await bearer(undefined, ["admin"]),
      });
      expectError(res, 401, "UNAUTHORIZED", /needs an X-User-Role header/);
    });
  }

  it("when the JSON is malformed, then it is 400", async () => {
    const res = await apps[mode].http("PUT", "/projects/1/teacher", {
      rawBody: "{new_teacher_id: 1}",
      headers: await actingAs(mode, "admin"),
    });
    expectError(res, 400, "BAD_REQUEST", /malformed JSON/);
  });
});

describe.each(MODES)("PUT /projects/{projectId}/updateStatus (%s mode)", (mode) => {
  const put = async (projectId: number | string, body: unknown, role = "student") =>
    apps[mode].http("PUT", `/projects/${projectId}/updateStatus`, { body, headers: await actingAs(mode, role) });

  it.each(["student", "teacher", "admin"])(
    "when a %s changes the status, then it is 200 with the project and the status is stored",
    async (role) => {
      const project = await seedProject(apps);

      const data = expectSuccess(
        await put(project.project_id, { project_status: "  in_progress " }, role),
        200,
        "Project status updated",
      );

      expect(data).toMatchObject({ project_id: project.project_id, project_status: "in_progress" });
      expect(
        (await apps[mode].db.models.Project.findOne({ project_id: project.project_id }).lean())!.project_status,
      ).toBe("in_progress");
    },
  );

  it("when expected_revision is not the current revision, then it is 409 and the status does not change", async () => {
    const project = await seedProject(apps);

    const stale = await put(project.project_id, { project_status: "done", expected_revision: 2 });
    const ok = await put(project.project_id, { project_status: "done", expected_revision: 1 });

    expectError(stale, 409, "CONFLICT", /expected_revision 2/);
    expect(expectSuccess(ok, 200, "Project status updated")).toMatchObject({ project_status: "done", revision: 2 });
  });

  it("when the same status is set again, then it succeeds", async () => {
    const project = await seedProject(apps);
    expectSuccess(
      await put(project.project_id, { project_status: project.project_status }),
      200,
      "Project status updated",
    );
  });

  if (mode === "jwt") {
    it("when a valid token comes without X-User-Role, then it succeeds: any authenticated caller may change the status", async () => {
      const project = await seedProject(apps);
      const res = await apps.jwt.http("PUT", `/projects/${project.project_id}/updateStatus`, {
        body: { project_status: "done" },
        headers: await bearer(undefined, ["student"]),
      });
      expect(expectSuccess(res, 200, "Project status updated").project_status).toBe("done");
    });
  }

  it("when the project does not exist, then it is 404", async () => {
    expectError(await put(999_999, { project_status: "done" }), 404, "NOT_FOUND", /project 999999 does not exist/);
  });

  it("when project_status is empty, too long, not a string, missing or joined by another field, then it is 400 naming the field", async () => {
    const project = await seedProject(apps);
    expectError(
      await put(project.project_id, { project_status: "  " }),
      400,
      "BAD_REQUEST",
      /project_status must not be empty/,
    );
    expectError(
      await put(project.project_id, { project_status: "x".repeat(65) }),
      400,
      "BAD_REQUEST",
      /project_status must be at most 64 characters/,
    );
    expectError(
      await put(project.project_id, { project_status: 3 }),
      400,
      "BAD_REQUEST",
      /project_status must be a string/,
    );
    expectError(await put(project.project_id, {}), 400, "BAD_REQUEST", "project_status is required");
    expectError(
      await put(project.project_id, { project_status: "done", status: "done" }),
      400,
      "BAD_REQUEST",
      /^status is not an accepted field/,
    );
    expect(
      (await apps[mode].db.models.Project.findOne({ project_id: project.project_id }).lean())!.project_status,
    ).toBe("planned");
  });

  it.each(BAD_PATH_IDS)("when the path id is %p, then it is 400 naming projectId", async (id) => {
    expectError(
      await put(id, { project_status: "done" }),
      400,
      "BAD_REQUEST",
      "projectId must be a whole number from 1 to 2147483647",
    );
  });

  it("when the caller is not authenticated, then it is 401 and the status does not change", async () => {
    const project = await seedProject(apps);
    for (const [, headers] of await unauthenticated(mode)) {
      const res = await apps[mode].http("PUT", `/projects/${project.project_id}/updateStatus`, {
        body: { project_status: "done" },
        headers,
      });
      expectError(res, 401, "UNAUTHORIZED");
    }
    expect(
      (await apps[mode].db.models.Project.findOne({ project_id: project.project_id }).lean())!.project_status,
    ).toBe("planned");
  });

  it("when the JSON is malformed, then it is 400", async () => {
    const res = await apps[mode].http("PUT", "/projects/1/updateStatus", {
      rawBody: "[",
      headers: await actingAs(mode, "admin"),
    });
    expectError(res, 400, "BAD_REQUEST", /malformed JSON/);
  });
});
