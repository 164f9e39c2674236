// Projects: the domain other components and the transports may use (the service, its records and input schemas,
// the status workflow). Light on purpose, no Mongoose and no GraphQL: src/config.ts loads it before tracing has
// patched those modules. The GraphQL part is ./graphql.ts, the persistence part ./persistence.ts; nothing outside
// this folder imports any other file of it (eslint.config.mjs enforces that).
export { ProjectService, type ProjectRecord } from "./project.service";
export * from "./project.schemas";
export { parseStatusWorkflow, type StatusWorkflow } from "./status-workflow";
export {
  ProjectChangeFeed,
  type ProjectChangeEvent,
  type ProjectChangeFeedOptions,
  type SubscriberHooks,
} from "./project-changes.feed";
