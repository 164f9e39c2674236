// createProject: success with the stored document, every validation rule (nothing stored on failure), the
// company-scoped name conflict, authentication, and failures of the GraphQL document itself.
import { CreateProjectDocument, type CreateProjectInput } from "../generated/graphql";
import { startTestApp, type TestApp } from "../helpers/app";
import {
  ADMIN,
  counts,
  createProject,
  expectFailure,
  expectSuccess,
  ISO_TIMESTAMP,
  projectInput,
  STUDENT,
  TEACHER,
  unique,
} from "./support";

describe("createProject", () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(async () => {
    await t.close();
  });

  describe("success", () => {
    it("when a student creates a valid project, then the payload carries it and the database stores it", async () => {
      const input = projectInput({ company_id: 42 });

      const res = await t.gql(CreateProjectDocument, { input }, STUDENT);

      const payload = expectSuccess(res);
      expect(payload.message).toBe("Project created");
      expect(payload.data).toEqual({
        project_id: expect.any(Number),
        project_name: input.project_name,
        project_desc: input.project_desc,
        company_id: 42,
        project_status: input.project_status,
        project_url: input.project_url,
        start_date: input.start_date,
        end_date: input.end_date,
        teacher_id: null,
        revision: 1,
        created_by: null, // STUDENT sends no X-User-Id
        archived_at: null,
        created_at: expect.stringMatching(ISO_TIMESTAMP),
        updated_at: expect.stringMatching(ISO_TIMESTAMP),
      });
      expect(payload.data.project_id).toBeGreaterThanOrEqual(1);
      const stored = await t.db.models.Project.findOne({ project_id: payload.data.project_id }).lean();
      expect(stored).toMatchObject({
        project_name: input.project_name,
        name_key: input.project_name.toLowerCase(),
        project_desc: input.project_desc,
        company_id: 42,
        project_status: input.project_status,
        project_url: input.project_url,
        start_date: input.start_date,
        end_date: input.end_date,
        teacher_id: null,
      });
      expect(stored!.created_at.toISOString()).toBe(payload.data.created_at);
    });

    it("when an admin creates a project, then it succeeds too", async () => {
      const res = await t.gql(CreateProjectDocument, { input: projectInput() }, ADMIN);

      expect(expectSuccess(res).data.project_id).toBeGreaterThanOrEqual(1);
    });

    it("when names, description and status have surrounding spaces, then they are stored trimmed", async () => {
      const name = unique("Trimmed");
      const input = projectInput({
        project_name: `  ${name}  `,
        project_desc: "\t desc \n",
        project_status: " active ",
      });

      const res = await t.gql(CreateProjectDocument, { input }, STUDENT);

      const data = expectSuccess(res).data;
      expect(data).toMatchObject({ project_name: name, project_desc: "desc", project_status: "active" });
      const stored = await t.db.models.Project.findOne({ project_id: data.project_id }).lean();
      expect(stored).toMatchObject({ project_name: name, project_desc: "desc", project_status: "active" });
    });

    it("when project_url is left out or null, then the project is stored with project_url null", async () => {
      const { project_url: _omitted, ...withoutUrl } = projectInput();

      const omitted = expectSuccess(await t.gql(CreateProjectDocument, { input: withoutUrl }, STUDENT)).data;
      const explicitNull = expectSuccess(
        await t.gql(CreateProjectDocument, { input: projectInput({ project_url: null }) }, STUDENT),
      ).data;

      expect(omitted.project_url).toBeNull();
      expect(explicitNull.project_url).toBeNull();
      for (const id of [omitted.project_id, explicitNull.project_id]) {
        expect((await t.db.models.Project.findOne({ project_id: id }).lean())!.project_url).toBeNull();
      }
    });

    it("when projects are created one after another, then each gets a larger id", async () => {
      const first = await createProject(t);
      const second = await createProject(t);
      const third = await createProject(t);

      expect(second.project_id).toBeGreaterThan(first.project_id);
      expect(third.project_id).toBeGreaterThan(second.project_id);
    });

    it.each<[string, Partial<CreateProjectInput>]>([
      ["a 200-character name", { project_name: "n".repeat(200) }],
      ["a 200-character name with surrounding spaces", { project_name: `  ${"s".repeat(200)}  ` }],
      ["a 1-character name", { project_name: "x" }],
      ["a 5000-character description", { project_desc: "d".repeat(5000) }],
      ["a 1-character description", { project_desc: "d" }],
      ["a 64-character status", { project_status: "s".repeat(64) }],
      ["company_id 1", { company_id: 1 }],
      ["a leap day", { start_date: "2024-02-29", end_date: "2024-03-01" }],
      ["end_date equal to start_date", { start_date: "2025-03-03", end_date: "2025-03-03" }],
      ["an http URL", { project_url: "http://example.com" }],
      ["a URL of exactly 2048 characters", { project_url: `https://example.com/${"p".repeat(2048 - 20)}` }],
      ["a URL with port, path and query", { project_url: "https://localhost:8080/a/b?c=d#e" }],
    ])("when the input has %s (a boundary that is allowed), then the project is created", async (_label, overrides) => {
      // Names must stay unique per company: keep the repeated-letter names apart by company.
      const input = projectInput({ company_id: 1000 + Math.floor(Math.random() * 1e6), ...overrides });
      const before = await counts(t);

      const res = await t.gql(CreateProjectDocument, { input }, STUDENT);

      const data = expectSuccess(res).data;
      expect(await counts(t)).toEqual({ ...before, projects: before.projects + 1 });
      const stored = await t.db.models.Project.findOne({ project_id: data.project_id }).lean();
      expect(stored).toMatchObject({
        project_name: input.project_name.trim(),
        project_desc: input.project_desc.trim(),
        project_status: input.project_status.trim(),
        company_id: input.company_id,
        start_date: input.start_date,
        end_date: input.end_date,
        project_url: input.project_url,
      });
    });
  });

  describe("validation", () => {
    it.each<[string, Partial<CreateProjectInput>, string]>([
      ["an empty project_name", { project_name: "" }, "project_name"],
      ["a project_name of spaces only", { project_name: "   \t " }, "project_name"],
      ["a 201-character project_name", { project_name: "n".repeat(201) }, "project_name"],
      ["an empty project_desc", { project_desc: "" }, "project_desc"],
      ["a project_desc of spaces only", { project_desc: "   " }, "project_desc"],
      ["a 5001-character project_desc", { project_desc: "d".repeat(5001) }, "project_desc"],
      ["company_id 0", { company_id: 0 }, "company_id"],
      ["a negative company_id", { company_id: -5 }, "company_id"],
      ["an empty project_status", { project_status: "" }, "project_status"],
      ["a project_status of spaces only", { project_status: "  " }, "project_status"],
      ["a 65-character project_status", { project_status: "s".repeat(65) }, "project_status"],
      ["start_date 2025-02-30", { start_date: "2025-02-30" }, "start_date"],
      ["start_date 2025-02-29 (not a leap year)", { start_date: "2025-02-29" }, "start_date"],
      ["start_date with month 13", { start_date: "2025-13-01" }, "start_date"],
      ["start_date with day 00", { start_date: "2025-01-00" }, "start_date"],
      ["start_date without leading zeros", { start_date: "2025-1-5" }, "start_date"],
      ["start_date written DD/MM/YYYY", { start_date: "10/01/2025" }, "start_date"],
      ["start_date with a time", { start_date: "2025-01-10T00:00:00Z" }, "start_date"],
      ["an empty start_date", { start_date: "" }, "start_date"],
      ["end_date 2025-04-31", { end_date: "2025-04-31" }, "end_date"],
      ["end_date that is no date", { end_date: "soon" }, "end_date"],
      ["end_date before start_date", { start_date: "2025-06-01", end_date: "2025-05-31" }, "end_date"],
      ["a relative project_url", { project_url: "/projects/1" }, "project_url"],
      ["a project_url without scheme", { project_url: "example.com/project" }, "project_url"],
      ["an ftp project_url", { project_url: "ftp://example.com/file" }, "project_url"],
      ["a javascript: project_url", { project_url: "javascript:alert(1)" }, "project_url"],
      ["a mailto: project_url", { project_url: "mailto:someone@example.com" }, "project_url"],
      ["a project_url that is no URL", { project_url: "not a url" }, "project_url"],
      ["an empty project_url", { project_url: "" }, "project_url"],
      ["a 2049-character project_url", { project_url: `https://example.com/${"p".repeat(2049 - 20)}` }, "project_url"],
    ])(
      "when the input has %s, then it is BAD_REQUEST naming the field and nothing is stored",
      async (_label, overrides, field) => {
        const input = projectInput(overrides);
        const before = await counts(t);

        const res = await t.gql(CreateProjectDocument, { input }, STUDENT);

        expectFailure(res, "BAD_REQUEST", field);
        expect(await counts(t)).toEqual(before);
        expect(await t.db.models.Project.exists({ project_name: input.project_name.trim() })).toBeNull();
      },
    );

    it("when company_id is not a whole number, then it is a GraphQL error (wrong type) and nothing is stored", async () => {
      const before = await counts(t);

      const res = await t.gql(CreateProjectDocument, { input: projectInput({ company_id: 1.5 }) }, STUDENT);

      expect(res.errors?.length).toBeGreaterThan(0);
      expect(res.errors![0].message).toMatch(/company_id|Int/);
      expect(res.data ?? null).toBeNull();
      expect(await counts(t)).toEqual(before);
    });

    it("when a required field is missing, then it is a GraphQL error (not a payload) and nothing is stored", async () => {
      const { project_desc: _missing, ...input } = projectInput();
      const before = await counts(t);

      const res = await t.gql(CreateProjectDocument, { input: input as CreateProjectInput }, STUDENT);

      expect(res.errors?.length).toBeGreaterThan(0);
      expect(res.errors![0].message).toMatch(/project_desc/);
      expect(res.data ?? null).toBeNull();
      expect(await counts(t)).toEqual(before);
    });
  });

  describe("conflicts", () => {
    it("when another project of the same company has the same name in other case and with spaces, then it is CONFLICT and nothing is stored", async () => {
      const name = unique("Robotics Lab");
      await createProject(t, { project_name: name, company_id: 7 });
      const before = await counts(t);

      const res = await t.gql(
        CreateProjectDocument,
        { input: projectInput({ project_name: `  ${name.toUpperCase()}   `, company_id: 7 }) },
        STUDENT,
      );

      expectFailure(res, "CONFLICT", "project_name");
      expect(await counts(t)).toEqual(before);
      expect(await t.db.models.Project.countDocuments({ company_id: 7, name_key: name.toLowerCase() })).toBe(1);
    });

    it("when the same name is used by a project of another company, then the project is created", async () => {
      const name = unique("Shared Name");
      await createProject(t, { project_name: name, company_id: 8 });

      const res = await t.gql(
        CreateProjectDocument,
        { input: projectInput({ project_name: name, company_id: 9 }) },
        STUDENT,
      );

      const data = expectSuccess(res).data;
      expect(data).toMatchObject({ project_name: name, company_id: 9 });
      expect(await t.db.models.Project.countDocuments({ name_key: name.toLowerCase() })).toBe(2);
    });

    it("when names differ only inside (not around) the text, then they are different names", async () => {
      const name = unique("Solar");
      await createProject(t, { project_name: `${name} Car`, company_id: 10 });

      const res = await t.gql(
        CreateProjectDocument,
        { input: projectInput({ project_name: `${name}  Car`, company_id: 10 }) },
        STUDENT,
      );

      expectSuccess(res);
    });
  });

  describe("authentication", () => {
    it.each<[string, Record<string, string>]>([
      ["no X-User-Role", {}],
      ["an empty X-User-Role", { "x-user-role": "" }],
      ["an unknown X-User-Role", { "x-user-role": "principal" }],
      ["the authenticated role teacher", TEACHER],
    ])("when called with %s, then it is UNAUTHORIZED and nothing is stored", async (_label, headers) => {
      const before = await counts(t);

      const res = await t.gql(CreateProjectDocument, { input: projectInput() }, headers);

      expectFailure(res, "UNAUTHORIZED", /X-User-Role|role/);
      expect(await counts(t)).toEqual(before);
    });

    it("when X-User-Role is written in other case, then it is accepted", async () => {
      const res = await t.gql(CreateProjectDocument, { input: projectInput() }, { "x-user-role": "StUdEnT" });

      expectSuccess(res);
    });
  });
});
