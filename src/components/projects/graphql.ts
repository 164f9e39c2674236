// Projects' GraphQL part, for src/graphql (loads type-graphql: reflect-metadata first): the Project type and the
// resolvers, Teacher.projects among them (projects depend on teachers, never the reverse).
export { Project } from "./project.type";
export { ProjectResolver } from "./project.resolver";
export { TeacherProjectsResolver } from "./teacher-projects.resolver";
export { ProjectChangesResolver } from "./project-changes.resolver";
export { ProjectConnectionResolver } from "./project.connection";
export { TeacherProjectsConnectionResolver } from "./teacher-projects.connection";
