// Reads of one document by key, joined into one command while the database is busy. A read by id is one command,
// and on the embedded FerretDB a command costs the driver and the database several times what the one document it
// finds does: a project by id with its teacher cost FerretDB 0.24 ms of CPU read alone and 0.095 ms a project read 4
// at a time, the driver 0.32 and 0.08 ms (docs/performance.md). So while `maxInFlight` of these reads are on their
// way, the next ones wait here, and those of one shape (the same collection, fields and conditions) go as one command
// for all their keys as soon as one on its way comes back. A read that finds fewer than `maxInFlight` on their way
// goes at once, as before: a caller alone never waits here.
//
// Each caller gets what a command of its own would have given: the batch is sent after every read in it was asked
// for (so it sees every write its callers saw committed), with the same conditions, and each caller is given only the
// document of its own key. A batch that fails fails each of its reads with the batch's error.
//
// Every wait has a limit: a read still waiting here after `waitMs` fails (the command it would join is bounded by the
// driver's own limits).

/** Reads the documents of these keys (distinct, at most maxBatch) in one command, by key; a key without one is absent. */
export type ReadMany<V> = (keys: readonly string[]) => Promise<ReadonlyMap<string, V>>;

interface Waiter<V> {
  key: string;
  resolve(value: V | undefined): void;
  reject(err: unknown): void;
  timer?: ReturnType<typeof setTimeout>;
}

interface Group<V> {
  readMany: ReadMany<V>;
  waiters: Waiter<V>[];
}

export interface CoalescedReadsOptions {
  /**
   * Reads on their way at once before the next ones wait and join: on MongoDB the driver's pool size (beyond it they
   * would wait for a connection anyway), on FerretDB 2 (FERRETDB_READS_AT_ONCE, database.ts).
   */
  maxInFlight: number;
  /** The most keys one command reads. */
  maxBatch?: number;
  /** The longest a read waits here before it fails. */
  waitMs: number;
}

/** The default of maxBatch: a batch's reply stays the size of a page of 100. */
const DEFAULT_MAX_BATCH = 100;

export class CoalescedReads {
  private inFlight = 0;
  /** The waiting reads by shape, oldest shape first. */
  private readonly waiting = new Map<string, Group<unknown>>();
  private readonly maxBatch: number;

  constructor(private readonly options: CoalescedReadsOptions) {
    if (!(options.maxInFlight >= 1)) throw new Error(`maxInFlight must be at least 1, got ${options.maxInFlight}`);
    this.maxBatch = Math.max(1, options.maxBatch ?? DEFAULT_MAX_BATCH);
  }

  /**
   * The document of `key`, or undefined when there is none. `shape` names everything of the read but its key (the
   * collection, the fields, the conditions): reads of one shape may go as one command, by any of their `readMany`.
   */
  read<V>(shape: string, key: string, readMany: ReadMany<V>): Promise<V | undefined> {
    return new Promise<V | undefined>((resolve, reject) => {
      const waiter: Waiter<V> = { key, resolve, reject };
      if (this.inFlight < this.options.maxInFlight) {
        this.send(readMany, [waiter]);
        return;
      }
      let group = this.waiting.get(shape) as Group<V> | undefined;
      if (!group) this.waiting.set(shape, (group = { readMany, waiters: [] }) as Group<unknown>);
      group.waiters.push(waiter);
      const waiters = group.waiters;
      waiter.timer = setTimeout(() => {
        const at = waiters.indexOf(waiter);
        if (at < 0) return;
        waiters.splice(at, 1);
        if (waiters.length === 0 && this.waiting.get(shape)?.waiters === waiters) this.waiting.delete(shape);
        reject(new Error(`a read by id waited ${this.options.waitMs} ms for the database without being sent`));
      }, this.options.waitMs);
    });
  }

  /** Reads on their way, and reads waiting here. */
  get load(): { inFlight: number; waiting: number } {
    let waiting = 0;
    for (const group of this.waiting.values()) waiting += group.waiters.length;
    return { inFlight: this.inFlight, waiting };
  }

  private send<V>(readMany: ReadMany<V>, waiters: Waiter<V>[]): void {
    this.inFlight++;
    const keys = [...new Set(waiters.map((w) => w.key))];
    let read: Promise<ReadonlyMap<string, V>>;
    try {
      read = readMany(keys);
    } catch (err) {
      read = Promise.reject(err);
    }
    read
      .then(
        (found) => {
          for (const w of waiters) w.resolve(found.get(w.key));
        },
        (err: unknown) => {
          for (const w of waiters) w.reject(err);
        },
      )
      .finally(() => {
        this.inFlight--;
        this.sendWaiting();
      });
  }

  /** Sends the waiting reads, a batch of one shape per free place, oldest shape first. */
  private sendWaiting(): void {
    for (const [shape, group] of this.waiting) {
      if (this.inFlight >= this.options.maxInFlight) return;
      const batch = group.waiters.splice(0, this.maxBatch);
      if (group.waiters.length === 0) this.waiting.delete(shape);
      for (const w of batch) clearTimeout(w.timer);
      this.send(group.readMany, batch);
    }
  }
}
