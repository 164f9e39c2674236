// Teachers: what other components and the transports may use.
export * from "./teacher.schemas";
export { TeacherService, type TeacherRecord } from "./teacher.service";
