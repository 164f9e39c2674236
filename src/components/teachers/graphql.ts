// Teachers' GraphQL part, for src/graphql and the projects' resolver (loads type-graphql: reflect-metadata first).
// The type comes before the resolver: the projects' resolver, loaded from the teachers' resolver, needs Teacher
// defined by then.
export { Teacher } from "./teacher.type";
export { createTeacherLoaders, type TeacherLoaders } from "./teacher.loaders";
export { TeacherResolver } from "./teacher.resolver";
