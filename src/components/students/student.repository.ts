// Data access of students: the only module that touches the Student model; returns plain records. Point reads and
// writes go by the string `_id` (db/id-key.ts).
import type { IdAllocator } from "../../db/id-allocator";
import { idKey } from "../../db/id-key";
import type { RecordOf } from "../../db/record-of";
import type { StudentDoc, StudentModel } from "./student.model";

/** A student as the service hands it out (fields declared once, in StudentDoc). */
export type StudentRecord = RecordOf<StudentDoc>;

export type StudentChanges = Partial<Pick<StudentDoc, "student_name" | "class_code">>;

function toStudentRecord(doc: StudentDoc): StudentRecord {
  return {
    student_id: doc.student_id,
    student_name: doc.student_name,
    email: doc.email,
    class_code: doc.class_code,
    created_at: new Date(doc.created_at).toISOString(),
    updated_at: new Date(doc.updated_at).toISOString(),
  };
}

export class StudentRepository {
  constructor(
    private readonly students: StudentModel,
    private readonly ids: IdAllocator,
  ) {}

  /** `explainDuplicate` tells a taken email apart from an id collision (see IdAllocator.insertWithNewId). */
  async create(
    values: { student_name: string; email: string; class_code: string },
    explainDuplicate: () => Promise<Error | undefined>,
  ): Promise<StudentRecord> {
    const doc = await this.ids.insertWithNewId(
      "students",
      this.students,
      (student_id) => this.students.create({ student_id, ...values }),
      explainDuplicate,
    );
    return toStudentRecord(doc.toObject());
  }

  async emailTaken(email: string): Promise<boolean> {
    return (await this.students.exists({ email })) !== null;
  }

  /** Sets the given fields (none: reads); null when no student has that id. */
  async update(student_id: number, set: StudentChanges): Promise<StudentRecord | null> {
    const doc =
      Object.keys(set).length === 0
        ? await this.students.findOne({ _id: idKey(student_id) }).lean()
        : await this.students
            .findOneAndUpdate({ _id: idKey(student_id) }, { $set: set }, { returnDocument: "after" })
            .lean();
    return doc ? toStudentRecord(doc) : null;
  }

  async get(student_id: number): Promise<StudentRecord | null> {
    const doc = await this.students.findOne({ _id: idKey(student_id) }).lean();
    return doc ? toStudentRecord(doc) : null;
  }

  /** Students by student_id; `limit + 1` are read so has_more needs no count. */
  async list(
    query: { class_code?: string },
    bounds: { offset: number; limit: number },
    options: { total: boolean },
  ): Promise<{ items: StudentRecord[]; has_more: boolean; total?: number }> {
    const [docs, total] = await Promise.all([
      this.students
        .find(query)
        .sort({ student_id: 1 })
        .skip(bounds.offset)
        .limit(bounds.limit + 1)
        .lean(),
      options.total ? this.students.countDocuments(query) : undefined,
    ]);
    return { items: docs.slice(0, bounds.limit).map(toStudentRecord), has_more: docs.length > bounds.limit, total };
  }
}
