// Student use cases: create, update, read and list. The rules live here; student.repository.ts stores and returns
// plain records.
import { answerRulesOf } from "../../db/answer-rules";
import { conflict, FieldErrorReason, notFound } from "../../shared/errors";
import { connectionOf, type Connection, type ConnectionRequest } from "../../shared/keyset-pagination";
import {
  listOrder,
  orderedCursorOf,
  orderedWindow,
  sortOf,
  storedOrderOf,
  type OrderInput,
} from "../../shared/list-order";
import { allOf, whereFilter, type WhereInput } from "../../shared/list-where";
import { STUDENT_ORDERS, STUDENT_WHERE_FIELDS } from "./student.where";
import { pageBounds, toPage, type Page, type PageRequest } from "../../shared/pagination";
import { RecordGuard, type AnswerRules, type ReportUnanswerable } from "../../shared/record-guard";
import { globalIdOf, type DeletedRecord } from "../../shared/global-id";
import { validate } from "../../shared/validation";
import { STUDENT_FIELDS, STUDENT_STORAGE_ONLY } from "./student.fields";
import type { StudentChanges, StudentRecord, StudentRepository } from "./student.repository";
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
export type { StudentRecord } from "./student.repository";

/** What the output type of each returned field needs (see shared/record-guard.ts). */
export const STUDENT_ANSWER_RULES: AnswerRules<StudentRecord> = answerRulesOf(STUDENT_FIELDS, STUDENT_STORAGE_ONLY, {
  student_id: "safeint",
});

export class StudentService {
  private readonly guard: RecordGuard<StudentRecord>;

  constructor(
    private readonly students: StudentRepository,
    report: ReportUnanswerable,
  ) {
    this.guard = new RecordGuard("students", "student_id", STUDENT_ANSWER_RULES, report);
  }

  async create(input: CreateStudentValues): Promise<StudentRecord> {
    const values = validate(CreateStudentSchema, input);
    // The unique index that refused it names its field: the email's, or none the service knows.
    return this.students.create(values, (fields) =>
      fields.includes("email")
        ? conflict(`email ${values.email} is already taken by another student`, "email", FieldErrorReason.TAKEN)
        : undefined,
    );
  }

  /** Updates the given fields; with neither field it changes nothing and returns the student. */
  async update(studentId: number, input: UpdateStudentValues): Promise<StudentRecord> {
    const { studentId: student_id, ...fields } = validate(UpdateStudentRequest, { studentId, ...input });
    const set: StudentChanges = {};
    if (fields.student_name != null) set.student_name = fields.student_name;
    if (fields.class_code != null) set.class_code = fields.class_code;
    const student = await this.students.update(student_id, set);
    if (!student) throw notFound(`student ${student_id} does not exist`, "studentId");
    return this.guard.one(student);
  }

  /**
   * Erases a student (a person's right to erasure): the record is deleted and the collection compacted, so that no
   * copy of the name or email stays in the database's files (docs/operations.md says what backups and MongoDB keep).
   * Ids come from a counter that never goes back: the id is never given again. NOT_FOUND when none has that id.
   */
  async erase(studentId: number): Promise<DeletedRecord> {
    const { studentId: student_id } = validate(StudentIdArg, { studentId });
    if (!(await this.students.erase(student_id))) throw notFound(`student ${student_id} does not exist`, "studentId");
    return { id: globalIdOf("Student", student_id) };
  }

  async get(studentId: number): Promise<StudentRecord | null> {
    const { studentId: student_id } = validate(StudentIdArg, { studentId });
    return this.guard.oneOrNull(await this.students.get(student_id));
  }

  /** A page of students; `total` is counted only when options.total (default true) asks for it. */
  async list(
    filter: StudentFilter = {},
    page?: PageRequest,
    options: ListOptions & { total?: boolean } = {},
  ): Promise<Page<StudentRecord>> {
    const bounds = pageBounds(page);
    const query = allOf(queryOf(filter), whereFilter(STUDENT_WHERE_FIELDS, options.where));
    const sort = sortOf(STUDENT_ORDERS, listOrder(STUDENT_ORDERS, options.orderBy));
    const { items, has_more, total } = await this.students.list(query, bounds, { total: options.total ?? true, sort });
    return toPage(this.guard.keep(items), bounds, has_more, total);
  }

  /**
   * A page of the students matching the filter by cursor (first/after forward, last/before backward), ordered by
   * student_id: a keyset page (shared/keyset-pagination.ts). totalCount is counted only when options.total asks.
   */
  async pageByKeyset(
    filter: StudentFilter = {},
    request: ConnectionRequest = {},
    options: ListOptions & { total?: boolean } = {},
  ): Promise<Connection<StudentRecord>> {
    const query = allOf(queryOf(filter), whereFilter(STUDENT_WHERE_FIELDS, options.where));
    const order = listOrder(STUDENT_ORDERS, options.orderBy);
    const window = orderedWindow(STUDENT_ORDERS, order, request);
    const stored = storedOrderOf(STUDENT_ORDERS, order);
    const { items, more, total } = await this.students.pageByKeyset(query, window, stored, {
      total: options.total ?? false,
    });
    const cursor = (student: StudentRecord) => orderedCursorOf(STUDENT_ORDERS, order, student);
    return connectionOf(cursor, window, { items: this.guard.keep(items), more }, total);
  }

  /** Batch read for loaders (Query.node, Query.nodes): results in key order, null for missing ids. */
  async findByIds(ids: readonly number[]): Promise<(StudentRecord | null)[]> {
    // A student the API cannot answer reads as absent (reported), as in lists.
    return (await this.students.findByIds(ids)).map((s) => (s && this.guard.answerable(s) ? s : null));
  }
}

/** What a list of students takes beside its filter and page: the where and the order. */
export interface ListOptions {
  where?: WhereInput | null;
  orderBy?: OrderInput | null;
}

/** The stored fields a list's filter narrows on (checked: BAD_REQUEST naming each invalid field). */
function queryOf(filter: StudentFilter): { class_code?: string } {
  const { class_code } = validate(StudentFilterSchema, filter);
  return class_code != null ? { class_code } : {};
}
