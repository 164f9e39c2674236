// The records of projects as the service hands them out (a project, an entry of its history) and how stored
// documents map to them; shared by the repository and the change log.
import type { ActorRole } from "../../auth/actor";
import { idKey } from "../../db/id-key";
import type { RecordOf } from "../../db/record-of";
import { recordMapper } from "../../db/record-of";
import type { ProjectChangeDoc, ProjectState } from "./project-changes.model";
import type { ProjectDoc } from "./project.model";
import { PROJECT_FIELDS } from "./project.model";
import { PROJECT_STORAGE_ONLY, type ProjectStorageOnly } from "./project.fields";

/** A project as the service hands it out (fields declared once, in PROJECT_FIELDS of project.fields.ts). */
export type ProjectRecord = RecordOf<ProjectDoc, ProjectStorageOnly>;

export interface FieldChangeRecord {
  field: string;
  from: string | null;
  to: string | null;
}

/** The operations that change a project, as its history names them (GraphQL's enum ProjectOperation). */
export const PROJECT_OPERATIONS = ["createProject", "assignTeacher", "updateProjectStatus"] as const;
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

/** A stored project (or a project state of the change log) as the service hands it out. */
export const toProjectRecord: (doc: ProjectState) => ProjectRecord = recordMapper(PROJECT_FIELDS, PROJECT_STORAGE_ONLY);

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
