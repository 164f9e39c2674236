// Projects' persistence part, for src/db and src/services.ts (loads Mongoose).
export {
  createProjectModel,
  createProjectRevisionModel,
  type ProjectDoc,
  type ProjectModel,
  type ProjectRevisionModel,
} from "./project.model";
export { ProjectRepository, revisionKey } from "./project.repository";
