// Students' GraphQL part, for src/graphql (loads type-graphql: reflect-metadata first).
export { StudentResolver } from "./student.resolver";
