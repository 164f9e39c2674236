// Student use cases: create, update, read and list. The rules live here; student.repository.ts stores and returns
// plain records.
import { conflict, notFound } from "../../shared/errors";
import { pageBounds, toPage, type Page, type PageRequest } from "../../shared/pagination";
import { email, LIMITS, positiveId, text } from "../../shared/validation";
import type { StudentChanges, StudentRecord, StudentRepository } from "./student.repository";

export type { StudentRecord } from "./student.repository";

export interface StudentFilter {
  class_code?: string | null;
}

export class StudentService {
  constructor(private readonly students: StudentRepository) {}

  async create(input: { student_name: unknown; email: unknown; class_code: unknown }): Promise<StudentRecord> {
    const values = {
      student_name: text("student_name", input.student_name, LIMITS.name),
      email: email("email", input.email),
      class_code: text("class_code", input.class_code, LIMITS.class_code),
    };
    return this.students.create(values, async () =>
      (await this.students.emailTaken(values.email))
        ? conflict(`email ${values.email} is already taken by another student`)
        : undefined,
    );
  }

  /** Updates the given fields; with neither field it changes nothing and returns the student. */
  async update(studentId: unknown, input: { student_name?: unknown; class_code?: unknown }): Promise<StudentRecord> {
    const student_id = positiveId("studentId", studentId);
    const set: StudentChanges = {};
    if (input.student_name !== undefined && input.student_name !== null) {
      set.student_name = text("student_name", input.student_name, LIMITS.name);
    }
    if (input.class_code !== undefined && input.class_code !== null) {
      set.class_code = text("class_code", input.class_code, LIMITS.class_code);
    }
    const student = await this.students.update(student_id, set);
    if (!student) throw notFound(`student ${student_id} does not exist`);
    return student;
  }

  async get(studentId: unknown): Promise<StudentRecord | null> {
    return this.students.get(positiveId("studentId", studentId));
  }

  /** A page of students; `total` is counted only when options.total (default true) asks for it. */
  async list(filter: StudentFilter = {}, page?: PageRequest, options: { total?: boolean } = {}): Promise<Page<StudentRecord>> {
    const bounds = pageBounds(page);
    const query: { class_code?: string } = {};
    if (filter.class_code !== undefined && filter.class_code !== null) {
      query.class_code = text("class_code", filter.class_code, LIMITS.class_code);
    }
    const { items, has_more, total } = await this.students.list(query, bounds, { total: options.total ?? true });
    return toPage(items, bounds, has_more, total);
  }
}
