// updateProjectStatus without a workflow: any authenticated caller may set any status; NOT_FOUND, validation and
// authentication failures change nothing. (With a workflow: status-workflow.test.ts.)
import { UpdateProjectStatusDocument } from "../generated/graphql";
import { startTestApp, type TestApp } from "../helpers/app";
import { ADMIN, createProject, expectFailure, expectSuccess, snapshot, STUDENT, TEACHER } from "./support";

describe("updateProjectStatus (no workflow)", () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(async () => {
    await t.close();
  });

  it.each([
    ["student", STUDENT],
    ["teacher", TEACHER],
    ["admin", ADMIN],
  ])("when a %s sets a new status, then the payload and the stored project carry it", async (_role, headers) => {
    const project = await createProject(t, { project_status: "planned" });

    const res = await t.gql(
      UpdateProjectStatusDocument,
      { projectId: project.project_id, input: { project_status: "  in review  " } },
      headers,
    );

    const payload = expectSuccess(res);
    expect(payload.message).toBe("Project status updated");
    expect(payload.data).toMatchObject({
      project_id: project.project_id,
      project_name: project.project_name,
      project_status: "in review",
      created_at: project.created_at,
    });
    const stored = await t.db.models.Project.findOne({ project_id: project.project_id }).lean();
    expect(stored).toMatchObject({ project_status: "in review", project_name: project.project_name });
    expect(stored!.updated_at.getTime()).toBeGreaterThanOrEqual(new Date(project.updated_at).getTime());
  });

  it("when any status is followed by any other (no workflow), then every change is accepted", async () => {
    const project = await createProject(t, { project_status: "done" });

    for (const status of ["planned", "whatever", "DONE", "planned"]) {
      const res = await t.gql(
        UpdateProjectStatusDocument,
        { projectId: project.project_id, input: { project_status: status } },
        STUDENT,
      );
      expect(expectSuccess(res).data.project_status).toBe(status);
    }

    expect((await t.db.models.Project.findOne({ project_id: project.project_id }).lean())!.project_status).toBe(
      "planned",
    );
  });

  it("when the current status is set again, then it succeeds and the status stays", async () => {
    const project = await createProject(t, { project_status: "active" });

    const res = await t.gql(
      UpdateProjectStatusDocument,
      { projectId: project.project_id, input: { project_status: "active" } },
      TEACHER,
    );

    expect(expectSuccess(res).data.project_status).toBe("active");
    expect((await t.db.models.Project.findOne({ project_id: project.project_id }).lean())!.project_status).toBe(
      "active",
    );
  });

  it("when a 64-character status is set, then it is accepted", async () => {
    const project = await createProject(t);
    const status = "s".repeat(64);

    const res = await t.gql(
      UpdateProjectStatusDocument,
      { projectId: project.project_id, input: { project_status: status } },
      TEACHER,
    );

    expect(expectSuccess(res).data.project_status).toBe(status);
    expect((await t.db.models.Project.findOne({ project_id: project.project_id }).lean())!.project_status).toBe(status);
  });

  it("when the project does not exist, then it is NOT_FOUND and nothing changes", async () => {
    await createProject(t);
    const before = await snapshot(t);

    const res = await t.gql(
      UpdateProjectStatusDocument,
      { projectId: 424_242, input: { project_status: "done" } },
      ADMIN,
    );

    expectFailure(res, "NOT_FOUND", /project 424242/);
    expect(await snapshot(t)).toEqual(before);
  });

  it.each<[string, number | null, string, string]>([
    ["an empty project_status", null, "", "project_status"],
    ["a project_status of spaces only", null, "   ", "project_status"],
    ["a 65-character project_status", null, "s".repeat(65), "project_status"],
    ["projectId 0", 0, "done", "projectId"],
    ["a negative projectId", -3, "done", "projectId"],
  ])(
    "when called with %s, then it is BAD_REQUEST naming the field and nothing changes",
    async (_label, projectId, status, field) => {
      const project = await createProject(t);
      const before = await snapshot(t);

      const res = await t.gql(
        UpdateProjectStatusDocument,
        { projectId: projectId ?? project.project_id, input: { project_status: status } },
        ADMIN,
      );

      expectFailure(res, "BAD_REQUEST", field);
      expect(await snapshot(t)).toEqual(before);
    },
  );

  it.each<[string, Record<string, string>]>([
    ["no X-User-Role", {}],
    ["an unknown X-User-Role", { "x-user-role": "guest" }],
  ])("when called with %s, then it is UNAUTHORIZED and nothing changes", async (_label, headers) => {
    const project = await createProject(t, { project_status: "planned" });
    const before = await snapshot(t);

    const res = await t.gql(
      UpdateProjectStatusDocument,
      { projectId: project.project_id, input: { project_status: "done" } },
      headers,
    );

    expectFailure(res, "UNAUTHORIZED", /X-User-Role/);
    expect(await snapshot(t)).toEqual(before);
  });
});
