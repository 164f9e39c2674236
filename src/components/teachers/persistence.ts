// Teachers' persistence part, for src/db and src/services.ts (loads Mongoose).
export { createTeacherModel, FOLDED_TEACHER_NAME, type TeacherModel } from "./teacher.model";
export { TeacherRepository } from "./teacher.repository";
