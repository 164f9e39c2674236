// Students' persistence part, for src/db and src/services.ts (loads Mongoose).
export { createStudentModel, type StudentModel } from "./student.model";
export { StudentRepository } from "./student.repository";
