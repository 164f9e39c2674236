// The GraphQL enums of a project's history (ProjectChange.operation and actor_role): fixed sets the domain records
// (PROJECT_OPERATIONS, ACTOR_ROLES). A GraphQL enum value is answered as its name, and these names are exactly the
// stored values, so the JSON on the wire is the text it was when the fields were String.
import { registerEnumType } from "type-graphql";
import { ACTOR_ROLES, type ActorRole } from "../../auth/actor";
import { PROJECT_OPERATIONS, type ProjectOperation as ProjectOperationValue } from "./project.records";

/** A TypeScript enum-like object of string values, as type-graphql's registerEnumType takes it. */
function enumOf<const V extends string>(values: readonly V[]): { [K in V]: K } {
  return Object.fromEntries(values.map((value) => [value, value])) as { [K in V]: K };
}

export const ProjectOperation = enumOf<ProjectOperationValue>(PROJECT_OPERATIONS);
export const Role = enumOf<ActorRole>(ACTOR_ROLES);

const OPERATION_DESCRIPTIONS: Record<ProjectOperationValue, string> = {
  createProject: "The project was created (revision 1)",
  assignTeacher: "A teacher was assigned to the project",
  updateProjectStatus: "The project's status was changed",
  archiveProject: "The project was archived: out of lists, counts and live matches, and read-only until unarchived",
  unarchiveProject: "The project was unarchived",
  deleteProject: "The project was deleted: its last entry, holding the project as it was",
};

const ROLE_DESCRIPTIONS: Record<ActorRole, string> = {
  student: "A caller acting as a student",
  teacher: "A caller acting as a teacher",
  admin: "A caller acting as an admin",
  none: "A caller authenticated without an acting role (a token and no X-User-Role, where any caller may act)",
  system: "The service itself (the seed script, maintenance), not a caller",
};

registerEnumType(ProjectOperation, {
  name: "ProjectOperation",
  description: "The operation that made a change of a project",
  valuesConfig: Object.fromEntries(
    PROJECT_OPERATIONS.map((value) => [value, { description: OPERATION_DESCRIPTIONS[value] }]),
  ),
});

registerEnumType(Role, {
  name: "Role",
  description: "The role the author of a change acted in",
  valuesConfig: Object.fromEntries(ACTOR_ROLES.map((value) => [value, { description: ROLE_DESCRIPTIONS[value] }])),
});
