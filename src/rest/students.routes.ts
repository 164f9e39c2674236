// REST routes of students: update name and class (email cannot change: the body schema rejects it), and erase.
import { StudentIdArg } from "../components/students";
import type { RestRoute } from "./route";
import { pathId, restRoute } from "./route";
import { DeletedEnvelope, StudentEnvelope, UpdateStudentInput } from "./schemas";

export const studentRoutes: RestRoute[] = [
  restRoute({
    method: "PUT",
    url: "/students/:studentId",
    operation: "updateStudent",
    summary: "Update a student's name or class",
    tag: "students",
    successStatus: 200,
    pathArg: StudentIdArg,
    body: UpdateStudentInput,
    response: StudentEnvelope,
    domainErrors: [404],
    run: (services, params, body) => services.students.update(pathId(params.studentId), body),
  }),
  restRoute({
    method: "DELETE",
    url: "/students/:studentId",
    operation: "deleteStudent",
    summary: "Erase a student: the record and every copy of their name and email (role: admin)",
    tag: "students",
    successStatus: 200,
    pathArg: StudentIdArg,
    response: DeletedEnvelope,
    domainErrors: [404],
    run: (services, params) => services.students.erase(pathId(params.studentId)),
  }),
];
