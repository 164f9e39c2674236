// The change log of projects (Mongoose): one immutable document per committed change, in `project_changes`. It
// replaces `project_revisions` (still read once, by project-upgrades.ts) because each change also has a
// position `seq` in one global order, and MongoDB cannot build a unique index on `seq` over documents that lack it.
// See project-changes.log.ts for how a change and its entry commit together.
import { Schema, type Connection, type Model } from "mongoose";
import type { ProjectStorageOnly } from "./project.fields";
import { RECORDED_CHANGE_FIELDS, type ProjectDoc, type ProjectRevisionDoc } from "./project.model";

/** The project as of a change: every stored field but the internal ones. */
export type ProjectState = Omit<ProjectDoc, "_id" | ProjectStorageOnly>;

/**
 * One committed change: revision `revision` of project `project_id`, at log position `seq`. Its `_id`
 * (revisionKey(project_id, revision)) is unique, so inserting it is the claim of the revision; its fields are those
 * of the revisions earlier versions stored, plus the position and the snapshot (for the creation, `set` is empty and
 * its values are the snapshot).
 */
export interface ProjectChangeDoc extends ProjectRevisionDoc {
  /** The change's position in the log of every project: unique, whole, from 1. */
  seq: number;
  /** The project after this change, so an event and a filter match need no further read. */
  project: ProjectState;
}

/** A position no change took, as versions before transactions wrote it: read as a position without a change. */
export interface ProjectChangeVoidDoc {
  _id: string;
  seq: number;
  void: true;
}

export type ProjectChangeLogDoc = ProjectChangeDoc | ProjectChangeVoidDoc;

export const voidKey = (seq: number): string => `void:${seq}`;

export function isVoid(doc: ProjectChangeLogDoc): doc is ProjectChangeVoidDoc {
  return (doc as ProjectChangeVoidDoc).void === true;
}

const projectChangeSchema = new Schema<ProjectChangeDoc>(
  {
    ...RECORDED_CHANGE_FIELDS,
    seq: { type: Number, required: true },
    project: { type: Schema.Types.Mixed, required: true },
  },
  // minimize: false keeps `set: {}` and nulls in `set` and `project` (teacher_id: null is a value, not an absence).
  { collection: "project_changes", versionKey: false, autoIndex: false, minimize: false },
);
// The log's order: unique, so of two inserts claiming one position exactly one succeeds. Readers of the log filter
// and sort on it (`{seq: {$gt: c}}` sorted by seq, or `{seq: c}`); a project's revisions are read by `_id`.
projectChangeSchema.index({ seq: 1 }, { unique: true });
// A project's entries in log order: a subscriber of one project replays them from a revision's position.
projectChangeSchema.index({ project_id: 1, seq: 1 });

export type ProjectChangeModel = Model<ProjectChangeDoc>;

export function createProjectChangeModel(connection: Connection): ProjectChangeModel {
  return connection.model<ProjectChangeDoc>("ProjectChange", projectChangeSchema);
}
