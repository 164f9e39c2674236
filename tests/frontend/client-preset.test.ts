// The README's recipe for frontends: graphql-codegen's client preset generates typed operations from
// schema/schema.graphql (examples/frontend/codegen.ts; `npm test` first checks the generated examples/frontend/src/gql
// is current), a frontend operation compiles against them, types what the operation selects and nothing else, and
// the form flow it drives reads field errors (and their reasons) from the real service, which runs only the
// documents of the recipe's manifest (src/gql/persisted-documents.json): the form names its mutation by id.
import { startTestApp, type TestApp } from "../helpers/app";
import { compileRecipeWith, recipeManifest } from "./support";

/** Uses of the operation's result type that must fail to compile (were the result `any`, they would compile). */
const PROBE = `
import { execute, CreateProjectMutation } from "./create-project";
export async function probe() {
  const { createProject } = await execute("http://x/graphql", CreateProjectMutation, {
    input: { project_name: "n", project_desc: "d", company_id: 1, project_status: "s", start_date: "2026-01-01", end_date: "2026-01-02" },
  }, {});
  const field: string | null = createProject.errors[0].field;
  const id: number | undefined = createProject.data?.project_id;
  // @ts-expect-error project_desc is not selected by the operation
  void createProject.data?.project_desc;
  // @ts-expect-error company_id must be a number
  await execute("http://x/graphql", CreateProjectMutation, { input: { project_name: "n", project_desc: "d", company_id: "1", project_status: "s", start_date: "2026-01-01", end_date: "2026-01-02" } }, {});
  return { field, id };
}
`;

describe("a frontend's typed operations from schema/schema.graphql (client preset)", () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp({ config: { trustedDocuments: recipeManifest(), trustedDocumentsOnly: true } });
  });
  afterAll(async () => {
    await t?.close();
  });

  it("when the frontend compiles against its generated types, then the operation's result is typed by its selection", () => {
    expect(compileRecipeWith("__probe__.ts", PROBE)).toEqual([]);
  });

  it("when the form is submitted with good values, then it gets the new project and no field messages", async () => {
    const { submitProjectForm } = await import("../../examples/frontend/src/create-project");
    const state = await submitProjectForm(
      `${t.url}/graphql`,
      {
        project_name: "Frontend form",
        project_desc: "From the form",
        company_id: 1,
        project_status: "planned",
        start_date: "2026-01-10",
        end_date: "2026-02-10",
      },
      { "x-user-role": "student" },
    );
    expect(state).toEqual({ projectId: expect.any(Number), fieldMessages: {}, fieldReasons: {}, banner: [] });
  });

  it("when the form has several bad fields, then each field gets its message; a refusal of the caller goes to the banner", async () => {
    const { submitProjectForm } = await import("../../examples/frontend/src/create-project");
    const input = {
      project_name: " ",
      project_desc: "x",
      company_id: 0,
      project_status: "planned",
      start_date: "2026-06-01",
      end_date: "2026-05-01",
    };
    const invalid = await submitProjectForm(`${t.url}/graphql`, input, { "x-user-role": "student" });
    expect(invalid.projectId).toBeNull();
    expect(Object.keys(invalid.fieldMessages).sort()).toEqual(["company_id", "end_date", "project_name"]);
    expect(invalid.fieldMessages.end_date).toMatch(/before start_date/);
    expect(invalid.fieldReasons).toEqual({
      company_id: "OUT_OF_RANGE",
      end_date: "OUT_OF_RANGE",
      project_name: "BLANK",
    });
    expect(invalid.banner).toEqual([]);

    const refused = await submitProjectForm(
      `${t.url}/graphql`,
      { ...input, project_name: "Teacher form" },
      { "x-user-role": "teacher" },
    );
    expect(refused.fieldMessages).toEqual({});
    expect(refused.banner).toEqual([expect.stringMatching(/createProject is not allowed for role teacher/)]);
  });
});
