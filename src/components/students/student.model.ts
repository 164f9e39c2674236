// Persistence of students (Mongoose).
import type { Connection, Model } from "mongoose";
import { storedSchema, type DocOf, type StoredFields } from "../../db/stored-fields";

/** Every field a student stores, declared once: StudentDoc, the Mongoose schema and StudentRecord follow from it. */
export const STUDENT_FIELDS = {
  student_id: { type: Number, required: true },
  student_name: { type: String, required: true },
  /** Lower-cased; unique. */
  email: { type: String, required: true },
  class_code: { type: String, required: true },
} as const satisfies StoredFields;

export type StudentDoc = DocOf<typeof STUDENT_FIELDS>;

const studentSchema = storedSchema("students", "student_id", STUDENT_FIELDS);

studentSchema.index({ student_id: 1 }, { unique: true });
studentSchema.index({ email: 1 }, { unique: true });
studentSchema.index({ class_code: 1, student_id: 1 });

export type StudentModel = Model<StudentDoc>;

export function createStudentModel(connection: Connection): StudentModel {
  return connection.model<StudentDoc>("Student", studentSchema);
}
