// Student use cases: create, update, read and list. Returns plain objects, never documents.
import type { IdAllocator } from "../../db/id-allocator";
import { idKey } from "../../db/id-key";
import { conflict, notFound } from "../../shared/errors";
import { pageBounds, toPage, type Page, type PageRequest } from "../../shared/pagination";
import { email, LIMITS, positiveId, text } from "../../shared/validation";
import type { StudentDoc, StudentModel } from "./student.model";

export interface StudentRecord {
  student_id: number;
  student_name: string;
  email: string;
  class_code: string;
  created_at: string;
  updated_at: string;
}

export function toStudentRecord(doc: StudentDoc): StudentRecord {
  return {
    student_id: doc.student_id,
    student_name: doc.student_name,
    email: doc.email,
    class_code: doc.class_code,
    created_at: new Date(doc.created_at).toISOString(),
    updated_at: new Date(doc.updated_at).toISOString(),
  };
}

export interface StudentFilter {
  class_code?: string | null;
}

export class StudentService {
  constructor(
    private readonly students: StudentModel,
    private readonly ids: IdAllocator,
  ) {}

  async create(input: { student_name: unknown; email: unknown; class_code: unknown }): Promise<StudentRecord> {
    const values = {
      student_name: text("student_name", input.student_name, LIMITS.name),
      email: email("email", input.email),
      class_code: text("class_code", input.class_code, LIMITS.class_code),
    };
    const doc = await this.ids.insertWithNewId(
      "students",
      this.students,
      (student_id) => this.students.create({ student_id, ...values }),
      async () =>
        (await this.students.exists({ email: values.email }))
          ? conflict(`email ${values.email} is already taken by another student`)
          : undefined,
    );
    return toStudentRecord(doc.toObject());
  }

  /** Updates the given fields; with neither field it changes nothing and returns the student. */
  async update(studentId: unknown, input: { student_name?: unknown; class_code?: unknown }): Promise<StudentRecord> {
    const student_id = positiveId("studentId", studentId);
    const set: Partial<Pick<StudentDoc, "student_name" | "class_code">> = {};
    if (input.student_name !== undefined && input.student_name !== null) {
      set.student_name = text("student_name", input.student_name, LIMITS.name);
    }
    if (input.class_code !== undefined && input.class_code !== null) {
      set.class_code = text("class_code", input.class_code, LIMITS.class_code);
    }
    const doc =
      Object.keys(set).length === 0
        ? await this.students.findOne({ _id: idKey(student_id) }).lean()
        : await this.students.findOneAndUpdate({ _id: idKey(student_id) }, { $set: set }, { returnDocument: "after" }).lean();
    if (!doc) throw notFound(`student ${student_id} does not exist`);
    return toStudentRecord(doc);
  }

  async get(studentId: unknown): Promise<StudentRecord | null> {
    const student_id = positiveId("studentId", studentId);
    const doc = await this.students.findOne({ _id: idKey(student_id) }).lean();
    return doc ? toStudentRecord(doc) : null;
  }

  async list(filter: StudentFilter = {}, page?: PageRequest): Promise<Page<StudentRecord>> {
    const bounds = pageBounds(page);
    const query: Record<string, unknown> = {};
    if (filter.class_code !== undefined && filter.class_code !== null) {
      query.class_code = text("class_code", filter.class_code, LIMITS.class_code);
    }
    const [docs, total] = await Promise.all([
      this.students.find(query).sort({ student_id: 1 }).skip(bounds.offset).limit(bounds.limit).lean(),
      this.students.countDocuments(query),
    ]);
    return toPage(docs.map(toStudentRecord), total, bounds);
  }
}
