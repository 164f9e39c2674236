// Global object identification: Project, Teacher and Student implement Node with an opaque, stable id (base64url of
// "<Type>:<number>"), the same wherever the object appears; node(id) and nodes(ids) answer it to callers who may read
// its type (null otherwise, and for unknown or malformed ids), read in one batch per type; REST answers stay without it.
import type { mongo } from "mongoose";
import { openDatabase } from "../../src/persistence";
import {
  AssignTeacherDocument,
  AssignTeacherWithIdsDocument,
  NodeByIdDocument,
  NodesByIdsDocument,
  ProjectIdEverywhereDocument,
  StudentIdsDocument,
} from "../generated/graphql";
import { startTestApp, type TestApp } from "../helpers/app";
import { dropTestDatabase, testDbName, testMongoUri } from "../helpers/database";
import { insertProjects, insertStudents, insertTeachers, range } from "../lists/support";
import {
  ADMIN,
  STUDENT,
  TEACHER,
  createProject,
  createStudent,
  createTeacher,
  expectQueryError,
  expectSuccess,
} from "../operations/support";

const text = (id: string) => Buffer.from(id, "base64url").toString("utf8");
const idOf = (type: string, n: number) => Buffer.from(`${type}:${n}`).toString("base64url");

describe("global ids (Node)", () => {
  let t: TestApp;
  let project: { project_id: number };
  let teacher: { teacher_id: number };
  let student: { student_id: number };

  beforeAll(async () => {
    t = await startTestApp();
    teacher = await createTeacher(t, "Ada Node");
    project = await createProject(t, { project_name: "Node project" });
    student = await createStudent(t, { student_name: "Sam Node" });
    expectSuccess(
      await t.gql(
        AssignTeacherDocument,
        { projectId: project.project_id, input: { new_teacher_id: teacher.teacher_id } },
        ADMIN,
      ),
    );
  });
  afterAll(() => t.close());

  it("when a project is reached by every query, then its id is the same opaque value everywhere", async () => {
    const res = await t.gql(
      ProjectIdEverywhereDocument,
      { projectId: project.project_id, teacherId: teacher.teacher_id },
      ADMIN,
    );
    expect(res.errors).toBeUndefined();
    const data = res.data!;
    const id = data.project!.id;
    expect(text(id)).toBe(`Project:${project.project_id}`);
    expect(id).not.toContain(String(project.project_id));
    expect(data.teacher!.projects.map((p) => p.id)).toEqual([id]);
    expect(data.teacher!.projectsConnection.nodes.map((p) => p.id)).toEqual([id]);
    expect(data.projects.items.find((p) => p.project_id === project.project_id)!.id).toBe(id);
    expect(data.projectsConnection.nodes.find((p) => p.project_id === project.project_id)!.id).toBe(id);
    expect(data.project!.teacher!.id).toBe(data.teacher!.id);
    expect(text(data.teacher!.id)).toBe(`Teacher:${teacher.teacher_id}`);

    const students = await t.gql(StudentIdsDocument, { studentId: student.student_id }, TEACHER);
    expect(text(students.data!.student!.id)).toBe(`Student:${student.student_id}`);
    expect(students.data!.studentsConnection.nodes.find((s) => s.student_id === student.student_id)!.id).toBe(
      students.data!.student!.id,
    );
  });

  it("when a mutation answers, then its data and the teacher in it carry the same ids as the queries", async () => {
    const other = await createTeacher(t, "Grace Node");
    const res = await t.gql(
      AssignTeacherWithIdsDocument,
      { projectId: project.project_id, teacherId: other.teacher_id },
      ADMIN,
    );
    expect(res.data!.assignTeacher).toEqual({
      success: true,
      data: {
        id: idOf("Project", project.project_id),
        teacher_id: other.teacher_id,
        teacher: { id: idOf("Teacher", other.teacher_id), teacher_name: "Grace Node" },
      },
    });
  });

  it("when node is asked for each type by an admin, then it answers that object with its fields", async () => {
    const ask = async (id: string) => (await t.gql(NodeByIdDocument, { id }, ADMIN)).data!.node;
    expect(await ask(idOf("Teacher", teacher.teacher_id))).toEqual({
      __typename: "Teacher",
      id: idOf("Teacher", teacher.teacher_id),
      teacher_id: teacher.teacher_id,
      teacher_name: "Ada Node",
    });
    expect(await ask(idOf("Student", student.student_id))).toEqual({
      __typename: "Student",
      id: idOf("Student", student.student_id),
      student_id: student.student_id,
      student_name: "Sam Node",
    });
  });

  it("when a student asks for a Student node, then it gets null, not an error; projects and teachers it may read", async () => {
    const ids = [
      idOf("Student", student.student_id),
      idOf("Project", project.project_id),
      idOf("Teacher", teacher.teacher_id),
    ];
    const one = await t.gql(NodeByIdDocument, { id: ids[0] }, STUDENT);
    expect(one.errors).toBeUndefined();
    expect(one.data!.node).toBeNull();
    const many = await t.gql(NodesByIdsDocument, { ids }, STUDENT);
    expect(many.errors).toBeUndefined();
    expect(many.data!.nodes.map((n) => n?.__typename ?? null)).toEqual([null, "Project", "Teacher"]);
    const asTeacher = await t.gql(NodesByIdsDocument, { ids }, TEACHER);
    expect(asTeacher.data!.nodes.map((n) => n?.__typename ?? null)).toEqual(["Student", "Project", "Teacher"]);
  });

  it("when ids are unknown, malformed or not spelled as the service spells them, then each answers null", async () => {
    const good = idOf("Project", project.project_id);
    const bad = [
      idOf("Project", 999_999), // unknown
      "not-an-id",
      "",
      `${good}==`, // padded: not the canonical spelling
      Buffer.from(`Project:0${project.project_id}`).toString("base64url"), // leading zero
      Buffer.from(`Course:${project.project_id}`).toString("base64url"), // no such type
      Buffer.from(`Project:-1`).toString("base64url"),
      Buffer.from(`v1:Project:${project.project_id}`).toString("base64url"), // a cursor, not an id
      String(project.project_id),
    ];
    const res = await t.gql(NodesByIdsDocument, { ids: [...bad, good] }, ADMIN);
    expect(res.errors).toBeUndefined();
    expect(res.data!.nodes.map((n) => n?.id ?? null)).toEqual([...bad.map(() => null), good]);
  });

  it("when nodes is asked for 101 ids, then it is BAD_REQUEST naming ids; 100 ids are answered", async () => {
    const ids = range(1, 101).map((n) => idOf("Project", n));
    expectQueryError(await t.gql(NodesByIdsDocument, { ids }, ADMIN), "BAD_REQUEST", /ids may name at most 100/);
    const hundred = await t.gql(NodesByIdsDocument, { ids: ids.slice(0, 100) }, ADMIN);
    expect(hundred.errors).toBeUndefined();
    expect(hundred.data!.nodes).toHaveLength(100);
  });

  it("when a caller has no role, then node is UNAUTHORIZED", async () => {
    expectQueryError(await t.gql(NodeByIdDocument, { id: idOf("Project", project.project_id) }, {}), "UNAUTHORIZED");
  });

  it("when REST answers a project, a teacher and a student, then none of them has an id", async () => {
    const created = await t.http("POST", "/projects", {
      body: {
        project_name: "REST has no id",
        project_desc: "d",
        company_id: 3,
        project_status: "planned",
        start_date: "2026-01-01",
        end_date: "2026-02-01",
      },
      headers: ADMIN,
    });
    expect(created.status).toBe(201);
    expect(Object.keys(created.body.data!)).not.toContain("id");
    expect(Object.keys(created.body.data!)).toContain("project_id");
    const renamed = await t.http("PUT", `/teachers/${teacher.teacher_id}`, {
      body: { teacher_name: "Ada R" },
      headers: ADMIN,
    });
    expect(Object.keys(renamed.body.data!).sort()).toEqual(["teacher_id", "teacher_name"]);
    const updated = await t.http("PUT", `/students/${student.student_id}`, {
      body: { class_code: "B2" },
      headers: ADMIN,
    });
    expect(Object.keys(updated.body.data!).sort()).toEqual(["class_code", "email", "student_id", "student_name"]);
    const openapi = await t.http<{ components: { schemas: Record<string, { properties: object }> } }>(
      "GET",
      "/openapi.json",
    );
    for (const name of ["Project", "Teacher", "Student"]) {
      expect(Object.keys(openapi.body.components.schemas[name].properties)).not.toContain("id");
    }
  });
});

describe("node and nodes read through the per-request loaders", () => {
  it("when nodes names 30 projects, 10 teachers and 10 students, then each collection is read by one command", async () => {
    const dbName = testDbName();
    const db = await openDatabase(testMongoUri(), { dbName, monitorCommands: true });
    const t = await startTestApp({ db });
    try {
      await insertTeachers(db, range(1, 10));
      await insertProjects(
        db,
        range(1, 30).map((project_id) => ({ project_id, teacher_id: (project_id % 10) + 1 })),
      );
      await insertStudents(
        db,
        range(1, 10).map((student_id) => ({ student_id, class_code: "A1" })),
      );
      const ids = [
        ...range(1, 30).map((n) => idOf("Project", n)),
        ...range(1, 10).map((n) => idOf("Teacher", n)),
        ...range(1, 10).map((n) => idOf("Student", n)),
      ].sort((a, b) => text(a).length - text(b).length || (a < b ? -1 : 1)); // interleaved, not grouped by type

      const seen: mongo.CommandStartedEvent[] = [];
      const listener = (event: mongo.CommandStartedEvent) => {
        if (event.databaseName === dbName) seen.push(event);
      };
      const client = db.connection.getClient();
      client.on("commandStarted", listener);
      let res;
      try {
        res = await t.gql(NodesByIdsDocument, { ids }, ADMIN);
      } finally {
        client.off("commandStarted", listener);
      }
      expect(res.errors).toBeUndefined();
      expect(res.data!.nodes.map((n) => n!.id)).toEqual(ids);
      expect(seen.map((e) => `${e.commandName} ${String(e.command[e.commandName])}`).sort()).toEqual([
        "find projects",
        "find students",
        "find teachers",
      ]);
    } finally {
      await t.app.close();
      await dropTestDatabase(db);
    }
  });
});
