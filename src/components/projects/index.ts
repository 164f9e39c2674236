// Projects: the domain other components and the transports may use (the service, its records and input schemas,
// the per-request loaders over the service, the status workflow). No Mongoose and no GraphQL: the GraphQL part is
// ./graphql.ts, the persistence part ./persistence.ts; nothing outside this folder imports any other file of it
// (eslint.config.mjs enforces that).
export { createProjectLoaders, type ProjectLoaders } from "./project.loaders";
export { ProjectService, type ProjectRecord } from "./project.service";
export * from "./project.schemas";
export { parseStatusWorkflow, type StatusWorkflow } from "./status-workflow";
export {
  accessOf,
  parseAccessPolicy,
  ProjectAccessPolicy,
  NO_ACCESS,
  UNRESTRICTED,
  type Claims,
  type ProjectAccess,
} from "./project.access";
export { storedChangeProblems, storedProjectProblems } from "./project.stored";
export {
  ProjectChangeFeed,
  type ProjectChangeEvent,
  type ProjectChangeFeedOptions,
  type SubscriberHooks,
} from "./project-changes.feed";
export { encodeCursor as encodeChangeCursor } from "./project-changes.cursor";
export {
  foldName,
  matchesProjectWhere,
  parseProjectWhereJson,
  type ProjectWhere,
  type WhereSubject,
} from "./project-where.json";
