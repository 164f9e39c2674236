// Persistence of teachers (Mongoose).
import type { Connection, Model } from "mongoose";
import type { DerivedField } from "../../db/derived-fields";
import { storedSchema } from "../../db/stored-fields";
import { foldedName } from "../../shared/validation";
import { TEACHER_FIELDS, type TeacherDoc } from "./teacher.fields";

export { TEACHER_FIELDS, type TeacherDoc } from "./teacher.fields";

const teacherSchema = storedSchema("teachers", "teacher_id", TEACHER_FIELDS);
// Documents stored through the model without it get name_folded from teacher_name; the repository sets it itself.
teacherSchema.path("name_folded").default(function (this: { teacher_name?: unknown }) {
  return typeof this.teacher_name === "string" ? foldedName(this.teacher_name) : undefined;
});

teacherSchema.index({ teacher_id: 1 }, { unique: true });
// Lists ordered by name (TeacherOrder TEACHER_NAME) and a name's prefix (where: teacher_name.startsWith).
teacherSchema.index({ name_folded: 1, teacher_id: 1 });

export type TeacherModel = Model<TeacherDoc>;

/** name_folded, derived from teacher_name: brought up once in teachers stored before it (db/derived-fields.ts). */
export const FOLDED_TEACHER_NAME: DerivedField = {
  marker: "name_folded-v1",
  idField: "teacher_id",
  from: "teacher_name",
  to: "name_folded",
  derive: foldedName,
};

export function createTeacherModel(connection: Connection): TeacherModel {
  return connection.model<TeacherDoc>("Teacher", teacherSchema);
}
