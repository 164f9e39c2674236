// What a frontend gets from Apollo Client 4 without configuration: with a default `new InMemoryCache()` (no
// typePolicies), objects are normalised by __typename and id, so after assignTeacher, updateProjectStatus,
// createTeacher, updateTeacher and updateStudent every watched list and object shows the change with no refetch and
// no warning; and with relayStylePagination() as the only type policy, fetchMore merges projectsConnection's pages.
import { InMemoryCache } from "@apollo/client";
import { relayStylePagination } from "@apollo/client/utilities";
import {
  ClientAssignTeacherDocument,
  ClientCreateTeacherDocument,
  ClientUpdateProjectStatusDocument,
  ClientUpdateStudentDocument,
  ClientUpdateTeacherDocument,
  ProjectsFeedDocument,
  WatchedProjectDocument,
  WatchedProjectsDocument,
  WatchedStudentsDocument,
} from "../generated/graphql";
import { apolloClient, watch } from "../helpers/apollo";
import { startTestApp, type TestApp } from "../helpers/app";
import { ADMIN, createProject, createStudent, createTeacher, unique } from "../operations/support";

describe("Apollo Client 4 with a default InMemoryCache", () => {
  let t: TestApp;
  let warn: jest.SpyInstance;
  let error: jest.SpyInstance;

  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(() => t.close());
  beforeEach(() => {
    // Apollo reports cache problems ("Cache data may be lost ...", missing fields) on the console.
    warn = jest.spyOn(console, "warn");
    error = jest.spyOn(console, "error");
  });
  afterEach(() => {
    expect(warn).not.toHaveBeenCalled();
    expect(error).not.toHaveBeenCalled();
    warn.mockRestore();
    error.mockRestore();
  });

  it("when mutations change projects, teachers and students, then every watched query shows it without a refetch", async () => {
    const company_id = 1000 + Math.floor(Math.random() * 1_000_000);
    const ada = await createTeacher(t, unique("Ada"));
    const first = await createProject(t, { company_id, project_status: "planned" });
    const second = await createProject(t, { company_id, project_status: "planned" });
    const class_code = unique("C").slice(0, 32);
    const student = await createStudent(t, { class_code, student_name: "Lin Before" });

    const { client, sent } = apolloClient(t, ADMIN);
    const list = watch(client.watchQuery({ query: WatchedProjectsDocument, variables: { filter: { company_id } } }));
    const one = watch(client.watchQuery({ query: WatchedProjectDocument, variables: { projectId: first.project_id } }));
    const students = watch(
      client.watchQuery({ query: WatchedStudentsDocument, variables: { filter: { class_code } } }),
    );
    try {
      await list.until((d) => d.projects.items.length === 2);
      await one.until((d) => d.project !== null);
      await students.until((d) => d.students.items.length === 1);
      expect([...sent].sort()).toEqual(["WatchedProject", "WatchedProjects", "WatchedStudents"]);
      sent.length = 0;
      const itemOf = (data: typeof list.data, id: number) => data!.projects.items.find((p) => p.project_id === id)!;

      // assignTeacher: the list's and the single project's teacher.
      const assigned = await client.mutate({
        mutation: ClientAssignTeacherDocument,
        variables: { projectId: first.project_id, teacherId: ada.teacher_id },
      });
      expect(assigned.data!.assignTeacher.success).toBe(true);
      await list.until((d) => itemOf(d, first.project_id).teacher?.teacher_name === ada.teacher_name);
      await one.until((d) => d.project!.teacher_id === ada.teacher_id && d.project!.revision === 2);

      // updateProjectStatus: the list's status and revision.
      await client.mutate({
        mutation: ClientUpdateProjectStatusDocument,
        variables: { projectId: second.project_id, status: "review" },
      });
      await list.until(
        (d) => itemOf(d, second.project_id).project_status === "review" && itemOf(d, second.project_id).revision === 2,
      );

      // createTeacher, then assignTeacher to the new teacher: the watched project and list show the new teacher.
      const created = await client.mutate({ mutation: ClientCreateTeacherDocument, variables: { name: "Grace New" } });
      const grace = created.data!.createTeacher.data!;
      await client.mutate({
        mutation: ClientAssignTeacherDocument,
        variables: { projectId: first.project_id, teacherId: grace.teacher_id },
      });
      await one.until((d) => d.project!.teacher?.teacher_name === "Grace New" && d.project!.revision === 3);
      await list.until((d) => itemOf(d, first.project_id).teacher?.teacher_name === "Grace New");

      // updateTeacher: every place that shows the teacher.
      await client.mutate({
        mutation: ClientUpdateTeacherDocument,
        variables: { teacherId: grace.teacher_id, name: "Grace Renamed" },
      });
      await one.until((d) => d.project!.teacher?.teacher_name === "Grace Renamed");
      await list.until((d) => itemOf(d, first.project_id).teacher?.teacher_name === "Grace Renamed");

      // updateStudent: the watched list of students.
      await client.mutate({
        mutation: ClientUpdateStudentDocument,
        variables: { studentId: student.student_id, name: "Lin After" },
      });
      await students.until((d) => d.students.items[0].student_name === "Lin After");

      // Nothing was read again: only the mutations went to the server.
      expect(sent).toEqual([
        "ClientAssignTeacher",
        "ClientUpdateProjectStatus",
        "ClientCreateTeacher",
        "ClientAssignTeacher",
        "ClientUpdateTeacher",
        "ClientUpdateStudent",
      ]);
      // And what the cache shows is what the server now holds.
      expect(itemOf(list.data, first.project_id).revision).toBe(3);
      expect(itemOf(list.data, second.project_id).project_status).toBe("review");
    } finally {
      list.stop();
      one.stop();
      students.stop();
      client.stop();
    }
  });

  it("when projectsConnection pages are fetched with fetchMore and relayStylePagination, then the watched list holds them all, merged", async () => {
    const company_id = 2_000_000 + Math.floor(Math.random() * 1_000_000);
    const created = [];
    for (let i = 0; i < 7; i++) created.push(await createProject(t, { company_id }));
    const ids = created.map((p) => p.project_id);

    const cache = new InMemoryCache({
      typePolicies: { Query: { fields: { projectsConnection: relayStylePagination(["filter"]) } } },
    });
    const { client, sent } = apolloClient(t, ADMIN, cache);
    const query = client.watchQuery({ query: ProjectsFeedDocument, variables: { first: 3, filter: { company_id } } });
    const feed = watch(query);
    try {
      let data = await feed.until((d) => d.projectsConnection.edges.length === 3);
      while (data.projectsConnection.pageInfo.hasNextPage) {
        const shown = data.projectsConnection.edges.length;
        await query.fetchMore({ variables: { after: data.projectsConnection.pageInfo.endCursor } });
        data = await feed.until((d) => d.projectsConnection.edges.length > shown);
      }
      expect(data.projectsConnection.edges.map((e) => e.node.project_id)).toEqual(ids);
      expect(data.projectsConnection.pageInfo.hasNextPage).toBe(false);
      expect(sent).toEqual(["ProjectsFeed", "ProjectsFeed", "ProjectsFeed"]);

      // The merged list's nodes are normalised like any other: a mutation elsewhere shows in it.
      await client.mutate({
        mutation: ClientUpdateProjectStatusDocument,
        variables: { projectId: ids[5], status: "archived" },
      });
      await feed.until((d) => d.projectsConnection.edges[5].node.project_status === "archived");
    } finally {
      feed.stop();
      client.stop();
    }
  });
});
