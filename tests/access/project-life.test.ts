// Row rules (ACCESS_POLICY) on a project's whole life (contract, sixth revision): archiving and unarchiving follow
// the change rule as every change does (outside the read rule NOT_FOUND, outside the change rule FORBIDDEN), and a
// deletion by an admin follows the rules of its role; nothing changes when the answer is a refusal.
import { startTestApp, type TestApp } from "../helpers/app";
import { CALLERS, contractPolicy, expectedChange, headerModeHeaders, insertProjects, range } from "./support";

describe("row rules on archive, unarchive and delete", () => {
  let t: TestApp;
  const projects = range(1, 12).map((id) => ({
    project_id: id,
    company_id: 1 + (id % 3),
    project_status: "active",
    teacher_id: id % 2 === 0 ? 1 : 2,
    created_by: ["alice", "bob", null][id % 3],
    end_date: "2026-03-20",
  }));

  beforeAll(async () => {
    t = await startTestApp({ config: { accessPolicy: contractPolicy() } });
    await insertProjects(t.db, projects);
  });
  afterAll(() => t.close());

  const call = async (who: (typeof CALLERS)[number], name: string, id: number) => {
    const res = await t.http<{ data: Record<string, { success: boolean; code: string | null }> }>("POST", "/graphql", {
      body: { query: `mutation ($id: Int!) { ${name}(projectId: $id) { success code } }`, variables: { id } },
      headers: headerModeHeaders(who),
    });
    const payload = res.body.data[name];
    return payload.success ? "success" : payload.code;
  };

  it("when each caller archives and unarchives each project, then the answer is the change rule's, and only allowed ones change it", async () => {
    for (const who of CALLERS.filter((c) => c.role === "student" || c.role === "teacher")) {
      for (const project of projects) {
        const expected = expectedChange(who, project as never);
        expect({
          who: who.name,
          id: project.project_id,
          archived: await call(who, "archiveProject", project.project_id),
        }).toEqual({ who: who.name, id: project.project_id, archived: expected });
        const stored = await t.db.models.Project.findOne({ project_id: project.project_id }).lean();
        expect(stored!.archived).toBe(expected === "success");
        if (expected === "success") {
          expect(await call(who, "unarchiveProject", project.project_id)).toBe("success");
        }
      }
    }
  });

  it("when a student or a teacher deletes a project, then it is FORBIDDEN and the project stays", async () => {
    for (const who of CALLERS.filter((c) => c.role === "student" || c.role === "teacher")) {
      expect(await call(who, "deleteProject", 1)).toBe("FORBIDDEN");
    }
    expect(await t.db.models.Project.countDocuments({ project_id: 1 })).toBe(1);
  });
});
