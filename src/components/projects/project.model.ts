// Persistence of projects (Mongoose). Separate from the GraphQL type; the service maps documents to plain objects.
import { Schema, type Connection, type Model } from "mongoose";
import { idKey } from "../../db/id-key";

export interface ProjectDoc {
  /** idKey(project_id), set by default (see db/id-key.ts). */
  _id: string;
  project_id: number;
  project_name: string;
  /** Trimmed, case-folded project_name: unique per company_id (no collation on FerretDB). */
  name_key: string;
  project_desc: string;
  company_id: number;
  project_status: string;
  project_url: string | null;
  start_date: string;
  end_date: string;
  teacher_id: number | null;
  created_at: Date;
  updated_at: Date;
}

const projectSchema = new Schema<ProjectDoc>(
  {
    _id: {
      type: String,
      default: function (this: ProjectDoc) {
        return this.project_id == null ? undefined : idKey(this.project_id);
      },
    },
    project_id: { type: Number, required: true },
    project_name: { type: String, required: true },
    name_key: { type: String, required: true },
    project_desc: { type: String, required: true },
    company_id: { type: Number, required: true },
    project_status: { type: String, required: true },
    project_url: { type: String, default: null },
    start_date: { type: String, required: true },
    end_date: { type: String, required: true },
    teacher_id: { type: Number, default: null },
  },
  {
    collection: "projects",
    versionKey: false,
    timestamps: { createdAt: "created_at", updatedAt: "updated_at" },
    autoIndex: false,
  },
);

projectSchema.index({ project_id: 1 }, { unique: true });
projectSchema.index({ company_id: 1, name_key: 1 }, { unique: true });
// Filters of the project list, each ending with the sort key so pages are served in index order.
projectSchema.index({ company_id: 1, project_id: 1 });
projectSchema.index({ teacher_id: 1, project_id: 1 });
projectSchema.index({ project_status: 1, project_id: 1 });

export type ProjectModel = Model<ProjectDoc>;

export function createProjectModel(connection: Connection): ProjectModel {
  return connection.model<ProjectDoc>("Project", projectSchema);
}
