// PROJECT_STATUS_WORKFLOW: statuses outside the workflow and changes it does not allow are BAD_REQUEST (nothing
// stored); allowed changes and setting the current status again succeed; without a workflow anything goes.
// Also: the example file in examples/ parses, and malformed workflows are refused with a reason.
import fs from "node:fs";
import path from "node:path";
import { CreateProjectDocument, ProjectStatusesDocument, UpdateProjectStatusDocument } from "../generated/graphql";
import { parseStatusWorkflow } from "../../src/components/projects";
import { startTestApp, type TestApp } from "../helpers/app";
import {
  ADMIN,
  counts,
  createProject,
  expectFailure,
  expectSuccess,
  projectInput,
  snapshot,
  STUDENT,
  TEACHER,
} from "./support";

const EXAMPLE_FILE = path.join(__dirname, "..", "..", "examples", "status-workflow.json");

const WORKFLOW = JSON.stringify({
  initial: ["proposed"],
  transitions: {
    proposed: ["in_progress", "cancelled"],
    in_progress: ["completed", "cancelled"],
    completed: [],
    cancelled: [],
  },
});

describe("status workflow", () => {
  let w: TestApp;
  let free: TestApp;
  beforeAll(async () => {
    w = await startTestApp({ statusWorkflow: parseStatusWorkflow(WORKFLOW) });
    free = await startTestApp({ db: w.db });
  });
  afterAll(async () => {
    await free.close();
    await w.close();
  });

  async function statusOf(projectId: number): Promise<string | undefined> {
    return (await w.db.models.Project.findOne({ project_id: projectId }).lean())?.project_status;
  }

  async function setStatus(app: TestApp, projectId: number, project_status: string) {
    return app.gql(UpdateProjectStatusDocument, { projectId, input: { project_status } }, TEACHER);
  }

  describe("at creation", () => {
    it("when a project is created with an initial status, then it is created with it", async () => {
      const res = await w.gql(CreateProjectDocument, { input: projectInput({ project_status: "proposed" }) }, STUDENT);

      const data = expectSuccess(res).data;
      expect(data.project_status).toBe("proposed");
      expect(await statusOf(data.project_id)).toBe("proposed");
    });

    it.each([
      ["a status the workflow does not list", "archived"],
      ["a listed status in other case", "Proposed"],
      ["a listed status that cannot start a project", "completed"],
    ])(
      "when a project is created with %s, then it is BAD_REQUEST naming project_status and nothing is stored",
      async (_label, status) => {
        const before = await counts(w);

        const res = await w.gql(CreateProjectDocument, { input: projectInput({ project_status: status }) }, STUDENT);

        expectFailure(res, "BAD_REQUEST", "project_status");
        expect(await counts(w)).toEqual(before);
      },
    );
  });

  describe("changes", () => {
    it("when an allowed change is made, then it succeeds and is stored", async () => {
      const project = await createProject(w, { project_status: "proposed" });

      const res = await setStatus(w, project.project_id, "in_progress");

      expect(expectSuccess(res).data.project_status).toBe("in_progress");
      expect(await statusOf(project.project_id)).toBe("in_progress");
    });

    it("when allowed changes follow each other to a final status, then each succeeds", async () => {
      const project = await createProject(w, { project_status: "proposed" });

      expectSuccess(await setStatus(w, project.project_id, "in_progress"));
      expectSuccess(await setStatus(w, project.project_id, " completed "));

      expect(await statusOf(project.project_id)).toBe("completed");
    });

    it("when a change the workflow does not allow is made, then it is BAD_REQUEST naming both statuses and nothing changes", async () => {
      const project = await createProject(w, { project_status: "proposed" });
      const before = await snapshot(w);

      const res = await setStatus(w, project.project_id, "completed");

      expectFailure(res, "BAD_REQUEST", /project_status cannot change from "proposed" to "completed"/);
      expect(await snapshot(w)).toEqual(before);
    });

    it("when a final status is changed, then it is BAD_REQUEST and the status stays", async () => {
      const project = await createProject(w, { project_status: "proposed" });
      expectSuccess(await setStatus(w, project.project_id, "cancelled"));
      const before = await snapshot(w);

      const res = await setStatus(w, project.project_id, "proposed");

      expectFailure(res, "BAD_REQUEST", /project_status.*final/);
      expect(await snapshot(w)).toEqual(before);
    });

    it("when the new status is not in the workflow, then it is BAD_REQUEST naming project_status and nothing changes", async () => {
      const project = await createProject(w, { project_status: "proposed" });
      const before = await snapshot(w);

      const res = await setStatus(w, project.project_id, "archived");

      expectFailure(res, "BAD_REQUEST", /project_status "archived" is not one of/);
      expect(await snapshot(w)).toEqual(before);
    });

    it.each([
      ["an initial status", [], "proposed"],
      ["an intermediate status", ["in_progress"], "in_progress"],
      ["a final status", ["in_progress", "completed"], "completed"],
    ])("when %s is set again, then it succeeds and stays", async (_label, path, again) => {
      const project = await createProject(w, { project_status: "proposed" });
      for (const status of path) expectSuccess(await setStatus(w, project.project_id, status));

      const res = await setStatus(w, project.project_id, again);

      expect(expectSuccess(res).data.project_status).toBe(again);
      expect(await statusOf(project.project_id)).toBe(again);
    });

    it("when a stored status is not in the workflow (older data), then it may change to a listed status", async () => {
      const project = await createProject(free, { project_status: "legacy" });

      const res = await setStatus(w, project.project_id, "in_progress");

      expect(expectSuccess(res).data.project_status).toBe("in_progress");
      expect(await statusOf(project.project_id)).toBe("in_progress");
    });

    it("when the project does not exist, then it is NOT_FOUND before any workflow check", async () => {
      const res = await setStatus(w, 555_555, "archived");

      expectFailure(res, "NOT_FOUND", /project 555555/);
    });
  });

  describe("projectStatuses", () => {
    it("when a workflow is set, then projectStatuses lists its statuses in file order", async () => {
      const res = await w.gql(ProjectStatusesDocument, {}, STUDENT);

      expect(res.data?.projectStatuses).toEqual(["proposed", "in_progress", "completed", "cancelled"]);
    });

    it("when no workflow is set, then projectStatuses is empty", async () => {
      const res = await free.gql(ProjectStatusesDocument, {}, STUDENT);

      expect(res.data?.projectStatuses).toEqual([]);
    });
  });

  describe("without a workflow", () => {
    it("when a project is created with any status and changed to any other, then both succeed", async () => {
      const created = expectSuccess(
        await free.gql(CreateProjectDocument, { input: projectInput({ project_status: "archived" }) }, ADMIN),
      ).data;

      for (const status of ["completed", "proposed", "anything at all"]) {
        expect(expectSuccess(await setStatus(free, created.project_id, status)).data.project_status).toBe(status);
      }

      expect(await statusOf(created.project_id)).toBe("anything at all");
    });
  });

  describe("workflow files", () => {
    it("when examples/status-workflow.json is parsed, then it gives a workflow whose transitions name only its statuses", () => {
      const workflow = parseStatusWorkflow(fs.readFileSync(EXAMPLE_FILE, "utf8"));

      expect(workflow.statuses.length).toBeGreaterThan(1);
      expect(workflow.initial.size).toBeGreaterThan(0);
      for (const s of workflow.initial) expect(workflow.statuses).toContain(s);
      for (const [from, targets] of workflow.transitions) {
        expect(workflow.statuses).toContain(from);
        for (const to of targets) expect(workflow.statuses).toContain(to);
      }
    });

    it("when the app runs with the example workflow, then its first status starts a project and moves on as the file says", async () => {
      const workflow = parseStatusWorkflow(fs.readFileSync(EXAMPLE_FILE, "utf8"));
      const app = await startTestApp({ statusWorkflow: workflow, db: w.db });
      try {
        const initial = [...workflow.initial][0];
        const next = [...workflow.transitions.get(initial)!][0];
        const project = expectSuccess(
          await app.gql(CreateProjectDocument, { input: projectInput({ project_status: initial }) }, ADMIN),
        ).data;

        const res = await setStatus(app, project.project_id, next);

        expect(expectSuccess(res).data.project_status).toBe(next);
        expect(await statusOf(project.project_id)).toBe(next);
      } finally {
        await app.close();
      }
    });

    it.each([
      ["text that is not JSON", "{ transitions: ", /not valid JSON/],
      ["an empty transitions object", '{"transitions": {}}', /no status/],
      ["a transition to an unlisted status", '{"transitions": {"a": ["b"]}}', /"b"/],
      ["an initial status that is not listed", '{"initial": ["x"], "transitions": {"a": []}}', /initial status "x"/],
      ["an unknown key", '{"transitions": {"a": []}, "final": ["a"]}', /unknown key "final"/],
      ["a status with surrounding spaces", '{"transitions": {" a ": []}}', /status " a "/],
    ])("when a workflow file holds %s, then parsing fails with a one-line reason", (_label, text, reason) => {
      expect(() => parseStatusWorkflow(text)).toThrow(reason);
    });
  });
});
