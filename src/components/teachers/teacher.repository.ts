// Data access of teachers: the only module that touches the Teacher model; returns plain records. Point reads and
// writes go by the string `_id` (db/id-key.ts).
import type { IdAllocator } from "../../db/id-allocator";
import type { ClientSession } from "mongoose";
import type { Transactions } from "../../db/transactions";
import { idKey } from "../../db/id-key";
import type { QueryFilter } from "mongoose";
import { readOrderedPage, type StoredOrder } from "../../db/keyset";
import type { LookupStage } from "../../db/page-read";
import { recordMapper, selectedRecordMapper, type RecordOf } from "../../db/record-of";
import type { KeysetRead } from "../../shared/keyset-pagination";
import type { OrderedWindow } from "../../shared/list-order";
import type { StoredFilter } from "../../shared/list-where";
import { foldedName } from "../../shared/validation";
import { TEACHER_STORAGE_ONLY, type TeacherStorageOnly } from "./teacher.fields";
import { TEACHER_FIELDS, type TeacherDoc, type TeacherModel } from "./teacher.model";

/** A teacher as the service hands it out (fields declared once, in TEACHER_FIELDS of teacher.fields.ts). */
export type TeacherRecord = RecordOf<TeacherDoc, TeacherStorageOnly>;

/** A $lookup stage of a teacher (TeacherRepository.joinStage); in MongoDB's words, so no Mongoose type is needed. */
export type TeacherJoinStage = LookupStage;

/** A teacher's record field. */
export type TeacherField = keyof TeacherRecord;

const toTeacherRecord = recordMapper(TEACHER_FIELDS, TEACHER_STORAGE_ONLY);
const toSelectedTeacherRecord = selectedRecordMapper(TEACHER_FIELDS, TEACHER_STORAGE_ONLY);

export class TeacherRepository {
  constructor(
    private readonly teachers: TeacherModel,
    private readonly ids: IdAllocator,
    /** Writes take their turn with the transactions of the process (db/write-turns.ts). */
    private readonly writes: Transactions,
  ) {}

  /**
   * Deletes the teacher in one transaction with `refuse`, which is given the transaction's session after the delete
   * (so the gate is taken first on the embedded database) and may throw to keep the teacher (the transaction is then
   * aborted). False when no teacher has that id.
   */
  async delete(teacher_id: number, refuse: (session: ClientSession) => Promise<void>): Promise<boolean> {
    return this.writes.run(async (session) => {
      const gone = await this.teachers
        .findOneAndDelete({ _id: idKey(teacher_id) }, { session })
        .select({ _id: 1 })
        .lean();
      if (gone) await refuse(session);
      return !!gone;
    });
  }

  async create(teacher_name: string): Promise<TeacherRecord> {
    const doc = await this.writes.write(() =>
      this.ids.insertWithNewId("teachers", "teacher_id", (teacher_id) =>
        this.teachers.create({ teacher_id, teacher_name, name_folded: foldedName(teacher_name) }),
      ),
    );
    return toTeacherRecord(doc.toObject());
  }

  /** Renames; null when no teacher has that id. A single-field $set by `_id`: no read-decide-write to race. */
  async rename(teacher_id: number, teacher_name: string): Promise<TeacherRecord | null> {
    const doc = await this.writes.write(() =>
      this.teachers
        .findOneAndUpdate(
          { _id: idKey(teacher_id) },
          { $set: { teacher_name, name_folded: foldedName(teacher_name) } },
          { returnDocument: "after" },
        )
        .lean(),
    );
    return doc ? toTeacherRecord(doc) : null;
  }

  /**
   * The aggregation stage that puts into each document's field `as` the teachers whose teacher_id equals its
   * `localField` ($lookup's equality match, on the unique teacher_id index): another collection's read that needs
   * its teacher reads it in the same command, as on MongoDB (the embedded FerretDB's patch adds $lookup). With
   * `fields`, each teacher holds only those (a $project in the stage's pipeline, MongoDB 5.0's concise form).
   */
  joinStage(localField: string, as: string, fields?: readonly TeacherField[]): TeacherJoinStage {
    const from = this.teachers.collection.collectionName;
    const $lookup: TeacherJoinStage["$lookup"] = { from, localField, foreignField: "teacher_id", as };
    if (fields) $lookup.pipeline = [{ $project: { _id: 0, ...projectionOf(fields) } }];
    return { $lookup };
  }

  /**
   * The teacher a joinStage put into a document (its `as` value), mapped as get() maps it (to just `fields`, when
   * given); null for none.
   */
  joined(found: unknown, fields?: readonly TeacherField[]): TeacherRecord | null {
    const docs = found as TeacherDoc[] | undefined;
    if (!docs || docs.length === 0) return null;
    return (fields ? toSelectedTeacherRecord(fields) : toTeacherRecord)(docs[0]);
  }

  /** A teacher by id; with `fields`, only those are read, and the record holds just those. */
  async get(teacher_id: number, fields?: readonly TeacherField[]): Promise<TeacherRecord | null> {
    const find = this.teachers.findOne({ _id: idKey(teacher_id) });
    if (fields) find.select(projectionOf(fields));
    const doc = await find.lean();
    return doc ? (fields ? toSelectedTeacherRecord(fields) : toTeacherRecord)(doc) : null;
  }

  /** Writes the teacher's updated_at in `session`'s transaction; false when no teacher has that id. */
  async touch(teacher_id: number, session: ClientSession): Promise<boolean> {
    const doc = await this.teachers
      .findOneAndUpdate(
        { _id: idKey(teacher_id) },
        { $set: { updated_at: new Date() } },
        { session, timestamps: false },
      )
      .select({ _id: 1 })
      .lean();
    return doc !== null;
  }

  async exists(teacher_id: number): Promise<boolean> {
    return (await this.teachers.exists({ _id: idKey(teacher_id) })) !== null;
  }

  /**
   * Results in key order, null for missing ids; one id is read like get() (by `_id`, one document, one batch). With
   * `fields`, only those are read, and each record holds just those.
   */
  async findByIds(ids: readonly number[], fields?: readonly TeacherField[]): Promise<(TeacherRecord | null)[]> {
    if (ids.length === 1) return [await this.get(ids[0], fields)];
    const find = this.teachers.find({ teacher_id: { $in: [...ids] } });
    if (fields) find.select(projectionOf(fields));
    const docs = await find.lean();
    const toRecord = fields ? toSelectedTeacherRecord(fields) : toTeacherRecord;
    const byId = new Map(docs.map((d) => [d.teacher_id, toRecord(d)]));
    return ids.map((id) => byId.get(id) ?? null);
  }

  /** Teachers matching the query, in `sort`'s order; `limit + 1` are read so has_more needs no count. */
  async list(
    query: StoredFilter,
    bounds: { offset: number; limit: number },
    options: { total: boolean; sort: Record<string, 1 | -1> },
  ): Promise<{ items: TeacherRecord[]; has_more: boolean; total?: number }> {
    const [docs, total] = await Promise.all([
      this.teachers
        .find(query as QueryFilter<TeacherDoc>)
        .sort(options.sort)
        .skip(bounds.offset)
        .limit(bounds.limit + 1)
        .lean(),
      options.total ? this.teachers.countDocuments(query as QueryFilter<TeacherDoc>) : undefined,
    ]);
    return { items: docs.slice(0, bounds.limit).map(toTeacherRecord), has_more: docs.length > bounds.limit, total };
  }

  /** A keyset page of the teachers matching the query in an order (db/keyset.ts); counted only when options.total. */
  async pageByKeyset(
    query: StoredFilter,
    window: OrderedWindow,
    order: StoredOrder,
    options: { total: boolean },
  ): Promise<KeysetRead<TeacherRecord> & { total?: number }> {
    const [read, total] = await Promise.all([
      readOrderedPage(this.teachers, query, order, window),
      options.total ? this.teachers.countDocuments(query as QueryFilter<TeacherDoc>) : undefined,
    ]);
    return { items: read.items.map(toTeacherRecord), more: read.more, total };
  }
}

/** The projection of these fields (teacher_id always: results are matched to ids by it). */
function projectionOf(fields: readonly TeacherField[]): Record<string, 1> {
  return Object.fromEntries([...new Set<string>(["teacher_id", ...fields])].map((field) => [field, 1]));
}
