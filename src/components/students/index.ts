// Students: what other components and the transports may use.
export { StudentService, type StudentRecord, type StudentFilter } from "./student.service";
