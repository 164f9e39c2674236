// Shared arrangements and assertions of the operation tests: unique inputs, creation through the API as admin,
// the failure-envelope assertion, and snapshots of what the database holds.
import {
  CreateProjectDocument,
  CreateStudentDocument,
  CreateTeacherDocument,
  type CreateProjectInput,
  type CreateStudentInput,
} from "../generated/graphql";
import type { GraphQLResponse, TestApp } from "../helpers/app";

import { ADMIN, unique } from "../helpers/fixtures";

export { ADMIN, STUDENT, TEACHER, unique } from "../helpers/fixtures";

export function projectInput(overrides: Partial<CreateProjectInput> = {}): CreateProjectInput {
  return {
    project_name: unique("Project"),
    project_desc: "A project to test with",
    company_id: 1,
    project_status: "planned",
    project_url: "https://example.com/project",
    start_date: "2025-01-10",
    end_date: "2025-06-30",
    ...overrides,
  };
}

export function studentInput(overrides: Partial<CreateStudentInput> = {}): CreateStudentInput {
  return { student_name: "Lin Chen", email: `${unique("student")}@example.com`, class_code: "A1", ...overrides };
}

/** Creates a project through the API as admin and returns it; fails the test if that does not succeed. */
export async function createProject(t: TestApp, overrides: Partial<CreateProjectInput> = {}) {
  const res = await t.gql(CreateProjectDocument, { input: projectInput(overrides) }, ADMIN);
  const payload = res.data?.createProject;
  if (!payload?.success || !payload.data) throw new Error(`createProject failed: ${JSON.stringify(res)}`);
  return payload.data;
}

export async function createTeacher(t: TestApp, teacher_name = unique("Teacher")) {
  const res = await t.gql(CreateTeacherDocument, { input: { teacher_name } }, ADMIN);
  const payload = res.data?.createTeacher;
  if (!payload?.success || !payload.data) throw new Error(`createTeacher failed: ${JSON.stringify(res)}`);
  return payload.data;
}

export async function createStudent(t: TestApp, overrides: Partial<CreateStudentInput> = {}) {
  const res = await t.gql(CreateStudentDocument, { input: studentInput(overrides) }, ADMIN);
  const payload = res.data?.createStudent;
  if (!payload?.success || !payload.data) throw new Error(`createStudent failed: ${JSON.stringify(res)}`);
  return payload.data;
}

export interface FieldErrorShape {
  field?: string | null;
  message: string;
  code: string;
}

export interface Envelope {
  success: boolean;
  message?: string | null;
  code?: string | null;
  data?: unknown;
  errors?: FieldErrorShape[];
}

/** The single mutation payload of a response, asserting the request itself went through without GraphQL errors. */
export function payloadOf<T extends Record<string, Envelope>>(res: GraphQLResponse<T>): Envelope {
  expect(res.status).toBe(200);
  expect(res.errors).toBeUndefined();
  const payloads = Object.values(res.data ?? {});
  expect(payloads).toHaveLength(1);
  return payloads[0];
}

/**
 * Asserts the failure envelope of the contract: success false, the code, data null, a message that names
 * `mentions` (the offending field, or whatever identifies the problem), and errors whose first entry is that
 * message and code.
 */
export function expectFailure<T extends Record<string, Envelope>>(
  res: GraphQLResponse<T>,
  code: string,
  mentions?: string | RegExp,
): Envelope {
  const payload = payloadOf(res);
  expect(payload).toEqual(expect.objectContaining({ success: false, code, data: null }));
  expect(typeof payload.message).toBe("string");
  expect(payload.message!.length).toBeGreaterThan(0);
  if (mentions !== undefined) expect(payload.message).toMatch(mentions);
  expect(payload.errors!.length).toBeGreaterThan(0);
  const [first] = payload.errors!;
  expect({ ...first, field: typeof first.field === "string" || first.field === null }).toEqual({
    field: true,
    message: payload.message,
    code,
  });
  return payload;
}

/** The one payload of a mutation response, with its data present (as after expectSuccess). */
export type SuccessPayload<T extends Record<string, Envelope>> = T[keyof T] & { data: NonNullable<T[keyof T]["data"]> };

/** Asserts the success envelope and returns the payload (its data typed as the document's). */
export function expectSuccess<T extends Record<string, Envelope>>(res: GraphQLResponse<T>): SuccessPayload<T> {
  const payload = payloadOf(res);
  expect(payload).toEqual(expect.objectContaining({ success: true, code: null, errors: [] }));
  expect(payload.message).toEqual(expect.any(String));
  expect(payload.data).not.toBeNull();
  return payload as SuccessPayload<T>;
}

/** Asserts a query answered with one GraphQL error of the given extensions.code and no data for the field. */
export function expectQueryError<T>(res: GraphQLResponse<T>, code: string, mentions?: string | RegExp): void {
  expect(res.status).toBe(200);
  expect(res.errors).toHaveLength(1);
  expect(res.errors![0].extensions?.code).toBe(code);
  if (mentions !== undefined) expect(res.errors![0].message).toMatch(mentions);
  const values = Object.values((res.data ?? {}) as Record<string, unknown>);
  for (const value of values) expect(value).toBeNull();
}

export interface Counts {
  projects: number;
  teachers: number;
  students: number;
}

export async function counts(t: TestApp): Promise<Counts> {
  const [projects, teachers, students] = await Promise.all([
    t.db.models.Project.countDocuments(),
    t.db.models.Teacher.countDocuments(),
    t.db.models.Student.countDocuments(),
  ]);
  return { projects, teachers, students };
}

/** Everything the three collections hold, in id order: equal snapshots mean nothing was written. */
export async function snapshot(t: TestApp) {
  const [projects, teachers, students] = await Promise.all([
    t.db.models.Project.find().sort({ project_id: 1 }).lean(),
    t.db.models.Teacher.find().sort({ teacher_id: 1 }).lean(),
    t.db.models.Student.find().sort({ student_id: 1 }).lean(),
  ]);
  return { projects, teachers, students };
}

export const ISO_TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/;
