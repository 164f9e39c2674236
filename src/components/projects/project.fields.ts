// The fields a project stores, declared once and free of Mongoose, so the domain may read them too: ProjectDoc, the
// Mongoose schema (project.model.ts), ProjectRecord and the rules a record must meet to be answered follow from them.
import type { DocOf, StoredFields } from "../../db/stored-fields";

/** Every field a project stores, declared once: ProjectDoc, the Mongoose schema and ProjectRecord follow from it. */
export const PROJECT_FIELDS = {
  project_id: { type: Number, required: true },
  project_name: { type: String, required: true },
  /** Trimmed, case-folded project_name: unique per company_id (no collation on FerretDB). */
  name_key: { type: String, required: true },
  project_desc: { type: String, required: true },
  company_id: { type: Number, required: true },
  project_status: { type: String, required: true },
  project_url: { type: String, default: null },
  start_date: { type: String, required: true },
  end_date: { type: String, required: true },
  teacher_id: { type: Number, default: null },
  /** 1 when created, +1 on every change; the project is "brought up" to its newest ProjectRevisionDoc. */
  revision: { type: Number, default: 1 },
  /** The caller id that created it, if known. */
  created_by: { type: String, default: null },
} as const satisfies StoredFields;

export type ProjectDoc = DocOf<typeof PROJECT_FIELDS>;
