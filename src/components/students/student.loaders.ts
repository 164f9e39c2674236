// Per-request DataLoaders of students: one batched query per request.
import DataLoader from "dataloader";
import type { StudentRecord, StudentService } from "./student.service";

export interface StudentLoaders {
  /** A student by id (Query.node, Query.nodes); null for an unknown id. */
  studentById: DataLoader<number, StudentRecord | null>;
}

export function createStudentLoaders(students: StudentService): StudentLoaders {
  return {
    studentById: new DataLoader((ids) => students.findByIds(ids)),
  };
}
