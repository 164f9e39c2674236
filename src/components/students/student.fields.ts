// The fields a student stores, declared once and free of Mongoose, so the domain may read them too: StudentDoc, the
// Mongoose schema (student.model.ts), StudentRecord and the rules a record must meet to be answered follow from them.
import type { DocOf, StoredFields } from "../../db/stored-fields";

/** Every field a student stores, declared once: StudentDoc, the Mongoose schema and StudentRecord follow from it. */
export const STUDENT_FIELDS = {
  student_id: { type: Number, required: true },
  student_name: { type: String, required: true },
  /** Lower-cased; unique. */
  email: { type: String, required: true },
  class_code: { type: String, required: true },
  /** student_name folded as lists compare names (foldedName: no accents, lower case, trimmed); indexed. */
  name_folded: { type: String, required: true },
} as const satisfies StoredFields;

/** Stored for the service's own use, never answered: the folded name of lists. */
export const STUDENT_STORAGE_ONLY = ["name_folded"] as const;
export type StudentStorageOnly = (typeof STUDENT_STORAGE_ONLY)[number];

export type StudentDoc = DocOf<typeof STUDENT_FIELDS>;
