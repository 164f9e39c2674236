// Turns to write, for the writes of one process on a database that writes one transaction at a time (the embedded
// FerretDB: docs/database.md, "Isolation"). A write waiting there for another's transaction holds a connection of
// the driver's pool: enough of them waiting would leave the transaction they wait for no connection for its next
// command, and every instance of the service would wait for the others until their time limits. So at most `atOnce`
// writes of a process go to the database at once (transactions and single writes alike); the others wait here, in
// arrival order, holding no connection, each until its deadline. Several instances on one database then each have at
// most one write waiting at the database, and the database's own gate serves them in arrival order.
//
// A write that cannot get its turn in time is shed: an `overloaded` DomainError (HTTP 503 with Retry-After), never
// an internal error, counted for GET /metrics (onShed). So is one that finds `maxWaiting` writes already waiting:
// the queue is bounded, so a burst far past what the database takes is refused at once instead of each request
// waiting its whole budget for nothing.
import { overloaded } from "../shared/errors";

/** Why a write was shed: the queue was full, or its turn did not come before its deadline. */
export type ShedReason = "queue_full" | "no_turn" | "conflicts";

/** Seconds a shed write's client is told to wait before it sends the change again. */
export const SHED_RETRY_AFTER_SECONDS = 1;

/** Writes of a process waiting for their turn at most (the queue's bound): about 5 s of changes at 250 a second. */
export const DEFAULT_MAX_WAITING = 1000;

export class WriteTurns {
  private running = 0;
  private readonly waiting: ((failed?: Error) => void)[] = [];
  private readonly shedListeners = new Set<(reason: ShedReason) => void>();

  constructor(
    /** How many writes of this process go to the database at once; Infinity: no turns (MongoDB). */
    readonly atOnce: number,
    /** How many may wait for their turn at once; past it a write is shed at once. */
    readonly maxWaiting = DEFAULT_MAX_WAITING,
  ) {}

  /** Tells `listener` of every write shed; returns the function that stops it. */
  onShed(listener: (reason: ShedReason) => void): () => void {
    this.shedListeners.add(listener);
    return () => this.shedListeners.delete(listener);
  }

  /** The overloaded error for `reason` (reported to the listeners), for a caller that sheds a write itself. */
  shed(reason: ShedReason, message: string, cause?: unknown): Error {
    for (const listener of this.shedListeners) listener(reason);
    return overloaded(message, SHED_RETRY_AFTER_SECONDS, cause);
  }

  /** Waits for a turn until `deadline` (performance.now()); returns the function that gives it back. */
  async take(deadline: number): Promise<() => void> {
    if (this.running < this.atOnce) {
      this.running++;
      return this.release;
    }
    if (this.waiting.length >= this.maxWaiting) {
      throw this.shed("queue_full", `too many changes are waiting for the database (${this.waiting.length}); retry`);
    }
    await new Promise<void>((resolve, reject) => {
      const turn = (failed?: Error) => {
        clearTimeout(timer);
        if (failed) reject(failed);
        else resolve();
      };
      const timer = setTimeout(
        () => {
          this.waiting.splice(this.waiting.indexOf(turn), 1);
          reject(this.shed("no_turn", "the change did not get its turn at the database in time; retry"));
        },
        Math.max(0, deadline - performance.now()),
      );
      this.waiting.push(turn);
    });
    return this.release;
  }

  /**
   * Fails every write waiting for its turn with `error` (the database is known to be down: they would only wait for
   * it); the writes under way end by themselves.
   */
  failWaiting(error: Error): void {
    for (const turn of this.waiting.splice(0)) turn(error);
  }

  /** Runs `work` in its turn (until `deadline`). */
  async run<T>(deadline: number, work: () => Promise<T>): Promise<T> {
    const done = await this.take(deadline);
    try {
      return await work();
    } finally {
      done();
    }
  }

  private readonly release = () => {
    const next = this.waiting.shift();
    if (next) next();
    else this.running--;
  };
}
