// Students' GraphQL part, for src/graphql (loads type-graphql: reflect-metadata first).
export { Student } from "./student.type";
export { StudentResolver } from "./student.resolver";
export { StudentConnectionResolver } from "./student.connection";
