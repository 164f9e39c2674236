// Per-request DataLoaders of teacher relations: one batched query per relation per request.
import DataLoader from "dataloader";
import type { TeacherRecord, TeacherService } from "./teacher.service";

export interface TeacherLoaders {
  /** A teacher by id (Project.teacher); null for an unknown id. */
  teacherById: DataLoader<number, TeacherRecord | null>;
}

export function createTeacherLoaders(teachers: TeacherService): TeacherLoaders {
  return {
    teacherById: new DataLoader((ids) => teachers.findByIds(ids)),
  };
}
