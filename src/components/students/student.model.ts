// Persistence of students (Mongoose).
import type { Connection, Model } from "mongoose";
import { storedSchema } from "../../db/stored-fields";
import { STUDENT_FIELDS, type StudentDoc } from "./student.fields";

export { STUDENT_FIELDS, type StudentDoc } from "./student.fields";

const studentSchema = storedSchema("students", "student_id", STUDENT_FIELDS);

studentSchema.index({ student_id: 1 }, { unique: true });
studentSchema.index({ email: 1 }, { unique: true });
studentSchema.index({ class_code: 1, student_id: 1 });

export type StudentModel = Model<StudentDoc>;

export function createStudentModel(connection: Connection): StudentModel {
  return connection.model<StudentDoc>("Student", studentSchema);
}
