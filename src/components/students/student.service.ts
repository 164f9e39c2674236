// Student use cases: create, update, read and list. Returns plain objects, never documents.
import type { IdAllocator } from "../../db/id-allocator";
import { idKey } from "../../db/id-key";
import { conflict, notFound } from "../../shared/errors";
import { pageBounds, toPage, type Page, type PageRequest } from "../../shared/pagination";
import { validate } from "../../shared/validation";
import type { StudentDoc, StudentModel } from "./student.model";
import {
  CreateStudentSchema,
  StudentFilterSchema,
  StudentIdArg,
  UpdateStudentRequest,
  type CreateStudentValues,
  type StudentFilter,
  type UpdateStudentValues,
} from "./student.schemas";

export type { CreateStudentValues, StudentFilter, UpdateStudentValues } from "./student.schemas";

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

export class StudentService {
  constructor(
    private readonly students: StudentModel,
    private readonly ids: IdAllocator,
  ) {}

  async create(input: CreateStudentValues): Promise<StudentRecord> {
    const values = validate(CreateStudentSchema, input);
    const doc = await this.ids.insertWithNewId(
      "students",
      this.students,
      (student_id) => this.students.create({ student_id, ...values }),
      async () =>
        (await this.students.exists({ email: values.email }))
          ? conflict(`email ${values.email} is already taken by another student`, "email")
          : undefined,
    );
    return toStudentRecord(doc.toObject());
  }

  /** Updates the given fields; with neither field it changes nothing and returns the student. */
  async update(studentId: number, input: UpdateStudentValues): Promise<StudentRecord> {
    const { studentId: student_id, ...fields } = validate(UpdateStudentRequest, { studentId, ...input });
    const set: Partial<Pick<StudentDoc, "student_name" | "class_code">> = {};
    if (fields.student_name != null) set.student_name = fields.student_name;
    if (fields.class_code != null) set.class_code = fields.class_code;
    const doc =
      Object.keys(set).length === 0
        ? await this.students.findOne({ _id: idKey(student_id) }).lean()
        : await this.students.findOneAndUpdate({ _id: idKey(student_id) }, { $set: set }, { returnDocument: "after" }).lean();
    if (!doc) throw notFound(`student ${student_id} does not exist`, "studentId");
    return toStudentRecord(doc);
  }

  async get(studentId: number): Promise<StudentRecord | null> {
    const { studentId: student_id } = validate(StudentIdArg, { studentId });
    const doc = await this.students.findOne({ _id: idKey(student_id) }).lean();
    return doc ? toStudentRecord(doc) : null;
  }

  async list(filter: StudentFilter = {}, page?: PageRequest): Promise<Page<StudentRecord>> {
    const bounds = pageBounds(page);
    const { class_code } = validate(StudentFilterSchema, filter);
    const query: Record<string, unknown> = {};
    if (class_code != null) query.class_code = class_code;
    const [docs, total] = await Promise.all([
      this.students.find(query).sort({ student_id: 1 }).skip(bounds.offset).limit(bounds.limit).lean(),
      this.students.countDocuments(query),
    ]);
    return toPage(docs.map(toStudentRecord), total, bounds);
  }
}
