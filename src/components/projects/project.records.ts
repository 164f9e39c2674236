// The records of projects as the service hands them out (a project, an entry of its history) and how stored
// documents map to them; shared by the repository and the change log.
import type { Actor, ActorRole } from "../../auth/actor";
import { idKey } from "../../db/id-key";
import type { RecordOf } from "../../db/record-of";
import { recordMapper, selectedRecordMapper } from "../../db/record-of";
import type { ProjectChangeDoc, ProjectState } from "./project-changes.model";
import type { ProjectDoc } from "./project.model";
import { PROJECT_FIELDS } from "./project.model";
import { CreateProjectSchema } from "./project.schemas";
import { PROJECT_STORAGE_ONLY, type ProjectStorageOnly } from "./project.fields";

/** A project as the service hands it out (fields declared once, in PROJECT_FIELDS of project.fields.ts). */
export type ProjectRecord = RecordOf<ProjectDoc, ProjectStorageOnly>;

export interface FieldChangeRecord {
  field: string;
  from: string | null;
  to: string | null;
}

/** The operations that change a project, as its history names them (GraphQL's enum ProjectOperation). */
export const PROJECT_OPERATIONS = [
  "createProject",
  "assignTeacher",
  "updateProjectStatus",
  "archiveProject",
  "unarchiveProject",
  "deleteProject",
] as const;
export type ProjectOperation = (typeof PROJECT_OPERATIONS)[number];

export interface ProjectChangeRecord {
  revision: number;
  operation: ProjectOperation;
  actor_id: string | null;
  actor_role: ActorRole;
  at: string;
  changes: FieldChangeRecord[];
}

/** The `_id` of revision `revision` of project `projectId`: unique, so inserting it is the atomic claim. */
export const revisionKey = (projectId: number, revision: number): string => `${idKey(projectId)}:${revision}`;

/** A field of a project record. */
export type ProjectField = keyof ProjectRecord;

/** A stored project (or a project state of the change log) as the service hands it out. */
export const toProjectRecord: (doc: ProjectState) => ProjectRecord = recordMapper(PROJECT_FIELDS, PROJECT_STORAGE_ONLY);

/** A stored project read with only the `selected` fields, as a record holding just those. */
export const toSelectedProjectRecord = selectedRecordMapper(PROJECT_FIELDS, PROJECT_STORAGE_ONLY);

/** The fields of a change document (change log or legacy revision) that a history entry shows. */
type ChangeFields = Pick<ProjectChangeDoc, "revision" | "operation" | "actor_id" | "actor_role" | "at" | "changes">;

export function toChangeRecord(doc: ChangeFields): ProjectChangeRecord {
  return {
    revision: doc.revision,
    // Stored as written by the service (npm run db:check lists any other value).
    operation: doc.operation as ProjectOperation,
    actor_id: doc.actor_id ?? null,
    actor_role: doc.actor_role as ActorRole,
    at: new Date(doc.at).toISOString(),
    changes: (doc.changes ?? []).map((c) => ({ field: c.field, from: c.from ?? null, to: c.to ?? null })),
  };
}

// ---- building a change's entry of the change log

/** Fields a history entry lists, in order: those of the create shape (the contract's order), then the teacher. */
export const RECORDED_FIELDS: readonly string[] = [
  ...Object.keys(CreateProjectSchema.shape),
  "teacher_id",
  "archived_at",
];

/** The author of an entry the service writes itself (the log resolving a change whose writer died, see the log). */
export const SYSTEM = { id: null, role: "system" } as const;

const asText = (value: unknown): string | null => (value === null || value === undefined ? null : String(value));

/** The project state a change entry stores (every field but the internal ones). */
export function stateOf({
  _id: _key,
  name_key: _nameKey,
  name_folded: _folded,
  change_seq: _seq,
  archived: _archived,
  ...state
}: ProjectDoc): ProjectState {
  return state;
}

/** The entry of a change: `before` is the project as it was (null for its creation), `after` as the change left it. */
export function changeEntry(
  operation: ProjectOperation,
  actor: Pick<Actor, "id" | "role">,
  before: ProjectState | null,
  after: ProjectState,
  seq: number,
): ProjectChangeDoc {
  const was: Record<string, unknown> = before ?? {};
  const now: Record<string, unknown> = after;
  const changed = RECORDED_FIELDS.filter((f) => (before ? asText(was[f]) !== asText(now[f]) : now[f] !== null));
  return {
    _id: revisionKey(after.project_id, after.revision),
    seq,
    project_id: after.project_id,
    revision: after.revision,
    operation,
    actor_id: actor.id,
    actor_role: actor.role,
    at: after.updated_at,
    set: before ? Object.fromEntries(changed.map((f) => [f, now[f]])) : {},
    changes: changed.map((field) => ({ field, from: asText(was[field]), to: asText(now[field]) })),
    project: after,
  };
}
