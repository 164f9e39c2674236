// Teachers and students take where and orderBy on their own fields (contract, sixth revision): names fold as
// projects' do, an email compares ignoring case, every order both ways on the offset page and by cursor, and a
// rename or an update of a name is found by its new folded name (stored state: name_folded follows the name).
import {
  StudentsBoardDocument,
  TeachersBoardDocument,
  UpdateStudentDocument,
  UpdateTeacherDocument,
  type StudentOrderField,
  type StudentWhere,
  type TeacherOrderField,
  type TeacherWhere,
} from "../generated/graphql";
import { startTestApp, type TestApp } from "../helpers/app";
import { ADMIN, TEACHER, range } from "./support";

const fold = (s: string) => s.normalize("NFKD").replace(/\p{M}/gu, "").toLowerCase().trim();

const TEACHER_NAMES = ["Élodie Martin", "eloise Durand", "Zoé Petit", "André Morel", "andre Moreau", "Ólafur"];

describe("where and orderBy on teachers and students", () => {
  let t: TestApp;
  const teachers = range(1, 30).map((teacher_id) => ({
    teacher_id,
    teacher_name: TEACHER_NAMES[teacher_id - 1] ?? `Teacher ${String((teacher_id * 7) % 30).padStart(2, "0")}`,
  }));
  const students = range(1, 40).map((student_id) => ({
    student_id,
    student_name: student_id === 1 ? "Émile Zola" : `Student ${String((student_id * 11) % 40).padStart(2, "0")}`,
    email: student_id === 2 ? "mixed.case@school.test" : `student${student_id}@school.test`,
    class_code: `C${student_id % 4}`,
  }));

  beforeAll(async () => {
    t = await startTestApp();
    await t.db.models.Teacher.insertMany(teachers);
    await t.db.models.Student.insertMany(students);
  });
  afterAll(async () => {
    await t.close();
  });

  function ordered<R extends { id: number }>(rows: R[], key: (r: R) => string | number, direction: "ASC" | "DESC") {
    const sign = direction === "ASC" ? 1 : -1;
    return [...rows]
      .sort((a, b) => {
        const x = key(a);
        const y = key(b);
        return sign * (x < y ? -1 : x > y ? 1 : a.id - b.id);
      })
      .map((r) => r.id);
  }

  const teacherRows = () => teachers.map((r) => ({ ...r, id: r.teacher_id }));
  const studentRows = () => students.map((r) => ({ ...r, id: r.student_id }));

  it.each<[string, TeacherWhere, (r: { teacher_id: number; teacher_name: string }) => boolean]>([
    ["a name's start, folded", { teacher_name: { startsWith: "ÉLO" } }, (r) => fold(r.teacher_name).startsWith("elo")],
    ["a whole name, folded", { teacher_name: { eq: " andre MOREL " } }, (r) => r.teacher_id === 4],
    [
      "ids and or",
      { or: [{ teacher_id: { lte: 3 } }, { teacher_id: { in: [10, 20] } }] },
      (r) => r.teacher_id <= 3 || [10, 20].includes(r.teacher_id),
    ],
    ["not", { not: { teacher_name: { startsWith: "teacher" } } }, (r) => !fold(r.teacher_name).startsWith("teacher")],
  ])("teachers where %s", async (_name, where, predicate) => {
    const res = await t.gql(TeachersBoardDocument, { where, first: 100 }, ADMIN);
    expect(res.errors).toBeUndefined();
    const expected = teachers.filter(predicate).map((r) => r.teacher_id);
    expect(res.data!.teachers.items.map((i) => i.teacher_id)).toEqual(expected);
    expect(res.data!.teachersConnection.totalCount).toBe(expected.length);
  });

  it.each<[string, StudentWhere, (r: (typeof students)[number]) => boolean]>([
    ["a name's start, folded", { student_name: { startsWith: "emi" } }, (r) => r.student_id === 1],
    ["an email, ignoring case", { email: { eq: "Mixed.Case@School.TEST" } }, (r) => r.student_id === 2],
    ["an email's start, ignoring case", { email: { startsWith: "STUDENT1" } }, (r) => r.email.startsWith("student1")],
    ["class codes", { class_code: { in: ["C1", "C2"] } }, (r) => ["C1", "C2"].includes(r.class_code)],
    [
      "ids",
      { student_id: { gt: 5, lte: 12, ne: 7 } },
      (r) => r.student_id > 5 && r.student_id <= 12 && r.student_id !== 7,
    ],
  ])("students where %s", async (_name, where, predicate) => {
    const res = await t.gql(StudentsBoardDocument, { where, first: 100 }, TEACHER);
    expect(res.errors).toBeUndefined();
    const expected = students.filter(predicate).map((r) => r.student_id);
    expect(res.data!.students.items.map((i) => i.student_id)).toEqual(expected);
    expect(res.data!.studentsConnection.totalCount).toBe(expected.length);
  });

  it("given a student filter and a where, a student matches both", async () => {
    const res = await t.gql(
      StudentsBoardDocument,
      { filter: { class_code: "C1" }, where: { student_id: { lt: 20 } }, first: 100 },
      TEACHER,
    );
    expect(res.data!.students.items.map((i) => i.student_id)).toEqual(
      students.filter((s) => s.class_code === "C1" && s.student_id < 20).map((s) => s.student_id),
    );
  });

  const TEACHER_ORDERS: [TeacherOrderField, (r: ReturnType<typeof teacherRows>[number]) => string | number][] = [
    ["TEACHER_ID", (r) => r.teacher_id],
    ["TEACHER_NAME", (r) => fold(r.teacher_name)],
  ];
  const STUDENT_ORDERS: [StudentOrderField, (r: ReturnType<typeof studentRows>[number]) => string | number][] = [
    ["STUDENT_ID", (r) => r.student_id],
    ["STUDENT_NAME", (r) => fold(r.student_name)],
    ["CLASS_CODE", (r) => r.class_code],
  ];

  describe.each(TEACHER_ORDERS)("teachers by %s", (field, key) => {
    it.each(["ASC", "DESC"] as const)("%s: the page and the cursor pages forward and backward", async (direction) => {
      const expected = ordered(teacherRows(), key, direction);
      const orderBy = { field, direction };
      const first = await t.gql(TeachersBoardDocument, { orderBy, first: 4 }, ADMIN);
      expect(first.data!.teachers.items.map((i) => i.teacher_id)).toEqual(expected);
      const forward: number[] = [];
      let after: string | null | undefined;
      for (let pages = 0; pages < 20; pages++) {
        const res = await t.gql(TeachersBoardDocument, { orderBy, first: 4, after }, ADMIN);
        const c = res.data!.teachersConnection;
        forward.push(...c.edges.map((e) => e.node.teacher_id));
        if (!c.pageInfo.hasNextPage) break;
        after = c.pageInfo.endCursor;
      }
      expect(forward).toEqual(expected);
      const backward: number[] = [];
      let before: string | null | undefined;
      for (let pages = 0; pages < 20; pages++) {
        const res = await t.gql(TeachersBoardDocument, { orderBy, last: 4, before }, ADMIN);
        const c = res.data!.teachersConnection;
        backward.unshift(...c.edges.map((e) => e.node.teacher_id));
        if (!c.pageInfo.hasPreviousPage) break;
        before = c.pageInfo.startCursor;
      }
      expect(backward).toEqual(expected);
    });
  });

  describe.each(STUDENT_ORDERS)("students by %s", (field, key) => {
    it.each(["ASC", "DESC"] as const)("%s: the page and the cursor pages forward", async (direction) => {
      const expected = ordered(studentRows(), key, direction);
      const orderBy = { field, direction };
      const page = await t.gql(StudentsBoardDocument, { orderBy, first: 6 }, TEACHER);
      expect(page.data!.students.items.map((i) => i.student_id)).toEqual(expected);
      const forward: number[] = [];
      let after: string | null | undefined;
      for (let pages = 0; pages < 20; pages++) {
        const res = await t.gql(StudentsBoardDocument, { orderBy, first: 6, after }, TEACHER);
        const c = res.data!.studentsConnection;
        forward.push(...c.edges.map((e) => e.node.student_id));
        if (!c.pageInfo.hasNextPage) break;
        after = c.pageInfo.endCursor;
      }
      expect(forward).toEqual(expected);
    });
  });

  it("a cursor of teachers by name is refused with another order, naming after", async () => {
    const byName = await t.gql(
      TeachersBoardDocument,
      { orderBy: { field: "TEACHER_NAME", direction: "ASC" }, first: 2 },
      ADMIN,
    );
    const res = await t.gql(
      TeachersBoardDocument,
      { first: 2, after: byName.data!.teachersConnection.pageInfo.endCursor },
      ADMIN,
    );
    expect(res.errors?.[0].extensions).toMatchObject({ code: "BAD_REQUEST", field: "after", reason: "INVALID_FORMAT" });
  });

  it("a renamed teacher and an updated student are found by their new names, and store them folded", async () => {
    const rename = await t.gql(
      UpdateTeacherDocument,
      { teacherId: 30, input: { teacher_name: "  Ãrne Ünger " } },
      ADMIN,
    );
    expect(rename.data!.updateTeacher.success).toBe(true);
    const found = await t.gql(
      TeachersBoardDocument,
      { where: { teacher_name: { startsWith: "arne u" } }, first: 5 },
      ADMIN,
    );
    expect(found.data!.teachers.items.map((i) => i.teacher_id)).toEqual([30]);
    expect((await t.db.models.Teacher.findOne({ teacher_id: 30 }).lean())!.name_folded).toBe("arne unger");

    const update = await t.gql(UpdateStudentDocument, { studentId: 40, input: { student_name: "Çelik Ñandú" } }, ADMIN);
    expect(update.data!.updateStudent.success).toBe(true);
    const student = await t.gql(
      StudentsBoardDocument,
      { where: { student_name: { eq: "celik nandu" } }, first: 5 },
      TEACHER,
    );
    expect(student.data!.students.items.map((i) => i.student_id)).toEqual([40]);
    expect((await t.db.models.Student.findOne({ student_id: 40 }).lean())!.name_folded).toBe("celik nandu");
  });

  it("an out-of-range student id deep in a where is BAD_REQUEST naming its path", async () => {
    const res = await t.gql(
      StudentsBoardDocument,
      { where: { and: [{ class_code: { eq: "C1" } }, { student_id: { in: range(1, 101) } }] } },
      TEACHER,
    );
    expect(res.errors?.[0].extensions).toMatchObject({
      code: "BAD_REQUEST",
      field: "where.and[1].student_id.in",
      reason: "OUT_OF_RANGE",
    });
  });
});
