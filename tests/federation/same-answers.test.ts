// The subgraph serves the service's resolvers, not copies of them: with FEDERATION=true and without it, on the same
// data, the same operations give the same answers — mutations' envelope and field errors, typed scalars (SafeInt,
// LocalDate, DateTime), enums, access refusals, global ids, and subscriptions over the service's own WebSocket.
import {
  AssignTeacherDocument,
  CreateProjectDocument,
  GetStudentDocument,
  NodeByIdDocument,
  ProjectChangedDocument,
  ProjectHistoryDocument,
  UpdateProjectStatusDocument,
} from "../generated/graphql";
import { startTestApp, type TestApp } from "../helpers/app";
import { liveClient, subscribe } from "../helpers/live";
import { createProject, createStudent, createTeacher, projectInput } from "../operations/support";
import { ADMIN, idOf, startSubgraph, STUDENT, TEACHER, type Subgraph } from "./support";

describe("the same answers with and without FEDERATION", () => {
  let federated: Subgraph;
  let plain: TestApp;
  beforeAll(async () => {
    federated = await startSubgraph();
    plain = await startTestApp({ db: federated.db });
  });
  afterAll(async () => {
    await plain.app.close();
    await federated.close();
  });

  it("when a mutation fails validation on the subgraph, then its payload lists the same field errors as the service's", async () => {
    const input = projectInput({ project_name: " ", start_date: "2025-02-30", end_date: "2025-01-01" });

    const viaSubgraph = await federated.gql(CreateProjectDocument, { input }, ADMIN);
    const viaService = await plain.gql(CreateProjectDocument, { input }, ADMIN);

    expect(viaSubgraph.data!.createProject.success).toBe(false);
    expect(viaSubgraph.data!.createProject.errors.map((e) => e.field)).toEqual(
      expect.arrayContaining(["project_name", "start_date"]),
    );
    expect(viaSubgraph).toEqual(viaService);
  });

  it("when a project is created and changed on the subgraph, then its fields and history read the same on both", async () => {
    const teacher = await createTeacher(federated, "Ada Federated");
    const created = await federated.gql(CreateProjectDocument, { input: projectInput() }, ADMIN);
    const projectId = created.data!.createProject.data!.project_id;
    const assigned = await federated.gql(
      AssignTeacherDocument,
      { projectId, input: { new_teacher_id: teacher.teacher_id } },
      TEACHER,
    );

    expect(created.data!.createProject.success).toBe(true);
    expect(assigned.data!.assignTeacher).toEqual(
      expect.objectContaining({ success: true, data: expect.objectContaining({ teacher_id: teacher.teacher_id }) }),
    );
    const history = await federated.gql(ProjectHistoryDocument, { projectId }, ADMIN);
    expect(history.errors).toBeUndefined();
    expect(history.data!.project!.history.items.map((c) => [c.operation, c.actor_role])).toEqual([
      ["assignTeacher", "teacher"],
      ["createProject", "admin"],
    ]);
    expect(history).toEqual(await plain.gql(ProjectHistoryDocument, { projectId }, ADMIN));
    const node = { id: idOf("Project", projectId) };
    expect(await federated.gql(NodeByIdDocument, node, ADMIN)).toEqual(await plain.gql(NodeByIdDocument, node, ADMIN));
  });

  it("when a student reads a student's record on the subgraph, then it is FORBIDDEN as on the service, and a teacher reads it", async () => {
    const student = await createStudent(federated, { student_name: "Sam Federated" });

    const refused = await federated.gql(GetStudentDocument, { studentId: student.student_id }, STUDENT);
    const read = await federated.gql(GetStudentDocument, { studentId: student.student_id }, TEACHER);

    expect(refused.errors?.[0].extensions?.code).toBe("FORBIDDEN");
    expect(refused).toEqual(await plain.gql(GetStudentDocument, { studentId: student.student_id }, STUDENT));
    expect(read.data!.student).toEqual(expect.objectContaining({ student_name: "Sam Federated" }));
    expect(read).toEqual(await plain.gql(GetStudentDocument, { studentId: student.student_id }, TEACHER));
  });

  it("when a project changes, then a subscriber on the subgraph's WebSocket gets the change with the project as of it", async () => {
    const project = await createProject(federated, { project_status: "planned" });
    const live = liveClient(federated, { "x-user-role": "student", "x-user-id": "student-federated" });
    try {
      const sub = subscribe(live, ProjectChangedDocument, { projectId: project.project_id, afterRevision: 1 });
      await federated.gql(
        UpdateProjectStatusDocument,
        { projectId: project.project_id, input: { project_status: "active" } },
        TEACHER,
      );

      const [event] = (await sub.received(1)).map((e) => e.projectChanged);

      expect(event).toMatchObject({
        project_id: project.project_id,
        change: { revision: 2, operation: "updateProjectStatus", actor_role: "teacher" },
        project: { revision: 2, project_status: "active" },
      });
      expect(event.change.changes).toEqual([{ field: "project_status", from: "planned", to: "active" }]);
    } finally {
      await live.dispose();
    }
  });
});
