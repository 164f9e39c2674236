// Persistence of students (Mongoose).
import type { Connection, Model } from "mongoose";
import type { DerivedField } from "../../db/derived-fields";
import { storedSchema } from "../../db/stored-fields";
import { foldedName } from "../../shared/validation";
import { STUDENT_FIELDS, type StudentDoc } from "./student.fields";

export { STUDENT_FIELDS, type StudentDoc } from "./student.fields";

const studentSchema = storedSchema("students", "student_id", STUDENT_FIELDS);
// Documents stored through the model without it get name_folded from student_name; the repository sets it itself.
studentSchema.path("name_folded").default(function (this: { student_name?: unknown }) {
  return typeof this.student_name === "string" ? foldedName(this.student_name) : undefined;
});

studentSchema.index({ student_id: 1 }, { unique: true });
// Lists ordered by name (StudentOrder STUDENT_NAME) and a name's prefix (where: student_name.startsWith).
studentSchema.index({ name_folded: 1, student_id: 1 });
studentSchema.index({ email: 1 }, { unique: true });
studentSchema.index({ class_code: 1, student_id: 1 });

export type StudentModel = Model<StudentDoc>;

/** name_folded, derived from student_name: brought up once in students stored before it (db/derived-fields.ts). */
export const FOLDED_STUDENT_NAME: DerivedField = {
  marker: "name_folded-v1",
  idField: "student_id",
  from: "student_name",
  to: "name_folded",
  derive: foldedName,
};

export function createStudentModel(connection: Connection): StudentModel {
  return connection.model<StudentDoc>("Student", studentSchema);
}
