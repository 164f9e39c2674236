// Persistence of teachers (Mongoose).
import type { Connection, Model } from "mongoose";
import { storedSchema } from "../../db/stored-fields";
import { TEACHER_FIELDS, type TeacherDoc } from "./teacher.fields";

export { TEACHER_FIELDS, type TeacherDoc } from "./teacher.fields";

const teacherSchema = storedSchema("teachers", "teacher_id", TEACHER_FIELDS);

teacherSchema.index({ teacher_id: 1 }, { unique: true });

export type TeacherModel = Model<TeacherDoc>;

export function createTeacherModel(connection: Connection): TeacherModel {
  return connection.model<TeacherDoc>("Teacher", teacherSchema);
}
