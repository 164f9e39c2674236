// REST routes of teachers: rename (an unknown teacher is 400, as the original interface lists no 404 there) and delete.
import { TeacherIdArg } from "../components/teachers";
import type { RestRoute } from "./route";
import { pathId, restRoute } from "./route";
import { DeletedEnvelope, TeacherEnvelope, UpdateTeacherInput } from "./schemas";

export const teacherRoutes: RestRoute[] = [
  restRoute({
    method: "PUT",
    url: "/teachers/:teacherId",
    operation: "updateTeacher",
    summary: "Rename a teacher",
    tag: "teachers",
    successStatus: 200,
    pathArg: TeacherIdArg,
    body: UpdateTeacherInput,
    response: TeacherEnvelope,
    domainErrors: [],
    run: (services, params, body) => services.teachers.update(pathId(params.teacherId), body),
  }),
  restRoute({
    method: "DELETE",
    url: "/teachers/:teacherId",
    operation: "deleteTeacher",
    summary: "Delete a teacher no project has (role: admin)",
    tag: "teachers",
    successStatus: 200,
    pathArg: TeacherIdArg,
    response: DeletedEnvelope,
    domainErrors: [404, 409],
    run: (services, params) => services.teachers.delete(pathId(params.teacherId)),
  }),
];
