// The change log of projects: every committed change at a position `seq` of one global order, read by the live
// updates (src/live, project-changes.feed.ts), by a project's history and by backups. docs/live.md explains it.
//
// A change is ONE transaction (the repository runs it): it changes the project, takes its position from a counter
// and inserts its entry, and all three commit together or not at all. Every change writes the counter's document, so
// of two changes one commits its position before the other takes the next (MongoDB makes the second wait or try
// again; the embedded FerretDB writes one transaction at a time): positions become readable in the order they are
// taken, with no gap, and a project's changes are in the log in the order of its revisions. A reader never waits.
//
// Data written by earlier versions reads as before: their void entries (positions no change took) are positions
// without a change, and positions they left empty are simply absent.
import type { ClientSession } from "mongoose";
import type { IdAllocator } from "../../db/id-allocator";
import { timedCommand } from "../../db/command-timing";
import {
  isVoid,
  type ProjectChangeDoc,
  type ProjectChangeLogDoc,
  type ProjectChangeModel,
} from "./project-changes.model";
import type { ProjectQuery } from "./project.access";
import {
  revisionKey,
  toChangeRecord,
  toProjectRecord,
  type ProjectChangeRecord,
  type ProjectRecord,
} from "./project.records";

/** A committed change as the live updates hand it out. */
export interface CommittedChange {
  seq: number;
  project_id: number;
  change: ProjectChangeRecord;
  /** The project as of this change. */
  project: ProjectRecord;
}

/** One position of the log: a change, or void (a position an earlier version gave up). */
export interface ChangeLogEntry {
  seq: number;
  committed?: CommittedChange;
}

/** The counter whose values are the log's positions (db/id-allocator.ts). */
export const SEQUENCE = "project_changes";

function toEntry(doc: ProjectChangeLogDoc): ChangeLogEntry {
  if (isVoid(doc)) return { seq: doc.seq };
  return {
    seq: doc.seq,
    committed: {
      seq: doc.seq,
      project_id: doc.project_id,
      change: toChangeRecord(doc),
      project: toProjectRecord(doc.project),
    },
  };
}

export class ProjectChangeLog {
  private readonly listeners = new Set<(seq: number) => void>();

  constructor(
    private readonly changes: ProjectChangeModel,
    private readonly ids: IdAllocator,
  ) {}

  /** Calls `listener` after every change this instance commits; returns the function that stops it. */
  onCommit(listener: (seq: number) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Tells the listeners that this instance committed the change at `seq`. */
  committed(seq: number): void {
    for (const listener of this.listeners) listener(seq);
  }

  /** Takes the next position, in `session`'s transaction (so it commits with the change, or not at all). */
  position(session: ClientSession): Promise<number> {
    return this.ids.next(SEQUENCE, session);
  }

  /** Inserts the entry of a change, in `session`'s transaction. */
  async append(entry: ProjectChangeDoc, session: ClientSession): Promise<void> {
    await timedCommand(this.changes.db.getClient(), "insert", () =>
      this.changes.collection.insertOne(entry as never, { session }),
    );
  }

  /** Revision `revision` of a project, or null when none is stored. */
  revision(projectId: number, revision: number): Promise<ProjectChangeDoc | null> {
    return this.changes.findOne({ _id: revisionKey(projectId, revision) }).lean<ProjectChangeDoc>();
  }

  /** Revisions `from`…`to` of a project, in order, null where none is stored: one `$in` of their `_id`s. */
  async revisions(projectId: number, from: number, to: number): Promise<(ProjectChangeDoc | null)[]> {
    const keys: string[] = [];
    for (let n = from; n <= to; n++) keys.push(revisionKey(projectId, n));
    if (keys.length === 0) return [];
    const docs = await this.changes.find({ _id: { $in: keys } }).lean<ProjectChangeDoc[]>();
    const byKey = new Map(docs.map((doc) => [doc._id, doc]));
    return keys.map((key) => byKey.get(key) ?? null);
  }

  /**
   * Up to `limit` entries after position `seq`, in order; only: those of one project (`projectId`), those whose project
   * state meets a reader's row rule (`where`).
   */
  async after(
    seq: number,
    limit: number,
    only: { projectId?: number; where?: ProjectQuery } = {},
  ): Promise<ChangeLogEntry[]> {
    const filter: Record<string, unknown> = { seq: { $gt: seq } };
    if (only.projectId !== undefined) filter.project_id = only.projectId;
    // A reader's row rule on the project as of each change (an entry's project state is stored with it).
    for (const [field, condition] of Object.entries(only.where ?? {})) filter[`project.${field}`] = condition;
    const docs = await this.changes.find(filter).sort({ seq: 1 }).limit(limit).lean<ProjectChangeLogDoc[]>();
    return docs.map(toEntry);
  }

  /** The entry at position `seq`, or null when no entry is there. */
  async at(seq: number): Promise<ChangeLogEntry | null> {
    const doc = await this.changes.findOne({ seq }).lean<ProjectChangeLogDoc>();
    return doc ? toEntry(doc) : null;
  }

  /** The highest position taken so far (0 for an empty log). */
  async lastSeq(): Promise<number> {
    const doc = await this.changes.findOne({}, { seq: 1 }).sort({ seq: -1 }).lean<{ seq: number }>();
    return doc?.seq ?? 0;
  }
}
