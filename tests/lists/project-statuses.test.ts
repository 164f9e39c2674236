// projectStatuses: what a client may offer in a status picker.
import { parseStatusWorkflow } from "../../src/components/projects";
import { ProjectStatusesDocument } from "../generated/graphql";
import { startTestApp } from "../helpers/app";
import { STUDENT } from "./support";

describe("projectStatuses", () => {
  it("when no workflow is configured, then the list is empty (any status is allowed)", async () => {
    const t = await startTestApp();
    try {
      const res = await t.gql(ProjectStatusesDocument, {}, STUDENT);
      expect(res.errors).toBeUndefined();
      expect(res.data!.projectStatuses).toEqual([]);
    } finally {
      await t.close();
    }
  });

  it("when a workflow is configured, then its statuses come back in the order the file lists them", async () => {
    const workflow = parseStatusWorkflow(
      JSON.stringify({
        initial: ["proposed"],
        transitions: {
          proposed: ["in_progress", "cancelled"],
          in_progress: ["on_hold", "completed", "cancelled"],
          on_hold: ["in_progress", "cancelled"],
          completed: [],
          cancelled: [],
        },
      }),
    );
    const t = await startTestApp({ statusWorkflow: workflow });
    try {
      const res = await t.gql(ProjectStatusesDocument, {}, STUDENT);
      expect(res.errors).toBeUndefined();
      expect(res.data!.projectStatuses).toEqual(["proposed", "in_progress", "on_hold", "completed", "cancelled"]);
    } finally {
      await t.close();
    }
  });

  it("when no role is sent, then projectStatuses is UNAUTHORIZED like every query", async () => {
    const t = await startTestApp();
    try {
      const res = await t.gql(ProjectStatusesDocument, {});
      expect(res.errors?.[0].extensions?.code).toBe("UNAUTHORIZED");
    } finally {
      await t.close();
    }
  });
});
