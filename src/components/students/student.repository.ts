// Data access of students: the only module that touches the Student model; returns plain records. Point reads and
// writes go by the string `_id` (db/id-key.ts).
import type { IdAllocator } from "../../db/id-allocator";
import type { Transactions } from "../../db/transactions";
import { idKey } from "../../db/id-key";
import type { QueryFilter } from "mongoose";
import { readOrderedPage, type StoredOrder } from "../../db/keyset";
import { recordMapper, type RecordOf } from "../../db/record-of";
import { foldedName } from "../../shared/validation";
import { STUDENT_STORAGE_ONLY, type StudentStorageOnly } from "./student.fields";
import type { KeysetRead } from "../../shared/keyset-pagination";
import type { OrderedWindow } from "../../shared/list-order";
import type { StoredFilter } from "../../shared/list-where";
import { STUDENT_FIELDS, type StudentDoc, type StudentModel } from "./student.model";

/** A student as the service hands it out (fields declared once, in STUDENT_FIELDS of student.fields.ts). */
export type StudentRecord = RecordOf<StudentDoc, StudentStorageOnly>;

export type StudentChanges = Partial<Pick<StudentDoc, "student_name" | "class_code">>;

const toStudentRecord = recordMapper(STUDENT_FIELDS, STUDENT_STORAGE_ONLY);

export class StudentRepository {
  constructor(
    private readonly students: StudentModel,
    private readonly ids: IdAllocator,
    /** Writes take their turn with the transactions of the process (db/write-turns.ts). */
    private readonly writes: Pick<Transactions, "write">,
  ) {}

  /**
   * `explainDuplicate` gets the fields of a unique index other than the id's that refused the insert (the email's),
   * and returns the error to throw (see IdAllocator.insertWithNewId).
   */
  async create(
    values: { student_name: string; email: string; class_code: string },
    explainDuplicate: (fields: string[]) => Error | undefined,
  ): Promise<StudentRecord> {
    const doc = await this.writes.write(() =>
      this.ids.insertWithNewId(
        "students",
        "student_id",
        (student_id) => this.students.create({ student_id, ...values, name_folded: foldedName(values.student_name) }),
        explainDuplicate,
      ),
    );
    return toStudentRecord(doc.toObject());
  }

  /** Sets the given fields (none: reads); null when no student has that id. */
  async update(student_id: number, set: StudentChanges): Promise<StudentRecord | null> {
    const doc =
      Object.keys(set).length === 0
        ? await this.students.findOne({ _id: idKey(student_id) }).lean()
        : await this.writes.write(() =>
            this.students
              .findOneAndUpdate(
                { _id: idKey(student_id) },
                { $set: set.student_name === undefined ? set : { ...set, name_folded: foldedName(set.student_name) } },
                { returnDocument: "after" },
              )
              .lean(),
          );
    return doc ? toStudentRecord(doc) : null;
  }

  /**
   * Deletes the student, then compacts the collection (MongoDB's compact; on the embedded FerretDB it also leaves
   * nothing deleted in SQLite's files: docs/database.md, "Erasure"); false when no student has that id.
   */
  async erase(student_id: number): Promise<boolean> {
    return this.writes.write(async () => {
      const gone = await this.students
        .findOneAndDelete({ _id: idKey(student_id) })
        .select({ _id: 1 })
        .lean();
      if (!gone) return false;
      await this.students.db.db!.command({ compact: this.students.collection.collectionName });
      return true;
    });
  }

  async get(student_id: number): Promise<StudentRecord | null> {
    const doc = await this.students.findOne({ _id: idKey(student_id) }).lean();
    return doc ? toStudentRecord(doc) : null;
  }

  /** Students by student_id; `limit + 1` are read so has_more needs no count. */
  async list(
    query: StoredFilter,
    bounds: { offset: number; limit: number },
    options: { total: boolean; sort: Record<string, 1 | -1> },
  ): Promise<{ items: StudentRecord[]; has_more: boolean; total?: number }> {
    const [docs, total] = await Promise.all([
      this.students
        .find(query as QueryFilter<StudentDoc>)
        .sort(options.sort)
        .skip(bounds.offset)
        .limit(bounds.limit + 1)
        .lean(),
      options.total ? this.students.countDocuments(query as QueryFilter<StudentDoc>) : undefined,
    ]);
    return { items: docs.slice(0, bounds.limit).map(toStudentRecord), has_more: docs.length > bounds.limit, total };
  }

  /** Results in key order, null for missing ids. */
  async findByIds(ids: readonly number[]): Promise<(StudentRecord | null)[]> {
    // One id is a primary-key read on FerretDB; several need one $in query.
    const docs =
      ids.length === 1
        ? await this.students.find({ _id: idKey(ids[0]) }).lean()
        : await this.students.find({ student_id: { $in: [...ids] } }).lean();
    const byId = new Map(docs.map((d) => [d.student_id, toStudentRecord(d)]));
    return ids.map((id) => byId.get(id) ?? null);
  }

  /** A keyset page of the students matching the query in an order (db/keyset.ts); counted when options.total. */
  async pageByKeyset(
    query: StoredFilter,
    window: OrderedWindow,
    order: StoredOrder,
    options: { total: boolean },
  ): Promise<KeysetRead<StudentRecord> & { total?: number }> {
    const [read, total] = await Promise.all([
      readOrderedPage(this.students, query, order, window),
      options.total ? this.students.countDocuments(query as QueryFilter<StudentDoc>) : undefined,
    ]);
    return { items: read.items.map(toStudentRecord), more: read.more, total };
  }
}
