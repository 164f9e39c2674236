// Students: what other components and the transports may use.
export * from "./student.schemas";
export { StudentService, type StudentRecord, type StudentFilter } from "./student.service";
