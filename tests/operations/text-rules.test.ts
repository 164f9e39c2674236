// Text rules of every text input: control characters (NUL, ANSI escapes, DEL, C1), unpaired surrogates,
// bidirectional overrides/embeddings/isolates and values that are empty once invisible characters are removed are
// BAD_REQUEST naming the field, and nothing is stored. project_desc may span lines (newline and tab); marks
// (U+200E/U+200F) and joiners inside visible text are allowed in names.
import {
  CreateProjectDocument,
  CreateStudentDocument,
  CreateTeacherDocument,
  ListProjectsDocument,
  ListStudentsDocument,
  UpdateProjectStatusDocument,
} from "../generated/graphql";
import { startTestApp, type TestApp } from "../helpers/app";
import {
  ADMIN,
  createProject,
  expectFailure,
  expectQueryError,
  expectSuccess,
  projectInput,
  snapshot,
  STUDENT,
  studentInput,
} from "./support";

const REFUSED = [
  ["a NUL character", "Solar\u0000Car", /control characters.* \(found U\+0000\)/],
  ["an ANSI escape sequence", "\u001b[31mRed\u001b[0m", /control characters.* \(found U\+001B\)/],
  ["DEL", "Solar\u007fCar", /control characters.* \(found U\+007F\)/],
  ["a C1 control", "Solar\u0085Car", /control characters.* \(found U\+0085\)/],
  ["a lone high surrogate", "Solar\ud800Car", /unpaired UTF-16 surrogate \(found U\+D800\)/],
  ["a lone low surrogate", "Car\udc00", /unpaired UTF-16 surrogate \(found U\+DC00\)/],
  ["a right-to-left override", "Solar\u202eraC", /bidirectional .* \(found U\+202E\)/],
  ["a left-to-right embedding", "\u202aSolar", /bidirectional .* \(found U\+202A\)/],
  ["a first-strong isolate", "Solar\u2068Car\u2069", /bidirectional .* \(found U\+2068\)/],
  ["only zero-width spaces", "\u200b\u200b", /must not be empty: it contains only invisible characters/],
  ["only a byte order mark and a zero-width joiner", "\ufeff\u200d", /must not be empty/],
  ["only direction marks", "\u200e\u200f", /must not be empty: it contains only invisible characters/],
] as const;

describe("text rules", () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(async () => {
    await t.close();
  });

  describe.each(["project_name", "project_desc", "project_status"] as const)("createProject %s", (field) => {
    it.each(REFUSED)(
      "when it holds %s, then it is BAD_REQUEST naming it and nothing is stored",
      async (_label, value, reason) => {
        const before = await snapshot(t);

        const payload = expectFailure(
          await t.gql(CreateProjectDocument, { input: projectInput({ [field]: value }) }, STUDENT),
          "BAD_REQUEST",
          field,
        );

        expect(payload.message).toMatch(reason);
        expect(payload.errors).toEqual([{ field, message: payload.message, code: "BAD_REQUEST" }]);
        expect(await snapshot(t)).toEqual(before);
      },
    );
  });

  it.each([
    ["teacher_name", () => t.gql(CreateTeacherDocument, { input: { teacher_name: "\u200b" } }, ADMIN)],
    ["student_name", () => t.gql(CreateStudentDocument, { input: studentInput({ student_name: "Lin\u0000" }) }, ADMIN)],
    ["class_code", () => t.gql(CreateStudentDocument, { input: studentInput({ class_code: "A\u001b1" }) }, ADMIN)],
    ["email", () => t.gql(CreateStudentDocument, { input: studentInput({ email: "lin\u202e@example.com" }) }, ADMIN)],
    [
      "project_url",
      () => t.gql(CreateProjectDocument, { input: projectInput({ project_url: "https://example.com/\u0000" }) }, ADMIN),
    ],
  ])("when %s breaks a text rule, then it is BAD_REQUEST naming it and nothing is stored", async (field, send) => {
    const before = await snapshot(t);
    const payload = expectFailure((await send()) as never, "BAD_REQUEST", field);
    expect(payload.errors!.map((e) => e.field)).toEqual([field]);
    expect(await snapshot(t)).toEqual(before);
  });

  it("when class_code or project_status holds an invisible character among visible ones, then it is refused (they are matched exactly)", async () => {
    expectFailure(
      await t.gql(CreateStudentDocument, { input: studentInput({ class_code: "A1\u200b" }) }, ADMIN),
      "BAD_REQUEST",
      /class_code must not contain invisible characters \(found U\+200B\)/,
    );
    expectFailure(
      await t.gql(CreateProjectDocument, { input: projectInput({ project_status: "\u2060planned" }) }, ADMIN),
      "BAD_REQUEST",
      /project_status must not contain invisible/,
    );
  });

  it("when a status change holds a control character, then it is refused and the status stays", async () => {
    const project = await createProject(t);
    const res = await t.gql(
      UpdateProjectStatusDocument,
      { projectId: project.project_id, input: { project_status: "done\u0007" } },
      ADMIN,
    );
    expectFailure(res, "BAD_REQUEST", /project_status must not contain control characters/);
    expect((await t.db.models.Project.findOne({ project_id: project.project_id }).lean())!.project_status).toBe(
      "planned",
    );
  });

  it("when project_desc spans lines with newlines and tabs, then it is stored as sent (trimmed)", async () => {
    const project_desc = "Goals:\n\t- build\n\t- test\n\nDone when green.";
    const data = expectSuccess(
      await t.gql(CreateProjectDocument, { input: projectInput({ project_desc: `${project_desc}\n` }) }, STUDENT),
    ).data;
    expect(data.project_desc).toBe(project_desc);
  });

  it("when a name holds a newline or a tab, or project_desc a carriage return, then it is refused (names are one line)", async () => {
    for (const project_name of ["Solar\nCar", "Solar\tCar"]) {
      expectFailure(
        await t.gql(CreateProjectDocument, { input: projectInput({ project_name }) }, STUDENT),
        "BAD_REQUEST",
        /project_name must not contain control characters/,
      );
    }
    expectFailure(
      await t.gql(CreateProjectDocument, { input: projectInput({ project_desc: "a\r\nb" }) }, STUDENT),
      "BAD_REQUEST",
      /project_desc must not contain control characters other than newline and tab \(found U\+000D\)/,
    );
  });

  it("when a name holds direction marks or joiners among visible characters, then it is accepted as sent", async () => {
    for (const teacher_name of ["\u05e9\u05e8\u05d4 \u200f(2)", "👩\u200d🎓 Ada", "Ma\u200ei"]) {
      expect(
        expectSuccess(await t.gql(CreateTeacherDocument, { input: { teacher_name } }, ADMIN)).data.teacher_name,
      ).toBe(teacher_name);
    }
  });

  it("when a list filter string breaks a text rule, then the query is BAD_REQUEST naming the filter field", async () => {
    expectQueryError(
      await t.gql(ListProjectsDocument, { filter: { project_status: "planned\u0000" } }, STUDENT),
      "BAD_REQUEST",
      /project_status/,
    );
    expectQueryError(
      await t.gql(ListStudentsDocument, { filter: { class_code: "\u202e1A" } }, ADMIN),
      "BAD_REQUEST",
      /class_code/,
    );
  });
});
