// Projects' GraphQL part, for src/graphql and the teachers' resolver (loads type-graphql: reflect-metadata first).
// The type comes before the resolver: the teachers' resolver, loaded from the projects' resolver, needs Project
// defined by then.
export { Project } from "./project.type";
export { createProjectLoaders, type ProjectLoaders } from "./project.loaders";
export { ProjectResolver } from "./project.resolver";
export { ProjectChangesResolver } from "./project-changes.resolver";
