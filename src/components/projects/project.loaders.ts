// Per-request DataLoaders of project relations: one batched query per relation per request.
import DataLoader from "dataloader";
import type { ProjectRecord, ProjectService } from "./project.service";

export interface ProjectLoaders {
  /** Projects of each teacher (Teacher.projects). */
  projectsByTeacherId: DataLoader<number, ProjectRecord[]>;
}

export function createProjectLoaders(projects: ProjectService): ProjectLoaders {
  return {
    projectsByTeacherId: new DataLoader((teacherIds) => projects.findByTeacherIds(teacherIds)),
  };
}
