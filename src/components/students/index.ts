// Students: the domain the transports may use (the service, its record and filter, the input schemas). No Mongoose
// and no GraphQL here: the GraphQL part is ./graphql.ts, the persistence part ./persistence.ts; nothing outside this
// folder imports any other file of it (eslint.config.mjs enforces that).
export { createStudentLoaders, type StudentLoaders } from "./student.loaders";
export * from "./student.schemas";
export { StudentService, type StudentRecord } from "./student.service";
export { storedStudentProblems } from "./student.stored";
