// Teachers: the domain other components and the transports may use (the service, its record, the input schemas,
// the per-request loaders over the service). No Mongoose and no GraphQL here: the GraphQL part is ./graphql.ts, the
// persistence part ./persistence.ts; nothing outside this folder imports any other file of it (eslint.config.mjs
// enforces that).
export { createTeacherLoaders, type TeacherLoaders } from "./teacher.loaders";
export * from "./teacher.schemas";
export {
  TEACHER_RELATION_FIELDS,
  TeacherService,
  type RelatedTeacher,
  type TeacherJoin,
  type TeacherJoinStage,
  type TeacherRecord,
} from "./teacher.service";
export { storedTeacherProblems } from "./teacher.stored";
