// Teacher use cases: create, rename, read and list. The rules live here; teacher.repository.ts stores and returns
// plain records.
import { answerRulesOf } from "../../db/answer-rules";
import type { ClientSession } from "mongoose";
import { badRequest, conflict, FieldErrorReason, notFound } from "../../shared/errors";
import { globalIdOf, type DeletedRecord } from "../../shared/global-id";
import { connectionOf, type Connection, type ConnectionRequest } from "../../shared/keyset-pagination";
import {
  listOrder,
  orderedCursorOf,
  orderedWindow,
  sortOf,
  storedOrderOf,
  type OrderInput,
} from "../../shared/list-order";
import { whereFilter, type WhereInput } from "../../shared/list-where";
import { TEACHER_ORDERS, TEACHER_WHERE_FIELDS } from "./teacher.where";
import { pageBounds, toPage, type Page, type PageRequest } from "../../shared/pagination";
import { RecordGuard, type AnswerRules, type ReportUnanswerable } from "../../shared/record-guard";
import { validate } from "../../shared/validation";
import { TEACHER_FIELDS, TEACHER_STORAGE_ONLY, type TeacherStorageOnly } from "./teacher.fields";
import type { TeacherField, TeacherJoinStage, TeacherRecord, TeacherRepository } from "./teacher.repository";
import {
  CreateTeacherSchema,
  TeacherIdArg,
  UpdateTeacherRequest,
  type CreateTeacherValues,
  type UpdateTeacherValues,
} from "./teacher.schemas";

export type { CreateTeacherValues, UpdateTeacherValues } from "./teacher.schemas";

export type { TeacherField, TeacherJoinStage, TeacherRecord } from "./teacher.repository";

/**
 * The fields of a teacher read as another record's relation (a project's teacher: by the loader, or joined to the
 * project's read): its stored fields without the timestamps, which GraphQL's Teacher does not answer
 * (teacher.type.ts; the relation tests compare every field of it with teacher(teacherId)). Only these are read (by
 * the loader, and by the join's $project) and checked, so such a read converts and decodes no dates.
 */
export const TEACHER_RELATION_FIELDS = Object.keys(TEACHER_FIELDS).filter(
  (field) => !(TEACHER_STORAGE_ONLY as readonly string[]).includes(field),
) as Exclude<keyof typeof TEACHER_FIELDS, TeacherStorageOnly>[];

/** A teacher as a relation holds it (TEACHER_RELATION_FIELDS). */
export type RelatedTeacher = Pick<TeacherRecord, (typeof TEACHER_RELATION_FIELDS)[number]>;

/** A teacher read within another collection's read (TeacherService.join). */
export interface TeacherJoin {
  stage(localField: string, as: string): TeacherJoinStage;
  teacher(found: unknown): RelatedTeacher | null;
}

/** What the output type of each returned field needs (see shared/record-guard.ts). */
export const TEACHER_ANSWER_RULES: AnswerRules<TeacherRecord> = answerRulesOf(TEACHER_FIELDS, TEACHER_STORAGE_ONLY);

/**
 * How many records of other components refer to a teacher (projects, archived ones included), read in the deleting
 * transaction's session. Given by the composition root: teachers know no other component.
 */
export type TeacherUses = (teacherId: number, session: ClientSession) => Promise<number>;

export class TeacherService {
  private readonly guard: RecordGuard<TeacherRecord>;

  /**
   * How another component's read takes a teacher in the same command: `stage` is the aggregation stage that puts
   * into a document's field `as` the teacher whose teacher_id is its `localField`; `teacher` gives, from that field,
   * what findByIds gives for the id with TEACHER_RELATION_FIELDS: the relation, or null when there is none or the
   * API cannot answer it.
   */
  readonly join: TeacherJoin;

  constructor(
    private readonly teachers: TeacherRepository,
    report: ReportUnanswerable,
    private readonly uses: TeacherUses = async () => 0,
  ) {
    this.guard = new RecordGuard("teachers", "teacher_id", TEACHER_ANSWER_RULES, report);
    // Whether a teacher read with TEACHER_RELATION_FIELDS can be answered (reported when not).
    const relationAnswerable = this.guard.answerableWith(TEACHER_RELATION_FIELDS);
    this.join = {
      stage: (localField, as) => this.teachers.joinStage(localField, as, TEACHER_RELATION_FIELDS),
      teacher: (found) => {
        const teacher = this.teachers.joined(found, TEACHER_RELATION_FIELDS);
        return teacher && relationAnswerable(teacher) ? teacher : null;
      },
    };
  }

  async create(input: CreateTeacherValues): Promise<TeacherRecord> {
    const { teacher_name } = validate(CreateTeacherSchema, input);
    return this.teachers.create(teacher_name);
  }

  /**
   * Deletes a teacher (admin): CONFLICT, reason IN_USE with the count, while any project has the teacher; the count
   * is read in the deleting transaction, after its delete, so a change committed before it is counted. NOT_FOUND for
   * an unknown teacher.
   */
  async delete(teacherId: number): Promise<DeletedRecord> {
    const { teacherId: teacher_id } = validate(TeacherIdArg, { teacherId });
    const deleted = await this.teachers.delete(teacher_id, async (session) => {
      const projects = await this.uses(teacher_id, session);
      if (projects > 0) {
        throw conflict(
          `teacher ${teacher_id} is the teacher of ${projects} project${projects === 1 ? "" : "s"} (archived ones included): assign them another teacher first`,
          "teacherId",
          FieldErrorReason.IN_USE,
        );
      }
    });
    if (!deleted) throw notFound(`teacher ${teacher_id} does not exist`, "teacherId");
    return { id: globalIdOf("Teacher", teacher_id) };
  }

  /** Renames a teacher. An unknown teacher is BAD_REQUEST: the original interface lists no not-found here. */
  async update(teacherId: number, input: UpdateTeacherValues): Promise<TeacherRecord> {
    const { teacherId: teacher_id, teacher_name } = validate(UpdateTeacherRequest, { teacherId, ...input });
    const teacher = await this.teachers.rename(teacher_id, teacher_name);
    if (!teacher) {
      // BAD_REQUEST by the interface; the reason still says what is wrong.
      throw badRequest(
        `teacherId ${teacher_id} does not name an existing teacher`,
        "teacherId",
        FieldErrorReason.NOT_FOUND,
      );
    }
    return this.guard.one(teacher);
  }

  async get(teacherId: number): Promise<TeacherRecord | null> {
    const { teacherId: teacher_id } = validate(TeacherIdArg, { teacherId });
    return this.guard.oneOrNull(await this.teachers.get(teacher_id));
  }

  /**
   * In `session`'s transaction: the teacher exists and stays until it commits (a write of the teacher's updated_at,
   * which the API does not answer: deleteTeacher's delete of the same document then conflicts with it). NOT_FOUND
   * naming new_teacher_id when there is none.
   */
  async holdFor(teacherId: number, session: ClientSession): Promise<void> {
    if (!(await this.teachers.touch(teacherId, session))) {
      throw notFound(`teacher ${teacherId} (new_teacher_id) does not exist`, "new_teacher_id");
    }
  }

  async exists(teacherId: number): Promise<boolean> {
    return this.teachers.exists(teacherId);
  }

  /**
   * Batch read for loaders: results in key order, null for missing ids. With options.fields, only those fields are
   * read and checked, and each record holds just them.
   */
  async findByIds(
    ids: readonly number[],
    options: { fields?: readonly TeacherField[] } = {},
  ): Promise<(TeacherRecord | null)[]> {
    const { fields } = options;
    const answerable = this.guard.answerableWith(fields);
    // A teacher the API cannot answer reads as absent (reported): the project pointing at it still answers.
    return (await this.teachers.findByIds(ids, fields)).map((t) => (t && answerable(t) ? t : null));
  }

  /**
   * A page of teachers matching options.where, in options.orderBy's order (default teacher_id); `total` is counted
   * only when options.total (default true) asks for it.
   */
  async list(page?: PageRequest, options: ListOptions & { total?: boolean } = {}): Promise<Page<TeacherRecord>> {
    const bounds = pageBounds(page);
    const query = whereFilter(TEACHER_WHERE_FIELDS, options.where);
    const sort = sortOf(TEACHER_ORDERS, listOrder(TEACHER_ORDERS, options.orderBy));
    const { items, has_more, total } = await this.teachers.list(query, bounds, { total: options.total ?? true, sort });
    return toPage(this.guard.keep(items), bounds, has_more, total);
  }

  /**
   * A page of teachers by cursor (first/after forward, last/before backward), ordered by teacher_id: a keyset page
   * (shared/keyset-pagination.ts). totalCount is counted only when options.total asks for it.
   */
  async pageByKeyset(
    request: ConnectionRequest = {},
    options: ListOptions & { total?: boolean } = {},
  ): Promise<Connection<TeacherRecord>> {
    const query = whereFilter(TEACHER_WHERE_FIELDS, options.where);
    const order = listOrder(TEACHER_ORDERS, options.orderBy);
    const window = orderedWindow(TEACHER_ORDERS, order, request);
    const stored = storedOrderOf(TEACHER_ORDERS, order);
    const { items, more, total } = await this.teachers.pageByKeyset(query, window, stored, {
      total: options.total ?? false,
    });
    const cursor = (teacher: TeacherRecord) => orderedCursorOf(TEACHER_ORDERS, order, teacher);
    return connectionOf(cursor, window, { items: this.guard.keep(items), more }, total);
  }
}

/** What a list of teachers takes beside its page: the where and the order. */
export interface ListOptions {
  where?: WhereInput | null;
  orderBy?: OrderInput | null;
}
