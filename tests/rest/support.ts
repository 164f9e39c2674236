// Shared arrangements and assertions of the REST facade tests: one app per auth mode on one database, headers for
// acting in a role in either mode, the ways of not being authenticated, seeding through the domain services, and the
// envelope assertions (every body is exactly {success, message, data} or {success: false, message, code, errors}).
import { createServices, type Services } from "../../src/services";
import { FieldErrorReason } from "../../src/shared/errors";
import { startTestApp, type Headers, type RestBody, type TestApp } from "../helpers/app";
import { silentLogger, unique } from "../helpers/fixtures";
import { bearer, expiredToken, JWT_AUTH, token, unsignedToken, wronglySignedToken } from "../helpers/tokens";

export const MODES = ["header", "jwt"] as const;
export type Mode = (typeof MODES)[number];

export interface RestApps {
  header: TestApp;
  jwt: TestApp;
  /** Seeding and reading back through the same domain logic the routes use. */
  services: Services;
  close(): Promise<void>;
}

export async function startRestApps(): Promise<RestApps> {
  const header = await startTestApp();
  const jwt = await startTestApp({ auth: JWT_AUTH, db: header.db });
  return {
    header,
    jwt,
    services: createServices(header.db, undefined, silentLogger),
    async close() {
      await jwt.close();
      await header.close();
    },
  };
}

/** Headers acting in `role`: X-User-Role in header mode, a token granting it plus X-User-Role in jwt mode. */
export async function actingAs(mode: Mode, role: string): Promise<Headers> {
  return mode === "header" ? { "x-user-role": role } : bearer(role);
}

/** Every way of not being authenticated in a mode; each must be 401. */
export async function unauthenticated(mode: Mode): Promise<[string, Headers][]> {
  if (mode === "header") {
    return [
      ["no headers", {}],
      ["an unknown X-User-Role", { "x-user-role": "janitor" }],
      [
        "a bearer token but no role (header mode ignores tokens)",
        { authorization: `Bearer ${await token(["admin"])}` },
      ],
    ];
  }
  return [
    ["no token", { "x-user-role": "admin" }],
    ["a malformed token", { authorization: "Bearer not-a-jwt", "x-user-role": "admin" }],
    ["an expired token", { authorization: `Bearer ${await expiredToken(["admin"])}`, "x-user-role": "admin" }],
    [
      "a wrongly signed token",
      { authorization: `Bearer ${await wronglySignedToken(["admin"])}`, "x-user-role": "admin" },
    ],
    ["an alg none token", { authorization: `Bearer ${unsignedToken(["admin"])}`, "x-user-role": "admin" }],
    ["an X-User-Role the token does not grant", await bearer("admin", ["student"])],
    ["an unknown X-User-Role", await bearer("janitor", ["admin"])],
  ];
}

/** A valid create-project body; overrides may deliberately break it. */
export type ProjectBody = { project_name: string; project_desc: string; [field: string]: unknown };

export function projectBody(overrides: Record<string, unknown> = {}): ProjectBody {
  return {
    project_name: unique("Project"),
    project_desc: "A project to test with",
    company_id: 7,
    project_status: "planned",
    project_url: "https://example.com/project",
    start_date: "2025-01-10",
    end_date: "2025-06-30",
    ...overrides,
  };
}

export const seedProject = (apps: RestApps, overrides: Record<string, unknown> = {}) =>
  apps.services.projects.create(projectBody(overrides) as never);
export const seedTeacher = (apps: RestApps, teacher_name = unique("Teacher")) =>
  apps.services.teachers.create({ teacher_name });
export const seedStudent = (apps: RestApps) =>
  apps.services.students.create({
    student_name: "Lin Chen",
    email: `${unique("student")}@example.com`,
    class_code: "A1",
  });

/** The success envelope, exactly: no code, no other keys. Returns data (as the shape the caller names). */
export function expectSuccess<Data = Record<string, unknown>>(
  res: { status: number; body: RestBody<unknown> },
  status: number,
  message: string,
): Data {
  expect({ status: res.status, keys: Object.keys(res.body ?? {}).sort() }).toEqual({
    status,
    keys: ["data", "message", "success"],
  });
  expect(res.body.success).toBe(true);
  expect(res.body.message).toBe(message);
  return res.body.data as Data;
}

const REASONS = new Set(Object.values(FieldErrorReason));

/**
 * The error envelope, exactly: {success: false, message, code, errors} with a status matching the code, and errors
 * listing at least the first problem (the message and code, and a reason: tests/answers/reasons.test.ts checks which).
 */
export function expectError(
  res: { status: number; body: RestBody<unknown> },
  status: number,
  code: string,
  message?: RegExp | string,
): void {
  expect({ status: res.status, body: res.body }).toEqual({
    status,
    body: { success: false, code, message: expect.any(String), errors: expect.any(Array) },
  });
  const [first] = res.body.errors!;
  expect({
    ...first,
    field: typeof first?.field === "string" || first?.field === null,
    reason: REASONS.has(first?.reason as FieldErrorReason),
  }).toEqual({
    field: true,
    message: res.body.message,
    code,
    reason: true,
  });
  if (message !== undefined) expect(res.body.message).toMatch(message);
}

/** The path id cases that are not whole numbers >= 1; each must be 400 naming the parameter. */
export const BAD_PATH_IDS = ["abc", "0", "1.5", "-1", "1e3", "99999999999999999999"];
