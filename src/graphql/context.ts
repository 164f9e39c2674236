// The one Context type of the GraphQL layer: who is calling, the domain services, per-request loaders, a logger.
import type { Caller } from "../auth/caller";
import type { RequestLogger } from "../logger";
import type { Services } from "../services";
import { createProjectLoaders, type ProjectLoaders } from "../components/projects";
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
  services: Services;
  loaders: Loaders;
  logger: RequestLogger;
  /** Set on operations that run over a WebSocket. */
  live?: LiveOperation;
}

/** Fresh loaders for one request, so cached rows never outlive it. */
export function createLoaders(services: Services): Loaders {
  return {
    ...createProjectLoaders(services.projects),
    ...createTeacherLoaders(services.teachers),
    ...createStudentLoaders(services.students),
  };
}
