// REST routes of teachers: rename. An unknown teacher is 400, as the original interface lists no 404 here.
import { TeacherIdArg } from "../components/teachers";
import type { RestRoute } from "./route";
import { pathId, restRoute } from "./route";
import { TeacherEnvelope, UpdateTeacherInput } from "./schemas";

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
];
