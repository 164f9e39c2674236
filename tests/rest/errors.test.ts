// Failures raised before or around the routes' own logic, in both auth modes: malformed, empty, missing, oversized
// and non-JSON bodies, unknown routes and methods, and internal errors (generic answer, detail in the log). Every
// body is the error envelope, never a framework default.
import { Writable } from "node:stream";
import pino from "pino";
import { BODY_LIMIT_BYTES, createApp } from "../../src/app";
import { INTERNAL_MESSAGE } from "../../src/shared/errors";
import { testAppConfig } from "../helpers/app-config";
import { actingAs, expectError, MODES, projectBody, seedProject, startRestApps, type RestApps } from "./support";

let apps: RestApps;
beforeAll(async () => {
  apps = await startRestApps();
});
afterAll(async () => {
  await apps.close();
});

const ROUTES = [
  ["POST", "/projects"],
  ["PUT", "/projects/1/teacher"],
  ["PUT", "/projects/1/updateStatus"],
  ["PUT", "/teachers/1"],
  ["PUT", "/students/1"],
] as const;

describe.each(MODES)("body and routing failures (%s mode)", (mode) => {
  const admin = () => actingAs(mode, "admin");

  it.each(ROUTES)("when %s %s gets malformed JSON, then it is 400", async (method, path) => {
    expectError(
      await apps[mode].http(method, path, { rawBody: '{"a": tru', headers: await admin() }),
      400,
      "BAD_REQUEST",
      /malformed JSON/,
    );
  });

  it.each(ROUTES)("when %s %s gets an empty JSON body, then it is 400", async (method, path) => {
    expectError(
      await apps[mode].http(method, path, { rawBody: "", headers: await admin() }),
      400,
      "BAD_REQUEST",
      /body is empty/,
    );
  });

  it.each(ROUTES)("when %s %s gets no body at all, then it is 400", async (method, path) => {
    expectError(
      await apps[mode].http(method, path, { headers: await admin() }),
      400,
      "BAD_REQUEST",
      "request body must be a JSON object (got null)",
    );
  });

  it.each(ROUTES)(
    "when %s %s gets a JSON array or string instead of an object, then it is 400",
    async (method, path) => {
      expectError(
        await apps[mode].http(method, path, { body: [1], headers: await admin() }),
        400,
        "BAD_REQUEST",
        "request body must be a JSON object (got array)",
      );
      expectError(
        await apps[mode].http(method, path, { body: "x", headers: await admin() }),
        400,
        "BAD_REQUEST",
        "request body must be a JSON object (got string)",
      );
    },
  );

  it.each(ROUTES)("when %s %s gets a body over the 1 MiB limit, then it is 413", async (method, path) => {
    const body = projectBody({ project_desc: "x".repeat(BODY_LIMIT_BYTES) });
    const res = await apps[mode].http(method, path, { body, headers: await admin() });
    expectError(res, 413, "BAD_REQUEST", "request body is too large");
    expect(await apps[mode].db.models.Project.exists({ project_name: body.project_name })).toBeNull();
  });

  it.each(ROUTES)("when %s %s gets a body that is not application/json, then it is 415", async (method, path) => {
    for (const type of ["text/plain", "application/xml", "application/x-www-form-urlencoded"]) {
      const res = await apps[mode].http(method, path, {
        rawBody: "teacher_name=Ada",
        headers: { ...(await admin()), "content-type": type },
      });
      expectError(res, 415, "BAD_REQUEST", /Unsupported Media Type.*application\/json/);
    }
  });

  it("when a JSON body tries prototype pollution, then it is 400", async () => {
    const res = await apps[mode].http("PUT", "/teachers/1", {
      rawBody: '{"teacher_name": "Ada", "__proto__": {"x": 1}}',
      headers: await admin(),
    });
    expectError(res, 400, "BAD_REQUEST");
  });

  it.each([
    ["GET", "/nowhere"],
    ["GET", "/projects"],
    ["DELETE", "/projects/1/teacher"],
    ["PATCH", "/students/1"],
    ["POST", "/teachers/1"],
    ["PUT", "/projects/1"],
  ])("when %s %s is asked (no such route), then it is 404 with the envelope", async (method, path) => {
    expectError(
      await apps[mode].http(method, path, { headers: await admin() }),
      404,
      "NOT_FOUND",
      `no route ${method} ${path}`,
    );
  });

  it("when authentication fails and the body is malformed too, then authentication answers first (401)", async () => {
    expectError(await apps[mode].http("POST", "/projects", { rawBody: "{", headers: {} }), 401, "UNAUTHORIZED");
  });
});

describe("internal errors", () => {
  /** The real app on the shared database with a logger whose lines the test can read. */
  async function appWithCapturedLog() {
    const lines: { msg?: string; level?: number; err?: { message: string; stack?: string }; [key: string]: unknown }[] =
      [];
    const stream = new Writable({
      write(chunk, _encoding, done) {
        lines.push(JSON.parse(chunk.toString()));
        done();
      },
    });
    const app = await createApp({
      config: testAppConfig(),
      logger: pino({ level: "info" }, stream),
      db: apps.header.db,
    });
    const url = await app.listen({ port: 0, host: "127.0.0.1" });
    const put = async (path: string, body: unknown) => {
      const res = await fetch(url + path, {
        method: "PUT",
        headers: { "x-user-role": "admin", "content-type": "application/json" },
        body: JSON.stringify(body),
      });
      return { status: res.status, text: await res.text() };
    };
    return { app, lines, put };
  }

  it("when a stored record cannot be turned into a response, then it is 500 with a generic message and the detail is logged", async () => {
    const { app, lines, put } = await appWithCapturedLog();
    try {
      // A record written behind the service's back, without its description and timestamps: the API cannot answer it.
      await apps.header.db.models.Project.collection.insertOne({
        _id: "990001",
        project_id: 990_001,
        project_name: "Broken",
        project_status: "planned",
      } as never);

      const res = await put("/projects/990001/updateStatus", { project_status: "done" });

      expectError({ status: res.status, body: JSON.parse(res.text) }, 500, "INTERNAL_SERVER_ERROR", INTERNAL_MESSAGE);
      expect(res.text).not.toMatch(/project_desc|RangeError|\bat /);
      const logged = lines.find((line) => line.msg === "internal error");
      expect(logged).toBeDefined();
      expect(logged!.level).toBe(50);
      expect(logged!.err!.message).toMatch(/projects 990001 breaks the contract's rules/);
      expect(logged!.err!.stack).toEqual(expect.any(String));
      // The answer names what is wrong. The change itself is one conditional update with no read before it, so it
      // was applied to the stored record (and recorded) before the answer was found unanswerable.
      expect(lines).toContainEqual(
        expect.objectContaining({ level: 40, collection: "projects", id: 990_001, field: "project_desc" }),
      );
      const stored = await apps.header.db.models.Project.collection.findOne({ _id: "990001" } as never);
      expect(stored).toMatchObject({ project_status: "done", revision: 1 });
    } finally {
      await app.close();
    }
  });

  it("when a client error happens, then nothing is logged as an internal error", async () => {
    const { app, lines, put } = await appWithCapturedLog();
    try {
      const project = await seedProject(apps);
      expect((await put(`/projects/${project.project_id}/teacher`, { new_teacher_id: 999_999 })).status).toBe(404);
      expect((await put("/projects/abc/teacher", { new_teacher_id: 1 })).status).toBe(400);
      expect((await put("/teachers/1", { teacher_name: "x".repeat(BODY_LIMIT_BYTES) })).status).toBe(413);
      expect(lines.filter((line) => line.msg === "internal error")).toEqual([]);
    } finally {
      await app.close();
    }
  });
});
