// The change log of projects: every committed change at a position `seq` of one global order, read by the live
// updates (src/live, project-changes.feed.ts) and by a project's history. docs/live.md explains the protocol once;
// in short:
//
// - A writer takes a position from a counter (`$inc`, atomic on MongoDB and on the patched embedded FerretDB), then
//   changes the project with ONE conditional update that also requires the project's change_seq to be lower than
//   that position (so a project's changes are in the log in the order of their revisions), then inserts the entry
//   at its position. The entry's `_id` is "<project>:<revision>" and `seq` is unique.
// - Positions are handed out in one order but entries are inserted in another (two writers, two instances): a
//   reader never passes an empty position. A writer whose update did not match gives its position up at once (a void
//   entry). A position that stays empty for a bounded wait is resolved by the reader: if a project's change_seq names
//   it (its writer updated the project but has not inserted the entry, or died), the reader writes the entry from the
//   project; otherwise it inserts a void entry. Both are inserts under the unique `seq`: if the writer's insert comes
//   later it fails, and the writer moves its change to a new position, above every position a reader has passed.
import type { IdAllocator } from "../../db/id-allocator";
import { isDuplicateKeyError } from "../../db/id-allocator";
import { idKey } from "../../db/id-key";
import { timedCommand } from "../../db/command-timing";
import { missingNumbers, numberFieldOf } from "../../db/missing-numbers";
import { nameKey } from "../../shared/validation";
import {
  isVoid,
  voidKey,
  type ProjectChangeDoc,
  type ProjectChangeLogDoc,
  type ProjectChangeModel,
} from "./project-changes.model";
import type { ProjectQuery } from "./project.access";
import type { ProjectDoc, ProjectModel } from "./project.model";
import {
  changeEntry,
  revisionKey,
  stateOf,
  SYSTEM,
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

/** One position of the log: a change, or void (a position no change took, or one a reader's row rule hides). */
export interface ChangeLogEntry {
  seq: number;
  committed?: CommittedChange;
}

/** A committed revision a reader's row rule hides: only its position is read. */
export interface HiddenChange {
  hidden: true;
  seq: number;
}

/** A row rule on projects (project.access.ts) as a filter on log entries: on the project's state each one holds. */
function onLoggedProject(where: ProjectQuery): Record<string, unknown> {
  return Object.fromEntries(Object.entries(where).map(([field, condition]) => [`project.${field}`, condition]));
}

/** The counter whose values are the log's positions (db/id-allocator.ts). */
const SEQUENCE = "project_changes";

/** Positions tried for one entry: each failure means a reader resolved the position first (a very slow writer). */
const MAX_POSITION_ATTEMPTS = 10;

/** Projects read, and revisions looked up, in one query when the projects catch up with the log. */
const CATCH_UP_PAGE = 500;

function ignoreDuplicate(err: unknown): void {
  if (!isDuplicateKeyError(err)) throw err;
}

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
  ) {}

  /** Calls `listener` after every change this instance commits; returns the function that stops it. */
  onCommit(listener: (seq: number) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** A new position (one counter step). */
  position(): Promise<number> {
    return this.ids.next(SEQUENCE);
  }

  /** An insert sent through the driver (no Mongoose casting), timed for GET /metrics as the models' operations are. */
  private insert<T>(run: () => Promise<T>): Promise<T> {
    return timedCommand(this.changes.db.getClient(), "insert", run);
  }

  /** Gives a position up for no change (its writer's update did not match), so readers need not wait for it. */
  async giveUp(seq: number): Promise<void> {
    await this.fillVoid(seq).catch(() => undefined);
  }

  /**
   * Inserts the entry of a change the project already holds at change_seq = entry.seq. When a reader resolved that
   * position first (a writer slower than the readers' wait), the change moves to a new position. Returns its position.
   */
  async record(entry: ProjectChangeDoc): Promise<number> {
    let seq = entry.seq;
    for (let attempt = 1; ; attempt++) {
      try {
        await this.insert(() => this.changes.collection.insertOne({ ...entry, seq } as never));
        break;
      } catch (err) {
        if (!isDuplicateKeyError(err)) throw err;
        // The reader wrote this very entry from the project (same `_id`): it is in the log.
        const present = await this.changes.findOne({ _id: entry._id }, { seq: 1 }).lean<{ seq: number }>();
        if (present) {
          seq = present.seq;
          break;
        }
        if (attempt >= MAX_POSITION_ATTEMPTS) throw err;
        const next = await this.position();
        // Only while no later change of the project built on this one (its position would be below ours).
        await this.projects.updateOne(
          { _id: idKey(entry.project_id), change_seq: seq },
          { $set: { change_seq: next } },
          { timestamps: false },
        );
        seq = next;
      }
    }
    for (const listener of this.listeners) listener(seq);
    return seq;
  }

  /**
   * Resolves a position that stayed empty: writes the entry of the change a project holds there (its writer updated
   * the project but did not insert the entry yet, or died), or else claims it for no change.
   */
  async resolve(seq: number): Promise<void> {
    const project = await this.projects.findOne({ change_seq: seq }).lean<ProjectDoc>();
    if (project && !(await this.changes.exists({ _id: revisionKey(project.project_id, project.revision) }))) {
      const after = stateOf(project);
      const previous = project.revision > 1 ? await this.revision(project.project_id, project.revision - 1) : null;
      // Who made it is not stored beside the project: the entry says the service wrote it.
      const entry = changeEntry(
        "createProject",
        SYSTEM,
        project.revision > 1 ? (previous?.project ?? after) : null,
        after,
        seq,
      );
      if (project.revision > 1) {
        entry.operation = entry.changes.some((c) => c.field === "teacher_id") ? "assignTeacher" : "updateProjectStatus";
      }
      // A duplicate: its writer inserted it meanwhile.
      await this.insert(() => this.changes.collection.insertOne(entry as never)).catch(ignoreDuplicate);
      return;
    }
    await this.fillVoid(seq);
  }

  /**
   * Resolves every empty position up to the last one handed out, as readers do one at a time after their wait: on a
   * database no writer is using (a backup's snapshot, a restored backup), where a writer caught between its update
   * and its insert will never insert. Then every project equals its newest revision in the log and no reader waits.
   * Returns how many positions it resolved.
   */
  async settle(): Promise<number> {
    const empty = await this.emptyPositions(0, await this.ids.current(SEQUENCE));
    for (const seq of empty) await this.resolve(seq);
    return empty.length;
  }

  /** The empty positions in (after, upTo] (db/missing-numbers.ts: a few indexed counts on `seq`). */
  private emptyPositions(after: number, upTo: number): Promise<number[]> {
    return missingNumbers(numberFieldOf(this.changes, "seq"), after, upTo);
  }

  /**
   * Brings the projects up to the log, on a copy read while it was being written (db:backup through MONGODB_URI reads
   * the projects before the log): a change made meanwhile can be in the log and not in its project, and a project
   * created meanwhile only in the log. A project whose next revision is in the log gets the state its newest entry
   * holds (entries hold the whole project); an id the counter handed out that no project holds, whose creation is in
   * the log, is written from its newest entry. Reads the projects in pages by project_id with one `$in` of their next
   * revisions each, and finds the absent ids by counting. Returns how many projects it wrote.
   */
  async catchUpProjects(): Promise<number> {
    let written = 0;
    for (let last = 0; ;) {
      const page = await this.projects
        .find({ project_id: { $gt: last } }, { project_id: 1, revision: 1 })
        .sort({ project_id: 1 })
        .limit(CATCH_UP_PAGE)
        .lean<{ project_id: number; revision: number }[]>();
      if (page.length === 0) break;
      last = page[page.length - 1].project_id;
      const ahead = await this.changes
        .find(
          { _id: { $in: page.map((p) => revisionKey(p.project_id, p.revision + 1)) } },
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
    const doc = { _id: idKey(projectId), ...state, name_key: nameKey(state.project_name), change_seq: newest.seq };
    await timedCommand(this.projects.db.getClient(), "update", () =>
      this.projects.collection.replaceOne({ _id: idKey(projectId) } as never, doc as never, { upsert: true }),
    );
  }

  /**
   * Commits changes at consecutive new positions, in the order given, with one counter step and one unordered insert
   * (the revision migration's batches). A change whose revision is in the log already (copied by an interrupted
   * earlier start, or by another instance) stays as it is and its position is voided at once. Returns how many were
   * committed.
   */
  async appendAll(changes: Omit<ProjectChangeDoc, "seq">[]): Promise<number> {
    if (changes.length === 0) return 0;
    const first = await this.ids.reserve(SEQUENCE, changes.length);
    const docs = changes.map((change, i) => ({ ...change, seq: first + i }));
    const failed = await this.insert(() =>
      this.changes.collection.insertMany(docs as never[], { ordered: false }),
    ).then(
      () => [],
      (err: unknown) => {
        if (!isDuplicateKeyError(err)) throw err;
        const { writeErrors } = err as { writeErrors?: { index: number } | { index: number }[] };
        return [writeErrors ?? []].flat().map((e) => e.index);
      },
    );
    await this.fillVoids(failed.map((index) => docs[index].seq));
    for (const listener of this.listeners) listener(docs[docs.length - 1].seq);
    return docs.length - failed.length;
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

  /**
   * Revisions `from`…`to` of a project, in order, null where none is stored: one `$in` of their `_id`s. With `where`
   * (a reader's row rule), only those whose project state meets it; null for the others too.
   */
  async revisions(
    projectId: number,
    from: number,
    to: number,
    where?: ProjectQuery,
  ): Promise<(ProjectChangeDoc | null)[]> {
    const keys: string[] = [];
    for (let n = from; n <= to; n++) keys.push(revisionKey(projectId, n));
    if (keys.length === 0) return [];
    const filter = where ? { _id: { $in: keys }, ...onLoggedProject(where) } : { _id: { $in: keys } };
    const docs = await this.changes.find(filter).lean<ProjectChangeDoc[]>();
    const byKey = new Map(docs.map((doc) => [doc._id, doc]));
    return keys.map((key) => byKey.get(key) ?? null);
  }

  /**
   * Revisions `from`…`to` of a project as committed changes; null where none is stored. With `where` (a reader's row
   * rule, read in the same query), a stored revision whose project state does not meet it is a HiddenChange: its
   * position only (one more query, of the positions of the revisions the first did not return).
   */
  async committedRevisions(
    projectId: number,
    from: number,
    to: number,
    where?: ProjectQuery,
  ): Promise<(CommittedChange | HiddenChange | null)[]> {
    const docs = await this.revisions(projectId, from, to, where);
    const committed = docs.map((doc) => (doc ? toEntry(doc).committed! : null));
    if (!where || !committed.includes(null)) return committed;
    const key = (i: number) => revisionKey(projectId, from + i);
    const positions = await this.positionsOf(committed.flatMap((c, i) => (c ? [] : [key(i)])));
    return committed.map((c, i) => {
      const seq = positions.get(key(i));
      return c ?? (seq === undefined ? null : { hidden: true, seq });
    });
  }

  /**
   * Up to `limit` entries after position `seq`, in order. Positions may be missing (see the header). With `where` (a
   * reader's row rule), every position is still read (a reader passes each one), but only the entries whose project
   * state meets the rule are read in whole, by the same range in a second query: the others read as void.
   */
  async after(seq: number, limit: number, where?: ProjectQuery): Promise<ChangeLogEntry[]> {
    if (where) return this.afterWhere(seq, limit, where);
    const docs = await this.changes
      .find({ seq: { $gt: seq } })
      .sort({ seq: 1 })
      .limit(limit)
      .lean<ProjectChangeLogDoc[]>();
    return docs.map(toEntry);
  }

  private async afterWhere(seq: number, limit: number, where: ProjectQuery): Promise<ChangeLogEntry[]> {
    const positions = await this.changes
      .find({ seq: { $gt: seq } }, { seq: 1 })
      .sort({ seq: 1 })
      .limit(limit)
      .lean<{ seq: number }[]>();
    if (positions.length === 0) return [];
    const docs = await this.changes
      .find({ seq: { $gt: seq, $lte: positions[positions.length - 1].seq }, ...onLoggedProject(where) })
      .sort({ seq: 1 })
      .lean<ProjectChangeLogDoc[]>();
    const entries = new Map(docs.map((doc) => [doc.seq, toEntry(doc)]));
    return positions.map((position) => entries.get(position.seq) ?? { seq: position.seq });
  }

  /** The entry at position `seq`, or null when the position is empty. */
  async at(seq: number): Promise<ChangeLogEntry | null> {
    const doc = await this.changes.findOne({ seq }).lean<ProjectChangeLogDoc>();
    return doc ? toEntry(doc) : null;
  }

  /** The highest position taken so far (0 for an empty log). */
  async lastSeq(): Promise<number> {
    const doc = await this.changes.findOne({}, { seq: 1 }).sort({ seq: -1 }).lean<{ seq: number }>();
    return doc?.seq ?? 0;
  }

  /** Claims each of the positions for no change, in one insert. */
  private async fillVoids(seqs: number[]): Promise<void> {
    if (seqs.length === 0) return;
    const voids = seqs.map((seq) => ({ _id: voidKey(seq), seq, void: true }));
    await this.insert(() => this.changes.collection.insertMany(voids as never[], { ordered: false })).catch(
      ignoreDuplicate,
    );
  }

  /** Claims position `seq` for no change; false when a change (or another reader) took it first. */
  async fillVoid(seq: number): Promise<boolean> {
    try {
      await this.insert(() => this.changes.collection.insertOne({ _id: voidKey(seq), seq, void: true } as never));
      return true;
    } catch (err) {
      if (isDuplicateKeyError(err)) return false;
      throw err;
    }
  }
}
