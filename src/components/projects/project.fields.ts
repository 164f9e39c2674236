// The fields a project stores, declared once and free of Mongoose, so the domain may read them too: ProjectDoc, the
// Mongoose schema (project.model.ts), ProjectRecord and the rules a record must meet to be answered follow from them.
import type { DocOf, StoredFields } from "../../db/stored-fields";

/** Every field a project stores, declared once: ProjectDoc, the Mongoose schema and ProjectRecord follow from it. */
export const PROJECT_FIELDS = {
  project_id: { type: Number, required: true },
  project_name: { type: String, required: true },
  /** Trimmed, case-folded project_name: unique per company_id (no collation on FerretDB). */
  name_key: { type: String, required: true },
  /** project_name folded as lists compare names (foldedName: no accents, lower case, trimmed); indexed. */
  name_folded: { type: String, required: true },
  project_desc: { type: String, required: true },
  company_id: { type: Number, required: true },
  project_status: { type: String, required: true },
  project_url: { type: String, default: null },
  start_date: { type: String, required: true },
  end_date: { type: String, required: true },
  teacher_id: { type: Number, default: null },
  /** 1 when created, +1 on every change (each change is one conditional update of this document). */
  revision: { type: Number, default: 1 },
  /** The caller id that created it, if known. */
  created_by: { type: String, default: null },
  /**
   * The change log position of the project's newest change, as versions that wrote the log without transactions kept
   * it; no longer written (a change and its entry now commit together: project-changes.log.ts).
   */
  change_seq: { type: Number, default: null },
  /** When it was archived (ISO 8601, UTC); null while it is not. Archived projects cannot be changed. */
  archived_at: { type: String, default: null },
  /**
   * Whether it is archived (archived_at set), stored apart for the lists: every list filters on it by equality, in
   * both directions, first in its index after the list's own equalities (project.model.ts). Never answered.
   */
  archived: { type: Boolean, default: false },
} as const satisfies StoredFields;

/** Stored for the service's own use, never answered: the name's unique key, its folded form, change_seq (above). */
export const PROJECT_STORAGE_ONLY = ["name_key", "name_folded", "change_seq", "archived"] as const;
export type ProjectStorageOnly = (typeof PROJECT_STORAGE_ONLY)[number];

export type ProjectDoc = DocOf<typeof PROJECT_FIELDS>;
