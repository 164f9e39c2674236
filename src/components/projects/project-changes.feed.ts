// Live updates of projects: one feed per service instance reads the change log (project-changes.log.ts) and hands
// each committed change to the local subscribers, in log order. No broker and no sticky sessions: every instance
// reads the same log, so a change committed through any instance reaches subscribers on all of them.
//
// - One poller per instance reads the log from its head (the last position it has passed) every pollMs, and at
//   once when this instance commits a change. It advances one position at a time and never past an empty one; an
//   empty position with later ones filled is waited for, and after gapWaitMs filled with a void entry — see the
//   log's header for why that skips nothing whatever the timing.
// - A subscriber has a position. Live, it gets every matching change past its position as the poller passes it.
//   Resuming from a cursor, it first replays the log from the database in bounded batches (read only when it has
//   taken the previous batch), and joins the live stream the moment its position reaches the poller's head: in the
//   same synchronous step, so nothing falls between replay and live, and the live stream skips what replay gave.
// - A project's subscriber resuming from a revision replays that project's revisions by `_id`, holding the live
//   events that arrive meanwhile, then hands those over (per project, revision order is log order).
// - Bounded: a subscriber holds at most bufferEvents undelivered events; past that it is a slow consumer, the
//   transport disconnects it (onOverflow) and it may resume from its last cursor. Events are built once per change
//   and shared by every subscriber.
// - Row rules (ACCESS_POLICY): a subscriber gets only the changes whose project, as of the change, its read rule
//   lets it read (a predicate in its match); its replay reads the log with the rule in the query.
import { badRequest, FieldErrorReason, notFound } from "../../shared/errors";
import { validate } from "../../shared/validation";
import { z } from "zod";
import type { ChangeLogEntry, CommittedChange, ProjectChangeLog } from "./project-changes.log";
import { meets, restricts, UNRESTRICTED, type ProjectAccess, type ProjectQuery } from "./project.access";
import { decodeCursor, encodeCursor } from "./project-changes.cursor";
import { ProjectFilterSchema, ProjectIdArg, type ProjectFilter } from "./project.schemas";
import type { ProjectRecord } from "./project.records";

/** A change as subscribers receive it. */
export interface ProjectChangeEvent extends CommittedChange {
  /** Opaque; resume after this event with it. */
  cursor: string;
}

export interface ProjectChangeFeedOptions {
  /** How often the log is read for other instances' changes (SUBSCRIPTION_POLL_MS). */
  pollMs: number;
  /** How long an empty position is waited for before it is filled with a void entry. */
  gapWaitMs?: number;
  /** Undelivered events one subscriber may hold before it counts as a slow consumer. */
  bufferEvents?: number;
  /** Entries read from the log at once. */
  batch?: number;
  /** Told when polling fails (the feed retries at the next tick). */
  onError?: (err: unknown) => void;
}

export interface SubscriberHooks {
  /** The subscriber fell bufferEvents behind: disconnect it (it can resume from its last cursor). */
  onOverflow(): void;
}

const DEFAULTS = { gapWaitMs: 1000, bufferEvents: 256, batch: 100 };
/** While the poller waits at an empty position, it looks again this often instead of every pollMs. */
const GAP_RECHECK_MS = 25;
/** Positions read back when the feed starts, to begin below any still-empty one. */
const START_WINDOW = 1000;

const AfterRevisionArgs = ProjectIdArg.extend({
  after_revision: z
    .int({ error: "after_revision must be a whole number of at least 0" })
    .min(0, { error: "after_revision must be a whole number of at least 0" })
    .max(2_147_483_647, { error: "after_revision must be at most 2147483647" })
    .nullish(),
});

/** A project matches a filter when it does before or after the change: subscribers see projects enter and leave. */
function filterMatch(filter: ProjectFilter): (change: CommittedChange) => boolean {
  const fields = (["company_id", "project_status", "teacher_id"] as const).filter((f) => filter[f] != null);
  if (fields.length === 0) return () => true;
  return ({ project, change }) => {
    if (fields.every((f) => project[f] === filter[f])) return true;
    if (change.operation === "createProject") return false;
    return fields.every((f) => {
      const changed = change.changes.find((c) => c.field === f);
      return (changed ? changed.from : project[f] == null ? null : String(project[f])) === String(filter[f]);
    });
  };
}

/** `match`, and the caller's read rule on the project as of the change (unchanged when the rule restricts nothing). */
function readableMatch(
  match: (change: CommittedChange) => boolean,
  access: ProjectAccess,
): (change: CommittedChange) => boolean {
  if (!restricts(access.read)) return match;
  return (change) => meets(change.project, access.read) && match(change);
}

/** The read rule as the replay's filter on the log: undefined when it restricts nothing. */
function replayWhere(access: ProjectAccess): ProjectQuery | undefined {
  if (!restricts(access.read)) return undefined;
  return access.read ?? { project_id: { $in: [] } };
}

class Subscriber implements AsyncIterableIterator<ProjectChangeEvent> {
  /** Queued for the consumer, in order. */
  private readonly queue: ProjectChangeEvent[] = [];
  /** Live events held while a project's revisions are replayed (undefined: not holding). */
  held?: ProjectChangeEvent[];
  private wake?: () => void;
  private closed = false;
  /** Fills the queue from the database until it returns true (then the subscriber is live). */
  replay?: () => Promise<boolean>;

  constructor(
    private readonly feed: ProjectChangeFeed,
    /** The last log position this subscriber has passed (delivered, or skipped by its filter). */
    public position: number,
    readonly match: (change: CommittedChange) => boolean,
    private readonly hooks: SubscriberHooks,
    private readonly bufferEvents: number,
  ) {}

  [Symbol.asyncIterator](): this {
    return this;
  }

  /** A live event: queued (or held) unless this subscriber passed its position already. */
  offer(event: ProjectChangeEvent): void {
    if (this.closed || event.seq <= this.position) return;
    this.position = event.seq;
    if (!this.match(event)) return;
    const target = this.held ?? this.queue;
    if (this.queue.length + (this.held?.length ?? 0) >= this.bufferEvents) {
      this.close();
      this.hooks.onOverflow();
      return;
    }
    target.push(event);
    this.wake?.();
  }

  /** Replayed events (already in order, all past position). */
  push(event: ProjectChangeEvent): void {
    this.queue.push(event);
  }

  /** Hands the held events over (those the replay did not already give). */
  release(replayedUpTo: (event: ProjectChangeEvent) => boolean): void {
    const held = this.held ?? [];
    this.held = undefined;
    for (const event of held) if (!replayedUpTo(event)) this.queue.push(event);
  }

  async next(): Promise<IteratorResult<ProjectChangeEvent>> {
    for (;;) {
      const event = this.queue.shift();
      if (event) return { value: event, done: false };
      if (this.closed) return { value: undefined, done: true };
      if (this.replay) {
        if (await this.replay()) this.replay = undefined;
        continue;
      }
      await new Promise<void>((resolve) => (this.wake = resolve));
      this.wake = undefined;
    }
  }

  async return(): Promise<IteratorResult<ProjectChangeEvent>> {
    this.close();
    return { value: undefined, done: true };
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    this.queue.length = 0;
    this.held = undefined;
    this.feed.remove(this);
    this.wake?.();
  }

  get isClosed(): boolean {
    return this.closed;
  }
}

export class ProjectChangeFeed {
  private readonly options: Required<Omit<ProjectChangeFeedOptions, "onError">> &
    Pick<ProjectChangeFeedOptions, "onError">;
  private readonly live = new Set<Subscriber>();
  private readonly holes = new Map<number, number>();
  private started?: Promise<void>;
  private head = 0;
  private timer?: NodeJS.Timeout;
  private polling = false;
  private pollAgain = false;
  private stopped = false;
  private stopCommitListener?: () => void;

  constructor(
    private readonly log: ProjectChangeLog,
    private readonly projects: {
      get(projectId: number, options: { access: ProjectAccess }): Promise<ProjectRecord | null>;
    },
    options: ProjectChangeFeedOptions,
  ) {
    this.options = { ...DEFAULTS, ...options };
  }

  /** Subscribers on this instance. */
  get subscribers(): number {
    return this.live.size;
  }

  /**
   * Changes of every project matching `filter` (and `access`'s read rule): after the cursor `after` (replayed from the
   * log), else from now. BAD_REQUEST naming `after` when it is not a cursor of this log.
   */
  async subscribeAll(
    args: { filter?: ProjectFilter | null; after?: string | null },
    hooks: SubscriberHooks,
    access: ProjectAccess = UNRESTRICTED,
  ): Promise<AsyncIterableIterator<ProjectChangeEvent>> {
    const filter = validate(ProjectFilterSchema, args.filter ?? {});
    let from: number | undefined;
    if (args.after != null) {
      from = decodeCursor(args.after);
      if (from === undefined || !(await this.log.at(from))) {
        throw badRequest(
          "after is not a cursor of this service's change log: pass the cursor of an event you received, or leave after out to start from now",
          "after",
          FieldErrorReason.INVALID_CURSOR,
        );
      }
    }
    await this.start();
    const subscriber = this.subscriber(from ?? this.head, readableMatch(filterMatch(filter), access), hooks);
    const where = replayWhere(access);
    if (subscriber.position >= this.head) this.live.add(subscriber);
    else subscriber.replay = () => this.replayStep(subscriber, where);
    return subscriber;
  }

  /**
   * Changes of one project: its revisions after `after_revision` (replayed in order), then live; without it, from
   * now. NOT_FOUND when the project does not exist (or `access`'s read rule hides it); BAD_REQUEST when
   * after_revision is beyond its revision. Revisions the read rule hides are left out.
   */
  async subscribeProject(
    args: { projectId: number; after_revision?: number | null },
    hooks: SubscriberHooks,
    access: ProjectAccess = UNRESTRICTED,
  ): Promise<AsyncIterableIterator<ProjectChangeEvent>> {
    const { projectId, after_revision } = validate(AfterRevisionArgs, args);
    const project = await this.projects.get(projectId, { access });
    if (!project) throw notFound(`project ${projectId} does not exist`, "projectId");
    if (after_revision != null && after_revision > project.revision) {
      throw badRequest(
        `after_revision ${after_revision} is beyond project ${projectId}'s revision ${project.revision}`,
        "after_revision",
        FieldErrorReason.OUT_OF_RANGE,
      );
    }
    await this.start();
    const match = readableMatch((change) => change.project_id === projectId, access);
    const subscriber = this.subscriber(this.head, match, hooks);
    this.live.add(subscriber);
    // Even when after_revision is the revision just read: a change may have committed since, below the position the
    // subscriber joins the live stream at; the replay reads it (and finds nothing to do when none did).
    if (after_revision != null) {
      subscriber.held = [];
      const where = replayWhere(access);
      subscriber.replay = this.projectReplay(subscriber, projectId, after_revision, project.revision, where);
    }
    return subscriber;
  }

  /** Reads the log now (this instance committed a change). */
  nudge(): void {
    if (!this.started || this.stopped) return;
    clearTimeout(this.timer);
    void this.poll();
  }

  /** Stops polling and ends every subscription. */
  stop(): void {
    this.stopped = true;
    clearTimeout(this.timer);
    this.stopCommitListener?.();
    for (const subscriber of [...this.live]) subscriber.close();
  }

  remove(subscriber: Subscriber): void {
    this.live.delete(subscriber);
  }

  private subscriber(position: number, match: (change: CommittedChange) => boolean, hooks: SubscriberHooks) {
    if (this.stopped) throw new Error("the change feed is stopped");
    return new Subscriber(this, position, match, hooks, this.options.bufferEvents);
  }

  /** Starts polling at the first subscription: from the last position, or below the lowest still-empty one. */
  private start(): Promise<void> {
    this.started ??= (async () => {
      const last = await this.log.lastSeq();
      let head = Math.max(0, last - START_WINDOW);
      for (const entry of await this.log.after(head, START_WINDOW)) {
        if (entry.seq !== head + 1) break;
        head = entry.seq;
      }
      this.head = head;
      this.stopCommitListener = this.log.onCommit(() => this.nudge());
      void this.poll();
    })().catch((err: unknown) => {
      this.started = undefined;
      throw err;
    });
    return this.started;
  }

  private async poll(): Promise<void> {
    if (this.polling) {
      this.pollAgain = true;
      return;
    }
    this.polling = true;
    let blocked = false;
    try {
      do {
        this.pollAgain = false;
        for (;;) {
          const read = await this.readContiguous(this.head, this.options.batch);
          blocked = read.blocked;
          for (const entry of read.entries) {
            this.head = entry.seq;
            if (entry.committed) this.fanOut({ ...entry.committed, cursor: encodeCursor(entry.seq) });
          }
          if (read.entries.length < this.options.batch || this.stopped) break;
        }
      } while (this.pollAgain && !this.stopped);
    } catch (err) {
      this.options.onError?.(err);
    } finally {
      this.polling = false;
    }
    if (this.stopped) return;
    clearTimeout(this.timer);
    this.timer = setTimeout(() => void this.poll(), blocked ? GAP_RECHECK_MS : this.options.pollMs);
    this.timer.unref();
  }

  private fanOut(event: ProjectChangeEvent): void {
    for (const subscriber of this.live) subscriber.offer(event);
  }

  /**
   * Up to `limit` entries after position `after`, without a gap: stops before an empty position (blocked) that later
   * ones show is not simply the end of the log; fills it with a void entry once it stayed empty gapWaitMs.
   */
  private async readContiguous(
    after: number,
    limit: number,
    where?: ProjectQuery,
  ): Promise<{ entries: ChangeLogEntry[]; blocked: boolean }> {
    const entries: ChangeLogEntry[] = [];
    let position = after;
    while (entries.length < limit) {
      const read = await this.log.after(position, limit - entries.length, where);
      let hole: number | undefined;
      for (const entry of read) {
        if (entry.seq !== position + 1) {
          hole = position + 1;
          break;
        }
        entries.push(entry);
        position = entry.seq;
      }
      if (hole === undefined) break; // the end of the log (or the limit)
      const now = Date.now();
      const seen = this.holes.get(hole) ?? now;
      this.holes.set(hole, seen);
      if (now - seen < this.options.gapWaitMs) return { entries, blocked: true };
      // Either this void entry or the change wins the position; the next read sees which.
      await this.log.resolve(hole);
      this.holes.delete(hole);
    }
    for (const seq of this.holes.keys()) if (seq <= position) this.holes.delete(seq);
    return { entries, blocked: false };
  }

  /**
   * One batch of a cursor's replay; true once the subscriber has joined the live stream. `where`: the subscriber's
   * read rule, read with the log (the entries it hides read as void).
   */
  private async replayStep(subscriber: Subscriber, where?: ProjectQuery): Promise<boolean> {
    if (subscriber.isClosed) return true;
    if (subscriber.position >= this.head) {
      // Synchronously with the check: the poller hands out nothing between them.
      this.live.add(subscriber);
      return true;
    }
    const { entries, blocked } = await this.readContiguous(subscriber.position, this.options.batch, where);
    for (const entry of entries) {
      if (entry.seq <= subscriber.position) continue;
      subscriber.position = entry.seq;
      if (entry.committed && subscriber.match(entry.committed)) {
        subscriber.push({ ...entry.committed, cursor: encodeCursor(entry.seq) });
      }
    }
    if (entries.length === 0 && blocked) await new Promise((resolve) => setTimeout(resolve, GAP_RECHECK_MS));
    return false;
  }

  /**
   * Replays revisions after `after` of a project, in batches, up to what the live stream covers: revisions at or
   * below the subscriber's starting position. Revision 1 may be missing (projects stored before revisions existed).
   * `where`: the subscriber's read rule, read with the revisions; those it hides are passed over.
   */
  private projectReplay(subscriber: Subscriber, projectId: number, after: number, known: number, where?: ProjectQuery) {
    const joinedAt = subscriber.position;
    let next = after + 1;
    let lastReplayed = after;
    const finish = () => {
      subscriber.release((event) => event.change.revision <= lastReplayed);
      return true;
    };
    return async (): Promise<boolean> => {
      if (subscriber.isClosed) return true;
      const to = next + this.options.batch - 1;
      const changes = await this.log.committedRevisions(projectId, next, to, where);
      for (const [i, committed] of changes.entries()) {
        const revision = next + i;
        if (!committed) {
          if (revision <= known && revision === 1) continue;
          return finish();
        }
        if (committed.seq > joinedAt) return finish(); // the live stream (held meanwhile) has it
        if ("hidden" in committed) {
          lastReplayed = revision; // the live stream held none of it either (its match applies the same rule)
          continue;
        }
        subscriber.push({ ...committed, cursor: encodeCursor(committed.seq) });
        lastReplayed = revision;
      }
      next = to + 1;
      return false;
    };
  }
}
