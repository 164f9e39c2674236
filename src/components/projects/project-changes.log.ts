// The change log of projects: every committed change at a position `seq` of one global order, read by the live
// updates (src/live, project-changes.feed.ts) and by a project's history.
//
// Why correctness rests only on inserts under unique keys (the one thing FerretDB 1.24 decides atomically):
//
// - A change is committed by ONE insert that claims two unique keys at once: `_id` = "<project>:<revision>" (the
//   revision: of concurrent changes of one project exactly one wins, as before) and `seq` (its log position).
// - On a duplicate key the writer looks `_id` up. Present: it lost the revision race, so it re-reads the project and
//   re-decides (project.repository.ts). Absent: only the position was taken; it takes a higher one and inserts again.
// - Positions come from a counter (a hint: `$inc` is not atomic on FerretDB, two writers may get the same number;
//   the unique index decides) and are never lower than the position of the revision the change builds on + 1, so a
//   project's revisions are in the same order in the log as their numbers.
// - Readers advance through positions one by one and never past an empty one. A position may be empty because its
//   writer is between taking the number and inserting, or died there, or lost its race. After a bounded wait a
//   reader inserts a void entry at that position (`_id` "void:<seq>", the same unique `seq`). That insert is atomic:
//   either the writer's insert came first (the reader then reads the change), or the void entry did, and the
//   writer's insert fails on the duplicate `seq` and retries at a higher position — one that no reader has passed,
//   because every position up to any reader's cursor is filled. So nothing is skipped whatever the timing; the
//   wait only trades latency against writers' retries. A writer that loses its revision race fills its own position
//   with a void entry at once, so readers rarely wait.
import type { IdAllocator } from "../../db/id-allocator";
import { isDuplicateKeyError } from "../../db/id-allocator";
import {
  isVoid,
  voidKey,
  type ProjectChangeDoc,
  type ProjectChangeLogDoc,
  type ProjectChangeModel,
} from "./project-changes.model";
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

/** One position of the log: a change, or void (a position no change took). */
export interface ChangeLogEntry {
  seq: number;
  committed?: CommittedChange;
}

/** The counter whose values are the hints for new positions (db/id-allocator.ts). */
const SEQUENCE = "project_changes";

/**
 * The most documents one ordered insert sends. FerretDB 1.24 inserts in batches of 100 and, after a duplicate key,
 * goes on with the next batch although the insert is ordered (internal/handler/msg_insert.go: its `break` leaves only
 * the batch); an insert of at most one batch stops at the duplicate, as MongoDB does.
 */
const ORDERED_INSERT_MAX = 100;

/** Positions tried for one change before giving up (each failure means another change took that position). */
const MAX_POSITION_ATTEMPTS = 50;

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

  /**
   * Commits a change at a new position above `floor`: returns its position, or undefined when the revision was
   * taken by another change (the caller re-reads and re-decides).
   */
  async append(change: Omit<ProjectChangeDoc, "seq">, floor: number): Promise<number | undefined> {
    let seq = Math.max(await this.ids.next(SEQUENCE), floor);
    for (let attempt = 1; ; attempt++) {
      try {
        await this.changes.create({ ...change, seq });
      } catch (err) {
        if (!isDuplicateKeyError(err)) throw err;
        if (await this.changes.exists({ _id: change._id })) {
          // Lost the revision: give the position up at once, so readers need not wait for it.
          await this.fillVoid(seq).catch(() => undefined);
          return undefined;
        }
        if (attempt >= MAX_POSITION_ATTEMPTS) throw err;
        seq = Math.max(await this.ids.next(SEQUENCE), seq + 1);
        continue;
      }
      for (const listener of this.listeners) listener(seq);
      return seq;
    }
  }

  /**
   * Commits changes at consecutive new positions, in the order given, with one counter step and ordered inserts of
   * up to ORDERED_INSERT_MAX each (the revision migration's batches). The positions start above `above` (the highest the caller holds), or none is
   * used. Returns the positions of the changes committed, from the first on: fewer than given when an insert met a
   * duplicate key (a revision there already, a position taken), and the caller appends the rest one by one. The
   * positions of the block left unused are voided at once, so readers need not wait for them.
   */
  async appendAll(changes: Omit<ProjectChangeDoc, "seq">[], above: number): Promise<number[]> {
    if (changes.length === 0) return [];
    const first = await this.ids.reserve(SEQUENCE, changes.length);
    const docs = changes.map((change, i) => ({ ...change, seq: first + i }));
    // A counter behind positions already held (two non-atomic counter steps at once, on FerretDB): none is used.
    let committed = 0;
    // In order, stopping at the first duplicate: what comes after it is appended one by one, above it.
    for (let from = 0; first > above && from < docs.length; from += ORDERED_INSERT_MAX) {
      const part = docs.slice(from, from + ORDERED_INSERT_MAX);
      try {
        await this.changes.insertMany(part, { ordered: true, lean: true });
        committed += part.length;
      } catch (err) {
        if (!isDuplicateKeyError(err)) throw err;
        committed += insertedBeforeFailure(err);
        break;
      }
    }
    const seqs = docs.slice(0, committed).map((doc) => doc.seq);
    await this.fillVoids(docs.slice(committed).map((doc) => doc.seq));
    if (seqs.length > 0) for (const listener of this.listeners) listener(seqs[seqs.length - 1]);
    return seqs;
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

  /** Revisions `from`…`to` of a project as committed changes; null where none is stored. */
  async committedRevisions(projectId: number, from: number, to: number): Promise<(CommittedChange | null)[]> {
    const docs = await this.revisions(projectId, from, to);
    return docs.map((doc) => (doc ? toEntry(doc).committed! : null));
  }

  /** Up to `limit` entries after position `seq`, in order. Positions may be missing (see the header). */
  async after(seq: number, limit: number): Promise<ChangeLogEntry[]> {
    const docs = await this.changes
      .find({ seq: { $gt: seq } })
      .sort({ seq: 1 })
      .limit(limit)
      .lean<ProjectChangeLogDoc[]>();
    return docs.map(toEntry);
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

  /** Claims each of the positions for no change, in one insert; those a change (or a reader) took stay as they are. */
  private async fillVoids(seqs: number[]): Promise<void> {
    if (seqs.length === 0) return;
    const voids = seqs.map((seq) => ({ _id: voidKey(seq), seq, void: true }));
    await this.changes.collection.insertMany(voids as never[], { ordered: false }).catch((err: unknown) => {
      if (!isDuplicateKeyError(err)) throw err;
    });
  }

  /** Claims position `seq` for no change; false when a change (or another reader) took it first. */
  async fillVoid(seq: number): Promise<boolean> {
    try {
      await this.changes.collection.insertOne({ _id: voidKey(seq), seq, void: true } as never);
      return true;
    } catch (err) {
      if (isDuplicateKeyError(err)) return false;
      throw err;
    }
  }
}

/** How many documents of an ordered insert went in before the one that failed (0 when the error does not say). */
function insertedBeforeFailure(err: unknown): number {
  const { writeErrors } = err as { writeErrors?: { index?: number } | { index?: number }[] };
  const first = Array.isArray(writeErrors) ? writeErrors[0] : writeErrors;
  return typeof first?.index === "number" ? first.index : 0;
}
