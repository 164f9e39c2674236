// The one Context type of the GraphQL layer: who is calling, the domain services, per-request loaders, a logger.
import type { Caller } from "../auth/caller";
import type { RequestLogger } from "../logger";
import type { Services } from "../services";
import { createProjectLoaders, type ProjectLoaders } from "../components/projects";
import { createTeacherLoaders, type TeacherLoaders } from "../components/teachers";

export type Loaders = ProjectLoaders & TeacherLoaders;

export interface Context {
  caller: Caller;
  services: Services;
  loaders: Loaders;
  logger: RequestLogger;
}

/** Fresh loaders for one request, so cached rows never outlive it. */
export function createLoaders(services: Services): Loaders {
  return { ...createProjectLoaders(services.projects), ...createTeacherLoaders(services.teachers) };
}
