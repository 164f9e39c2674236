// Teacher use cases: create, rename, read and list. Returns plain objects, never documents.
import type { IdAllocator } from "../../db/id-allocator";
import { idKey } from "../../db/id-key";
import { badRequest } from "../../shared/errors";
import { pageBounds, toPage, type Page, type PageRequest } from "../../shared/pagination";
import { validate } from "../../shared/validation";
import type { TeacherDoc, TeacherModel } from "./teacher.model";
import {
  CreateTeacherSchema,
  TeacherIdArg,
  UpdateTeacherRequest,
  type CreateTeacherValues,
  type UpdateTeacherValues,
} from "./teacher.schemas";

export type { CreateTeacherValues, UpdateTeacherValues } from "./teacher.schemas";

export interface TeacherRecord {
  teacher_id: number;
  teacher_name: string;
  created_at: string;
  updated_at: string;
}

export function toTeacherRecord(doc: TeacherDoc): TeacherRecord {
  return {
    teacher_id: doc.teacher_id,
    teacher_name: doc.teacher_name,
    created_at: new Date(doc.created_at).toISOString(),
    updated_at: new Date(doc.updated_at).toISOString(),
  };
}

export class TeacherService {
  constructor(
    private readonly teachers: TeacherModel,
    private readonly ids: IdAllocator,
  ) {}

  async create(input: CreateTeacherValues): Promise<TeacherRecord> {
    const { teacher_name } = validate(CreateTeacherSchema, input);
    const doc = await this.ids.insertWithNewId("teachers", this.teachers, (teacher_id) =>
      this.teachers.create({ teacher_id, teacher_name }),
    );
    return toTeacherRecord(doc.toObject());
  }

  /** Renames a teacher. An unknown teacher is BAD_REQUEST: the original interface lists no not-found here. */
  async update(teacherId: number, input: UpdateTeacherValues): Promise<TeacherRecord> {
    const { teacherId: teacher_id, teacher_name } = validate(UpdateTeacherRequest, {
      teacherId,
      ...input,
    });
    const doc = await this.teachers
      .findOneAndUpdate({ _id: idKey(teacher_id) }, { $set: { teacher_name } }, { returnDocument: "after" })
      .lean();
    if (!doc) throw badRequest(`teacherId ${teacher_id} does not name an existing teacher`, "teacherId");
    return toTeacherRecord(doc);
  }

  async get(teacherId: number): Promise<TeacherRecord | null> {
    const { teacherId: teacher_id } = validate(TeacherIdArg, { teacherId });
    const doc = await this.teachers.findOne({ _id: idKey(teacher_id) }).lean();
    return doc ? toTeacherRecord(doc) : null;
  }

  async exists(teacherId: number): Promise<boolean> {
    return (await this.teachers.exists({ _id: idKey(teacherId) })) !== null;
  }

  /** Batch read for loaders: results in key order, null for missing ids. */
  async findByIds(ids: readonly number[]): Promise<(TeacherRecord | null)[]> {
    // One id (a single project's teacher) is a primary-key read on FerretDB; several need one $in query.
    const docs =
      ids.length === 1
        ? await this.teachers.find({ _id: idKey(ids[0]) }).lean()
        : await this.teachers.find({ teacher_id: { $in: [...ids] } }).lean();
    const byId = new Map(docs.map((d) => [d.teacher_id, toTeacherRecord(d)]));
    return ids.map((id) => byId.get(id) ?? null);
  }

  async list(page?: PageRequest): Promise<Page<TeacherRecord>> {
    const bounds = pageBounds(page);
    const [docs, total] = await Promise.all([
      this.teachers.find().sort({ teacher_id: 1 }).skip(bounds.offset).limit(bounds.limit).lean(),
      this.teachers.countDocuments(),
    ]);
    return toPage(docs.map(toTeacherRecord), total, bounds);
  }
}
