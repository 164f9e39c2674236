// Persistence of projects (Mongoose). Separate from the GraphQL type; the service maps documents to plain objects.
import { Schema, type Connection, type Model } from "mongoose";
import type { DerivedField } from "../../db/derived-fields";
import { storedSchema } from "../../db/stored-fields";
import { foldedName } from "../../shared/validation";
import { PROJECT_FIELDS, type ProjectDoc } from "./project.fields";

export { PROJECT_FIELDS, type ProjectDoc } from "./project.fields";

const projectSchema = storedSchema("projects", "project_id", PROJECT_FIELDS);
// Documents stored through the model without it (tests, the seed) get name_folded from project_name as the service
// writes it; the repository sets it itself.
projectSchema.path("name_folded").default(function (this: { project_name?: unknown }) {
  return typeof this.project_name === "string" ? foldedName(this.project_name) : undefined;
});

projectSchema.index({ project_id: 1 }, { unique: true });
projectSchema.index({ company_id: 1, name_key: 1 }, { unique: true });
// Every list leaves archived projects out unless its where asks for them (`archived` false, or true): an equality on
// `archived`, so each list index has it right after the list's own equality fields, then the sort key. A page in any
// order, of archived projects or not, is then one index range cut to the page, on MongoDB and on the embedded FerretDB.
// The lists by id, and the filters of the project list, each ending with the sort key.
projectSchema.index({ archived: 1, project_id: 1 });
projectSchema.index({ company_id: 1, archived: 1, project_id: 1 });
projectSchema.index({ teacher_id: 1, archived: 1, project_id: 1 });
projectSchema.index({ project_status: 1, archived: 1, project_id: 1 });
// Row rules (ACCESS_POLICY, project.access.ts) may name created_by (a caller's own projects): the same shape serves them.
projectSchema.index({ created_by: 1, archived: 1, project_id: 1 });
// The orders of lists (ProjectOrder, project.where.ts): each sorted field then project_id, so a page in any order,
// and a range of its field (a where on it, a cursor's position), is one index range cut to the page. Both directions
// walk the same index.
projectSchema.index({ archived: 1, name_folded: 1, project_id: 1 });
projectSchema.index({ archived: 1, project_status: 1, project_id: 1 });
projectSchema.index({ archived: 1, company_id: 1, project_id: 1 });
projectSchema.index({ archived: 1, start_date: 1, project_id: 1 });
projectSchema.index({ archived: 1, end_date: 1, project_id: 1 });
projectSchema.index({ archived: 1, created_at: 1, project_id: 1 });
projectSchema.index({ archived: 1, updated_at: 1, project_id: 1 });
// A board's column: a company's projects by deadline (and a row rule by company_ids, merged per company).
projectSchema.index({ company_id: 1, archived: 1, end_date: 1, project_id: 1 });
// A teacher's projects by deadline (Teacher.projects and projectsConnection ordered by END_DATE).
projectSchema.index({ teacher_id: 1, archived: 1, end_date: 1, project_id: 1 });

export type ProjectModel = Model<ProjectDoc>;

/** name_folded, derived from project_name: brought up once in projects stored before it (db/derived-fields.ts). */
export const FOLDED_PROJECT_NAME: DerivedField = {
  marker: "name_folded-v1",
  idField: "project_id",
  from: "project_name",
  to: "name_folded",
  derive: foldedName,
};

export function createProjectModel(connection: Connection): ProjectModel {
  return connection.model<ProjectDoc>("Project", projectSchema);
}

/** The fields a change may set; a revision stores their new values, so applying it twice gives the same state. */
export type ProjectChangeSet = Partial<Pick<ProjectDoc, "teacher_id" | "project_status" | "archived_at" | "archived">>;

/**
 * One revision of a project as versions before the change log stored it (`project_revisions`). No longer written:
 * project-upgrades.ts copies these into the change log (project-changes.model.ts) once, at start-up.
 */
export interface ProjectRevisionDoc {
  /** revisionKey(project_id, revision). */
  _id: string;
  project_id: number;
  revision: number;
  operation: string;
  actor_id: string | null;
  actor_role: string;
  at: Date;
  /** The new values (empty for the creation, whose values are the project document itself). */
  set: ProjectChangeSet;
  changes: { field: string; from: string | null; to: string | null }[];
}

const fieldChangeSchema = new Schema(
  {
    field: { type: String, required: true },
    from: { type: String, default: null },
    to: { type: String, default: null },
  },
  { _id: false },
);

/** The fields of a recorded change: the change log's documents (project-changes.model.ts) add `seq` and `project`. */
export const RECORDED_CHANGE_FIELDS = {
  _id: { type: String, required: true },
  project_id: { type: Number, required: true },
  revision: { type: Number, required: true },
  operation: { type: String, required: true },
  actor_id: { type: String, default: null },
  actor_role: { type: String, required: true },
  at: { type: Date, required: true },
  set: { type: Schema.Types.Mixed, default: {} },
  changes: { type: [fieldChangeSchema], default: [] },
};

const projectRevisionSchema = new Schema<ProjectRevisionDoc>(
  RECORDED_CHANGE_FIELDS,
  // minimize: false keeps `set: {}` and nulls in `set` (teacher_id: null is a value, not an absence).
  { collection: "project_revisions", versionKey: false, autoIndex: false, autoCreate: false, minimize: false },
);
// No secondary index: the migration reads the whole collection once.

export type ProjectRevisionModel = Model<ProjectRevisionDoc>;

export function createProjectRevisionModel(connection: Connection): ProjectRevisionModel {
  return connection.model<ProjectRevisionDoc>("ProjectRevision", projectRevisionSchema);
}
