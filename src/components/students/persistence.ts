// Students' persistence part, for src/db and src/services.ts (loads Mongoose).
export { createStudentModel, FOLDED_STUDENT_NAME, type StudentModel } from "./student.model";
export { StudentRepository } from "./student.repository";
