// Live updates of projects: one feed per service instance reads the change log (project-changes.log.ts) and hands
// each committed change to the local subscribers, in log order. No broker and no sticky sessions: every instance
// reads the same log, so a change committed through any instance reaches subscribers on all of them.
//
// - One poller per instance reads the log from its head (the last position it has passed) every pollMs, and at
//   once when this instance commits a change. Positions become readable in order with no gap (each change commits
//   with its entry in one transaction: the log's header), so the poller never waits at a position.
// - A subscriber has a position. Live, it gets every matching change past its position as the poller passes it.
//   Resuming from a cursor, it first replays the log from the database in bounded batches (read only when it has
//   taken the previous batch), and joins the live stream the moment its position reaches the poller's head: in the
//   same synchronous step, so nothing falls between replay and live, and the live stream skips what replay gave.
// - A project's subscriber resuming from a revision starts at that revision's position and replays the project's
//   entries after it (one index: project_id, seq), as any subscriber does (a project's revisions are in the log in
//   revision order).
// - Row rules (ACCESS_POLICY): a subscriber gets only the changes whose project, as of the change, meets its caller's
//   read rule; live, checked on the event; in replay, read with the log (the rule on the entry's project state), so
//   hidden entries are never read in whole.
// - Bounded: a subscriber holds at most bufferEvents undelivered events; past that it is a slow consumer, the
//   transport disconnects it (onOverflow) and it may resume from its last cursor. Events are built once per change
//   and shared by every subscriber.
import { badRequest, FieldErrorReason, notFound } from "../../shared/errors";
import { validate } from "../../shared/validation";
import { z } from "zod";
import type { CommittedChange, ProjectChangeLog } from "./project-changes.log";
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

const DEFAULTS = { bufferEvents: 256, batch: 100 };

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
  private wake?: () => void;
  private closed = false;
  /** Fills the queue from the database until it returns true (then the subscriber is live). */
  replay?: () => Promise<boolean>;

  constructor(
    private readonly feed: ProjectChangeFeed,
    /** The last log position this subscriber has passed (delivered, or skipped by its filter). */
    public position: number,
    readonly match: (change: CommittedChange) => boolean,
    /** The one project it follows, if it follows one (its replay reads that project's entries only). */
    readonly projectId: number | undefined,
    /** The caller's read rule, read with the log in replay (entries it hides are passed over). */
    readonly where: ProjectQuery | undefined,
    private readonly hooks: SubscriberHooks,
    private readonly bufferEvents: number,
  ) {}

  [Symbol.asyncIterator](): this {
    return this;
  }

  /** A live event: queued unless this subscriber passed its position already. */
  offer(event: ProjectChangeEvent): void {
    if (this.closed || event.seq <= this.position) return;
    this.position = event.seq;
    if (!this.match(event)) return;
    if (this.queue.length >= this.bufferEvents) {
      this.close();
      this.hooks.onOverflow();
      return;
    }
    this.queue.push(event);
    this.wake?.();
  }

  /** Replayed events (already in order, all past position). */
  push(event: ProjectChangeEvent): void {
    this.queue.push(event);
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
    const match = readableMatch(filterMatch(filter), access);
    return this.subscribe(from ?? this.head, match, undefined, replayWhere(access), hooks);
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
    // From that revision's position (0 when the log lacks it: revision 1 of a project stored before the log); even
    // when after_revision is the revision just read, a change may have committed since: the replay reads it.
    const from = after_revision == null ? this.head : ((await this.log.revision(projectId, after_revision))?.seq ?? 0);
    const match = readableMatch(
      (change) => change.project_id === projectId && change.change.revision > (after_revision ?? 0),
      access,
    );
    return this.subscribe(from, match, projectId, replayWhere(access), hooks);
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

  /** A subscriber from `position`: live at once when that is the head, else after replaying up to it. */
  private subscribe(
    position: number,
    match: (change: CommittedChange) => boolean,
    projectId: number | undefined,
    where: ProjectQuery | undefined,
    hooks: SubscriberHooks,
  ): Subscriber {
    if (this.stopped) throw new Error("the change feed is stopped");
    const subscriber = new Subscriber(this, position, match, projectId, where, hooks, this.options.bufferEvents);
    if (subscriber.position >= this.head) this.live.add(subscriber);
    else subscriber.replay = () => this.replayStep(subscriber);
    return subscriber;
  }

  /** Starts polling at the first subscription, from the last position. */
  private start(): Promise<void> {
    this.started ??= (async () => {
      this.head = await this.log.lastSeq();
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
    try {
      do {
        this.pollAgain = false;
        for (;;) {
          const entries = await this.log.after(this.head, this.options.batch);
          for (const entry of entries) {
            this.head = entry.seq;
            if (entry.committed) this.fanOut({ ...entry.committed, cursor: encodeCursor(entry.seq) });
          }
          if (entries.length < this.options.batch || this.stopped) break;
        }
      } while (this.pollAgain && !this.stopped);
    } catch (err) {
      this.options.onError?.(err);
    } finally {
      this.polling = false;
    }
    if (this.stopped) return;
    clearTimeout(this.timer);
    this.timer = setTimeout(() => void this.poll(), this.options.pollMs);
    this.timer.unref();
  }

  private fanOut(event: ProjectChangeEvent): void {
    for (const subscriber of this.live) subscriber.offer(event);
  }

  /** One batch of a cursor's replay; true once the subscriber has joined the live stream. */
  private async replayStep(subscriber: Subscriber): Promise<boolean> {
    if (subscriber.isClosed) return true;
    if (subscriber.position >= this.head) {
      // Synchronously with the check: the poller hands out nothing between them.
      this.live.add(subscriber);
      return true;
    }
    const head = this.head;
    const { projectId, where } = subscriber;
    const entries = await this.log.after(subscriber.position, this.options.batch, { projectId, where });
    // A replay reads only the entries it may deliver (a project's, those its read rule shows): past the last one, it
    // has passed every position up to the head.
    if (entries.length === 0) subscriber.position = head;
    for (const entry of entries) {
      if (entry.seq <= subscriber.position) continue;
      subscriber.position = entry.seq;
      if (entry.committed && subscriber.match(entry.committed)) {
        subscriber.push({ ...entry.committed, cursor: encodeCursor(entry.seq) });
      }
    }
    return false;
  }
}
