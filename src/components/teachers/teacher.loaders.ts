// Per-request DataLoaders of teacher relations: one batched query per relation per request.
import { SettledLoader } from "../../shared/settled-loader";
import { TEACHER_RELATION_FIELDS, type RelatedTeacher, type TeacherService } from "./teacher.service";

export interface TeacherLoaders {
  /**
   * A teacher by id (Project.teacher), with TEACHER_RELATION_FIELDS; null for an unknown id. Answers at once once
   * loaded (loadSettled).
   */
  teacherById: SettledLoader<number, RelatedTeacher | null>;
}

export function createTeacherLoaders(teachers: TeacherService): TeacherLoaders {
  return {
    teacherById: new SettledLoader((ids) => teachers.findByIds(ids, { fields: TEACHER_RELATION_FIELDS })),
  };
}
