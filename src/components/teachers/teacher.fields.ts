// The fields a teacher stores, declared once and free of Mongoose, so the domain may read them too: TeacherDoc, the
// Mongoose schema (teacher.model.ts), TeacherRecord and the rules a record must meet to be answered follow from them.
import type { DocOf, StoredFields } from "../../db/stored-fields";

/** Every field a teacher stores, declared once: TeacherDoc, the Mongoose schema and TeacherRecord follow from it. */
export const TEACHER_FIELDS = {
  teacher_id: { type: Number, required: true },
  teacher_name: { type: String, required: true },
} as const satisfies StoredFields;

export type TeacherDoc = DocOf<typeof TEACHER_FIELDS>;
