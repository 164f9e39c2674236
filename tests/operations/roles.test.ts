// The role table of the contract for every mutation, in both authentication modes (header and jwt) on one
// database, plus every way a bearer token can be unacceptable in jwt mode.
import {
  AssignTeacherDocument,
  CreateProjectDocument,
  CreateStudentDocument,
  CreateTeacherDocument,
  UpdateProjectStatusDocument,
  UpdateStudentDocument,
  UpdateTeacherDocument,
} from "../generated/graphql";
import { startTestApp, type GraphQLResponse, type Headers, type TestApp } from "../helpers/app";
import { bearer, expiredToken, JWT_AUTH, token, unsignedToken, wronglySignedToken } from "../helpers/tokens";
import {
  createProject,
  createStudent,
  createTeacher,
  expectFailure,
  expectSuccess,
  projectInput,
  snapshot,
  studentInput,
  unique,
  type Envelope,
} from "./support";

type Mode = "header" | "jwt";
type RoleCase = "student" | "teacher" | "admin" | "no role" | "unknown role";

interface MutationCase {
  name: string;
  /** Acting roles allowed ("any": any authenticated caller). */
  allowed: readonly string[] | "any";
  wrongRole: "UNAUTHORIZED" | "FORBIDDEN";
  /** Arranges the data the call needs (through the header-mode app as admin) and returns the call. */
  prepare(
    arrange: TestApp,
  ): Promise<(app: TestApp, headers: Headers) => Promise<GraphQLResponse<Record<string, Envelope>>>>;
}

const MUTATIONS: MutationCase[] = [
  {
    name: "createProject",
    allowed: ["student", "admin"],
    wrongRole: "UNAUTHORIZED",
    prepare: async () => (app, headers) => app.gql(CreateProjectDocument, { input: projectInput() }, headers),
  },
  {
    name: "assignTeacher",
    allowed: ["teacher", "admin"],
    wrongRole: "FORBIDDEN",
    async prepare(arrange) {
      const project = await createProject(arrange);
      const teacher = await createTeacher(arrange);
      return (app, headers) =>
        app.gql(
          AssignTeacherDocument,
          { projectId: project.project_id, input: { new_teacher_id: teacher.teacher_id } },
          headers,
        );
    },
  },
  {
    name: "updateProjectStatus",
    allowed: "any",
    wrongRole: "FORBIDDEN",
    async prepare(arrange) {
      const project = await createProject(arrange, { project_status: "planned" });
      return (app, headers) =>
        app.gql(
          UpdateProjectStatusDocument,
          { projectId: project.project_id, input: { project_status: "done" } },
          headers,
        );
    },
  },
  {
    name: "updateTeacher",
    allowed: ["teacher", "admin"],
    wrongRole: "FORBIDDEN",
    async prepare(arrange) {
      const teacher = await createTeacher(arrange);
      return (app, headers) =>
        app.gql(
          UpdateTeacherDocument,
          { teacherId: teacher.teacher_id, input: { teacher_name: unique("Renamed") } },
          headers,
        );
    },
  },
  {
    name: "updateStudent",
    allowed: ["teacher", "admin"],
    wrongRole: "FORBIDDEN",
    async prepare(arrange) {
      const student = await createStudent(arrange);
      return (app, headers) =>
        app.gql(UpdateStudentDocument, { studentId: student.student_id, input: { class_code: "R2" } }, headers);
    },
  },
  {
    name: "createTeacher",
    allowed: ["admin"],
    wrongRole: "FORBIDDEN",
    prepare: async () => (app, headers) =>
      app.gql(CreateTeacherDocument, { input: { teacher_name: unique("Teacher") } }, headers),
  },
  {
    name: "createStudent",
    allowed: ["teacher", "admin"],
    wrongRole: "FORBIDDEN",
    prepare: async () => (app, headers) => app.gql(CreateStudentDocument, { input: studentInput() }, headers),
  },
];

const ROLE_CASES: RoleCase[] = ["student", "teacher", "admin", "no role", "unknown role"];

async function headersFor(mode: Mode, role: RoleCase): Promise<Headers> {
  if (mode === "header") {
    if (role === "no role") return {};
    if (role === "unknown role") return { "x-user-role": "principal" };
    return { "x-user-role": role };
  }
  // jwt: a valid token; "no role" sends no X-User-Role (the token grants every role), "unknown role" sends one
  // that the token also lists, so only its being unknown is wrong.
  if (role === "no role") return bearer(undefined, ["student", "teacher", "admin"]);
  if (role === "unknown role") return bearer("principal", ["principal", "admin"]);
  return bearer(role);
}

/** The outcome the contract gives: "success" or an error code. */
function expected(mutation: MutationCase, mode: Mode, role: RoleCase): string {
  if (role === "unknown role") return "UNAUTHORIZED";
  if (role === "no role") {
    // header mode: no X-User-Role means not authenticated; jwt mode: authenticated, but without an acting role.
    return mode === "jwt" && mutation.allowed === "any" ? "success" : "UNAUTHORIZED";
  }
  if (mutation.allowed === "any" || mutation.allowed.includes(role)) return "success";
  return mutation.wrongRole;
}

describe("role table", () => {
  let h: TestApp;
  let j: TestApp;
  const apps = (): Record<Mode, TestApp> => ({ header: h, jwt: j });

  beforeAll(async () => {
    h = await startTestApp();
    j = await startTestApp({ auth: JWT_AUTH, db: h.db });
  });
  afterAll(async () => {
    await j.close();
    await h.close();
  });

  const matrix = (["header", "jwt"] as Mode[]).flatMap((mode) =>
    MUTATIONS.flatMap((mutation) =>
      ROLE_CASES.map((role) => ({ mode, mutation, role, outcome: expected(mutation, mode, role) })),
    ),
  );

  it.each(matrix.map((c) => [c.mode, c.mutation.name, c.role, c.outcome, c] as const))(
    "when in %s mode %s is called with %s, then the answer is %s",
    async (mode, _name, role, outcome, { mutation }) => {
      const call = await mutation.prepare(h);
      const headers = await headersFor(mode, role);
      const before = await snapshot(h);

      const res = await call(apps()[mode], headers);

      if (outcome === "success") {
        expectSuccess(res);
        expect(await snapshot(h)).not.toEqual(before);
      } else {
        expectFailure(res, outcome, role === "student" || role === "teacher" ? new RegExp(role) : /X-User-Role/);
        expect(await snapshot(h)).toEqual(before);
      }
    },
  );

  describe("jwt mode specifics", () => {
    it("when the token lists several roles and X-User-Role picks one of them, then the call runs in that role", async () => {
      const call = await MUTATIONS.find((m) => m.name === "createTeacher")!.prepare(h);

      const res = await call(j, await bearer("admin", ["student", "admin"]));

      expectSuccess(res);
    });

    it("when X-User-Role is written in other case than the token's role, then it still matches", async () => {
      const call = await MUTATIONS.find((m) => m.name === "createStudent")!.prepare(h);

      const res = await call(j, { authorization: `Bearer ${await token(["teacher"])}`, "x-user-role": "TEACHER" });

      expectSuccess(res);
    });

    it("when the same token acts in a role it lists that is not allowed, then it is the wrong-role code", async () => {
      const call = await MUTATIONS.find((m) => m.name === "createTeacher")!.prepare(h);
      const before = await snapshot(h);

      const res = await call(j, await bearer("teacher", ["teacher", "admin"]));

      expectFailure(res, "FORBIDDEN", /teacher/);
      expect(await snapshot(h)).toEqual(before);
    });

    it("when a teacher with a valid token creates a project, then it is UNAUTHORIZED (not FORBIDDEN)", async () => {
      const before = await snapshot(h);

      const res = await j.gql(CreateProjectDocument, { input: projectInput() }, await bearer("teacher"));

      expectFailure(res, "UNAUTHORIZED", /teacher/);
      expect(await snapshot(h)).toEqual(before);
    });

    const BAD_CREDENTIALS: [string, () => Promise<Headers>, RegExp][] = [
      ["no Authorization header (only X-User-Role)", async () => ({ "x-user-role": "admin" }), /Authorization: Bearer/],
      [
        "an Authorization header that is not Bearer",
        async () => ({ authorization: "Basic YWRtaW46YWRtaW4=", "x-user-role": "admin" }),
        /Bearer/,
      ],
      ["a malformed token", async () => ({ authorization: "Bearer not.a.jwt", "x-user-role": "admin" }), /token/],
      [
        "a wrongly signed token",
        async () => ({ authorization: `Bearer ${await wronglySignedToken(["admin"])}`, "x-user-role": "admin" }),
        /signature/,
      ],
      [
        "an expired token",
        async () => ({ authorization: `Bearer ${await expiredToken(["admin"])}`, "x-user-role": "admin" }),
        /expired/,
      ],
      [
        "a token with alg none",
        async () => ({ authorization: `Bearer ${unsignedToken(["admin"])}`, "x-user-role": "admin" }),
        /algorithm/,
      ],
      [
        "a token of another issuer",
        async () => ({
          authorization: `Bearer ${await token(["admin"], { issuer: "https://evil.test" })}`,
          "x-user-role": "admin",
        }),
        /iss/,
      ],
      [
        "a token for another audience",
        async () => ({
          authorization: `Bearer ${await token(["admin"], { audience: "another-service" })}`,
          "x-user-role": "admin",
        }),
        /aud/,
      ],
      [
        "an X-User-Role outside the token's roles",
        async () => bearer("admin", ["student"]),
        /not among the token's roles/,
      ],
    ];

    const credentialMatrix = MUTATIONS.flatMap((mutation) =>
      BAD_CREDENTIALS.map(
        ([label, headers, message]) => [mutation.name, label, { mutation, headers, message }] as const,
      ),
    );

    it.each(credentialMatrix)(
      "when %s is called with %s, then it is UNAUTHORIZED and nothing changes",
      async (_name, _label, { mutation, headers, message }) => {
        const call = await mutation.prepare(h);
        const before = await snapshot(h);

        const res = await call(j, await headers());

        expectFailure(res, "UNAUTHORIZED", message);
        expect(await snapshot(h)).toEqual(before);
      },
    );
  });
});
