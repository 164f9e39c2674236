// Persistence of teachers (Mongoose).
import type { Connection, Model } from "mongoose";
import { storedSchema, type DocOf, type StoredFields } from "../../db/stored-fields";

/** Every field a teacher stores, declared once: TeacherDoc, the Mongoose schema and TeacherRecord follow from it. */
export const TEACHER_FIELDS = {
  teacher_id: { type: Number, required: true },
  teacher_name: { type: String, required: true },
} as const satisfies StoredFields;

export type TeacherDoc = DocOf<typeof TEACHER_FIELDS>;

const teacherSchema = storedSchema("teachers", "teacher_id", TEACHER_FIELDS);

teacherSchema.index({ teacher_id: 1 }, { unique: true });

export type TeacherModel = Model<TeacherDoc>;

export function createTeacherModel(connection: Connection): TeacherModel {
  return connection.model<TeacherDoc>("Teacher", teacherSchema);
}
