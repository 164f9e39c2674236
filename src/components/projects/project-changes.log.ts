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
import { isDuplicateKeyError, type IdAllocator } from "../../db/id-allocator";
import { idKey } from "../../db/id-key";
import { timedCommand } from "../../db/command-timing";
import { missingNumbers, numberFieldOf } from "../../db/missing-numbers";
import type { Transactions } from "../../db/transactions";
import { nameKey } from "../../shared/validation";
import {
  isVoid,
  type ProjectChangeDoc,
  type ProjectChangeLogDoc,
  type ProjectChangeModel,
} from "./project-changes.model";
import type { ProjectQuery } from "./project.access";
import type { ProjectModel } from "./project.model";
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
const SEQUENCE = "project_changes";

/** Projects read, and revisions looked up, in one query when the projects catch up with the log. */
const CATCH_UP_PAGE = 500;

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
    private readonly projects: ProjectModel,
    private readonly ids: IdAllocator,
    private readonly transactions: Transactions,
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

  /**
   * Commits changes at consecutive new positions, in the order given, in one transaction: one counter step and one
   * insert (the revision migration's batches). A change whose revision is in the log already (copied by an
   * interrupted earlier start, or by another instance) is left out. Returns how many were committed.
   */
  async appendAll(changes: Omit<ProjectChangeDoc, "seq">[]): Promise<number> {
    for (;;) {
      const present = await this.positionsOf(changes.map((change) => change._id));
      const missing = changes.filter((change) => !present.has(change._id));
      if (missing.length === 0) return 0;
      try {
        const last = await this.transactions.run(async (session) => {
          const first = await this.ids.reserve(SEQUENCE, missing.length, session);
          const docs = missing.map((change, i) => ({ ...change, seq: first + i }));
          await timedCommand(this.changes.db.getClient(), "insert", () =>
            this.changes.collection.insertMany(docs as never[], { session }),
          );
          return first + missing.length - 1;
        });
        this.committed(last);
        return missing.length;
      } catch (err) {
        // Another instance committed some of them meanwhile (nothing of this transaction stayed): look again.
        if (!isDuplicateKeyError(err)) throw err;
      }
    }
  }

  /**
   * Brings the projects up to the log, where a project can be behind it: on a copy read while it was being written
   * (db:backup through MONGODB_URI reads the projects before the log: a change made meanwhile can be in the log and
   * not in its project, and a project created meanwhile only in the log), and on a database written by a version
   * whose writers could die between their two writes (migration.ts). A project whose next revision is in the log gets
   * the state its newest entry holds (entries hold the whole project); one stored without a revision (before
   * revisions existed) gets revision 1; an id the counter handed out that no project holds, whose creation is in the
   * log, is written from its newest entry. Reads the projects in pages by project_id with one `$in` of their next
   * revisions each, and finds the absent ids by counting. Returns how many projects it brought up to the log.
   */
  async catchUpProjects(): Promise<number> {
    let written = 0;
    for (let last = 0; ;) {
      const page = await this.projects
        .find({ project_id: { $gt: last } }, { project_id: 1, revision: 1 })
        .sort({ project_id: 1 })
        .limit(CATCH_UP_PAGE)
        .lean<{ project_id: number; revision?: number | null }[]>();
      if (page.length === 0) break;
      last = page[page.length - 1].project_id;
      for (const { project_id } of page.filter((p) => p.revision == null)) {
        // By `_id`, one by one (rare): a filter on the field's absence would read every project on the embedded FerretDB.
        await this.projects.updateOne({ _id: idKey(project_id) }, { $set: { revision: 1 } }, { timestamps: false });
      }
      const ahead = await this.changes
        .find(
          { _id: { $in: page.map((p) => revisionKey(p.project_id, (p.revision ?? 1) + 1)) } },
          { project_id: 1, revision: 1 },
        )
        .lean<{ project_id: number; revision: number }[]>();
      for (const { project_id, revision } of ahead) {
        await this.writeProjectFromLog(project_id, revision);
        written++;
      }
    }
    const absent = await missingNumbers(
      numberFieldOf(this.projects, "project_id"),
      0,
      await this.ids.current("projects"),
    );
    for (let i = 0; i < absent.length; i += CATCH_UP_PAGE) {
      const ids = absent.slice(i, i + CATCH_UP_PAGE);
      const created = await this.changes
        .find({ _id: { $in: ids.map((id) => revisionKey(id, 1)) } }, { project_id: 1 })
        .lean<{ project_id: number }[]>();
      for (const { project_id } of created) {
        await this.writeProjectFromLog(project_id, 1);
        written++;
      }
    }
    return written;
  }

  /** Writes project `projectId` as its newest entry in the log holds it (revision `from` or later is there). */
  private async writeProjectFromLog(projectId: number, from: number): Promise<void> {
    let newest: ProjectChangeDoc | undefined;
    for (let first = from; ; first += CATCH_UP_PAGE) {
      const found = await this.revisions(projectId, first, first + CATCH_UP_PAGE - 1);
      const present = found.filter((doc): doc is ProjectChangeDoc => doc !== null);
      if (present.length > 0) newest = present[present.length - 1];
      if (found[found.length - 1] === null) break;
    }
    if (!newest) return;
    const state = newest.project;
    // As the service stores a project (change_seq: its schema's default, no longer written otherwise).
    const doc = { _id: idKey(projectId), ...state, name_key: nameKey(state.project_name), change_seq: null };
    await timedCommand(this.projects.db.getClient(), "update", () =>
      this.projects.collection.replaceOne({ _id: idKey(projectId) } as never, doc as never, { upsert: true }),
    );
  }

  /** Brings the counter of positions up to the log's highest (positions written by versions before it was atomic). */
  async catchUpCounter(): Promise<void> {
    const last = await this.lastSeq();
    if (last > 0) await this.ids.atLeast(SEQUENCE, last);
  }

  /** The positions of those of the revisions (`_id`s "<project>:<revision>") that the log holds. */
  async positionsOf(keys: string[]): Promise<Map<string, number>> {
    const docs = await this.changes.find({ _id: { $in: keys } }, { seq: 1 }).lean<{ _id: string; seq: number }[]>();
    return new Map(docs.map((doc) => [doc._id, doc.seq]));
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
