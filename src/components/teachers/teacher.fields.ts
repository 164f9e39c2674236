// The fields a teacher stores, declared once and free of Mongoose, so the domain may read them too: TeacherDoc, the
// Mongoose schema (teacher.model.ts), TeacherRecord and the rules a record must meet to be answered follow from them.
import type { DocOf, StoredFields } from "../../db/stored-fields";

/** Every field a teacher stores, declared once: TeacherDoc, the Mongoose schema and TeacherRecord follow from it. */
export const TEACHER_FIELDS = {
  teacher_id: { type: Number, required: true },
  teacher_name: { type: String, required: true },
  /** teacher_name folded as lists compare names (foldedName: no accents, lower case, trimmed); indexed. */
  name_folded: { type: String, required: true },
} as const satisfies StoredFields;

/** Stored for the service's own use, never answered: the folded name of lists. */
export const TEACHER_STORAGE_ONLY = ["name_folded"] as const;
export type TeacherStorageOnly = (typeof TEACHER_STORAGE_ONLY)[number];

export type TeacherDoc = DocOf<typeof TEACHER_FIELDS>;
