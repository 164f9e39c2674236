// Teachers' GraphQL part, for src/graphql and the projects' resolvers (loads type-graphql: reflect-metadata first).
export { Teacher } from "./teacher.type";
export { TeacherResolver } from "./teacher.resolver";
export { TeacherConnectionResolver } from "./teacher.connection";
