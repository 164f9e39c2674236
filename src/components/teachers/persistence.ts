// Teachers' persistence part, for src/db and src/services.ts (loads Mongoose).
export { createTeacherModel, type TeacherModel } from "./teacher.model";
export { TeacherRepository } from "./teacher.repository";
