// What each operation costs in database commands on its success path, read from outside as the contract says
// (GET /metrics, db_command_duration_seconds_count): a project by id 1; each change is one transaction, its commit
// counted: updateProjectStatus 4 (the conditional update, the position, the entry, the commit), assignTeacher 5 (the
// teacher held in the transaction too), createProject 5 (its id, the project, the position, the entry, the commit).
// docs/performance.md has the table.
import { openDatabase } from "../../src/persistence";
import { startTestApp, type TestApp } from "../helpers/app";
import { dropTestDatabase, testDbName, testMongoUri } from "../helpers/database";
import { ADMIN, projectInput, TEACHER, unique } from "./support";

/** Every database command the service has sent so far, whatever its name and outcome. */
async function commandsSoFar(t: TestApp): Promise<number> {
  const text = await (await fetch(`${t.url}/metrics`)).text();
  let total = 0;
  for (const line of text.split("\n")) {
    const match = /^db_command_duration_seconds_count\{.*\} (\S+)$/.exec(line);
    if (match) total += Number(match[1]);
  }
  return total;
}

describe("database commands per operation", () => {
  let t: TestApp;
  beforeAll(async () => {
    const db = await openDatabase(testMongoUri(), { dbName: testDbName(), monitorCommands: true });
    t = await startTestApp({ db });
  });
  afterAll(async () => {
    await t.app.close();
    await dropTestDatabase(t.db);
  });

  async function costOf(headers: Record<string, string>, query: string, variables: object) {
    const before = await commandsSoFar(t);
    const res = await t.http("POST", "/graphql", { body: { query, variables }, headers });
    const after = await commandsSoFar(t);
    return {
      body: res.body as { data: Record<string, { success?: boolean; data?: { project_id: number } }> },
      commands: after - before,
    };
  }

  it("when a project is created, read by id, given a new status and a teacher, then each costs at most its budget", async () => {
    const teacher = await costOf(
      ADMIN,
      "mutation ($input: CreateTeacherInput!) { createTeacher(input: $input) { success data { teacher_id } } }",
      { input: { teacher_name: unique("Teacher") } },
    );
    const teacherId = (teacher.body.data.createTeacher.data as unknown as { teacher_id: number }).teacher_id;

    const created = await costOf(
      ADMIN,
      "mutation ($input: CreateProjectInput!) { createProject(input: $input) { success data { project_id } } }",
      { input: projectInput() },
    );
    const projectId = created.body.data.createProject.data!.project_id;
    const read = await costOf(
      TEACHER,
      "query ($id: Int!) { project(projectId: $id) { project_id project_name project_status revision } }",
      { id: projectId },
    );
    const status = await costOf(
      TEACHER,
      'mutation ($id: Int!) { updateProjectStatus(projectId: $id, input: { project_status: "active" }) { success } }',
      { id: projectId },
    );
    const assigned = await costOf(
      TEACHER,
      "mutation ($id: Int!, $t: Int!) { assignTeacher(projectId: $id, input: { new_teacher_id: $t }) { success } }",
      { id: projectId, t: teacherId },
    );

    expect(created.body.data.createProject.success).toBe(true);
    expect(status.body.data.updateProjectStatus.success).toBe(true);
    expect(assigned.body.data.assignTeacher.success).toBe(true);
    expect({
      project: read.commands,
      createProject: created.commands,
      updateProjectStatus: status.commands,
      assignTeacher: assigned.commands,
    }).toEqual({ project: 1, createProject: 5, updateProjectStatus: 4, assignTeacher: 5 });
  });
});
