// The one Context type of the GraphQL layer: who is calling, the domain services, per-request loaders, a logger.
import type { Caller } from "../auth/caller";
import type { RequestLogger } from "../logger";
import type { Services } from "../services";
import { createProjectLoaders, type ProjectAccess, type ProjectLoaders } from "../components/projects";
import { createStudentLoaders, type StudentLoaders } from "../components/students";
import { createTeacherLoaders, type TeacherLoaders } from "../components/teachers";

export type Loaders = ProjectLoaders & TeacherLoaders & StudentLoaders;

/** What an operation running over a WebSocket (src/live) may ask of its connection. */
export interface LiveOperation {
  /** The subscriber fell too far behind: the connection closes (the client resumes from its last cursor). */
  onOverflow(): void;
  /** Throws UNAUTHORIZED and closes the connection when the caller may no longer read (its token expired). */
  authorizeEvent(): void;
}

export interface Context {
  caller: Caller;
  /** The caller's row rules for projects (ACCESS_POLICY), compiled once: every project read and change applies them. */
  access: ProjectAccess;
  services: Services;
  loaders: Loaders;
  logger: RequestLogger;
  /** Set on operations that run over a WebSocket. */
  live?: LiveOperation;
}

/**
 * Fresh loaders for one request, so cached rows never outlive it; the project loaders read under the caller's row
 * rules, fixed for the request, so no key of one caller's loader holds what another may read.
 */
export function createLoaders(services: Services, access: ProjectAccess): Loaders {
  return {
    ...createProjectLoaders(services.projects, access),
    ...createTeacherLoaders(services.teachers),
    ...createStudentLoaders(services.students),
  };
}
