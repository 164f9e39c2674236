// Per-request DataLoaders of teacher relations: one batched query per relation per request.
import { SettledLoader } from "../../shared/settled-loader";
import type { TeacherRecord, TeacherService } from "./teacher.service";

export interface TeacherLoaders {
  /** A teacher by id (Project.teacher); null for an unknown id. Answers at once once loaded (loadSettled). */
  teacherById: SettledLoader<number, TeacherRecord | null>;
}

export function createTeacherLoaders(teachers: TeacherService): TeacherLoaders {
  return {
    teacherById: new SettledLoader((ids) => teachers.findByIds(ids)),
  };
}
