// REST routes of students: update name and class (email cannot change: the body schema rejects it).
import { StudentIdArg } from "../components/students";
import type { RestRoute } from "./route";
import { pathId, restRoute } from "./route";
import { StudentEnvelope, UpdateStudentInput } from "./schemas";

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
];
