// REST routes of projects: create, assign a teacher, change status, archive, unarchive, delete.
import { ProjectIdArg } from "../components/projects";
import type { RestRoute } from "./route";
import { pathId, restRoute } from "./route";
import {
  AssignTeacherInput,
  CreateProjectInput,
  DeletedEnvelope,
  ProjectEnvelope,
  UpdateProjectStatusInput,
} from "./schemas";

export const projectRoutes: RestRoute[] = [
  restRoute({
    method: "POST",
    url: "/projects",
    operation: "createProject",
    summary: "Create a project",
    tag: "projects",
    successStatus: 201,
    body: CreateProjectInput,
    response: ProjectEnvelope,
    // 403: ACCESS_POLICY's read rule would not let the creator read the project.
    domainErrors: [403, 409],
    run: (services, _params, body, actor, access) => services.projects.create(body, actor, access),
  }),
  restRoute({
    method: "PUT",
    url: "/projects/:projectId/teacher",
    operation: "assignTeacher",
    summary: "Assign a teacher to a project",
    tag: "projects",
    successStatus: 200,
    pathArg: ProjectIdArg,
    body: AssignTeacherInput,
    response: ProjectEnvelope,
    domainErrors: [404, 409],
    run: (services, params, body, actor, access) =>
      services.projects.assignTeacher(pathId(params.projectId), body, actor, access),
  }),
  restRoute({
    method: "PUT",
    url: "/projects/:projectId/updateStatus",
    operation: "updateProjectStatus",
    summary: "Change a project's status",
    tag: "projects",
    successStatus: 200,
    pathArg: ProjectIdArg,
    body: UpdateProjectStatusInput,
    response: ProjectEnvelope,
    // 403: outside ACCESS_POLICY's change rule. 409: expected_revision is not the current revision, or the status keeps
    // changing concurrently.
    domainErrors: [403, 404, 409],
    run: (services, params, body, actor, access) =>
      services.projects.updateStatus(pathId(params.projectId), body, actor, access),
  }),
  restRoute({
    method: "PUT",
    url: "/projects/:projectId/archive",
    operation: "archiveProject",
    summary: "Archive a project: out of lists and counts, read-only until unarchived",
    tag: "projects",
    successStatus: 200,
    pathArg: ProjectIdArg,
    response: ProjectEnvelope,
    domainErrors: [403, 404, 409],
    run: (services, params, _body, actor, access) => services.projects.archive(pathId(params.projectId), actor, access),
  }),
  restRoute({
    method: "PUT",
    url: "/projects/:projectId/unarchive",
    operation: "unarchiveProject",
    summary: "Unarchive a project",
    tag: "projects",
    successStatus: 200,
    pathArg: ProjectIdArg,
    response: ProjectEnvelope,
    domainErrors: [403, 404, 409],
    run: (services, params, _body, actor, access) =>
      services.projects.unarchive(pathId(params.projectId), actor, access),
  }),
  restRoute({
    method: "DELETE",
    url: "/projects/:projectId",
    operation: "deleteProject",
    summary: "Delete a project (role: admin)",
    tag: "projects",
    successStatus: 200,
    pathArg: ProjectIdArg,
    response: DeletedEnvelope,
    domainErrors: [403, 404],
    run: (services, params, _body, actor, access) => services.projects.delete(pathId(params.projectId), actor, access),
  }),
];
