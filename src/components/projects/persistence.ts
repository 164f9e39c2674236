// Projects' persistence part, for src/db and src/services.ts (loads Mongoose).
export {
  createProjectModel,
  createProjectRevisionModel,
  FOLDED_PROJECT_NAME,
  PROJECT_FIELDS,
  type ProjectDoc,
  type ProjectModel,
  type ProjectRevisionModel,
} from "./project.model";
export { ProjectRepository } from "./project.repository";
export { revisionKey } from "./project.records";
export {
  createProjectChangeModel,
  voidKey,
  type ProjectChangeDoc,
  type ProjectChangeModel,
} from "./project-changes.model";
export { ProjectChangeLog, type ChangeLogEntry, type CommittedChange } from "./project-changes.log";
export { appendAll, catchUpProjects, migrateProjectRevisions, upgradeProjects } from "./project-upgrades";
