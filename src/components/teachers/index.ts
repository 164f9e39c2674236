// Teachers: what other components and the transports may use.
export { TeacherService, type TeacherRecord } from "./teacher.service";
