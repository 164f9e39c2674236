// Delivery of the change log to the WEBHOOKS endpoints (docs/webhooks.md, "How it works").
//
// The change log is the outbox: a change commits with its log entry (one transaction, nothing more in it), and each
// endpoint has a cursor, the last log position it has passed. So what must be delivered follows from the committed
// log alone, whatever crashes: a change past an endpoint's cursor is still to be read, one before it has its
// delivery stored.
//
// - One instance at a time works for an endpoint: the one holding its lease, taken and renewed by one atomic
//   conditional update (findOneAndUpdate matching when this instance holds it or it has run out). An instance that
//   dies stops renewing; another takes over once the lease runs out (WEBHOOKS_LEASE_MS).
// - The holder reads the log past the cursor (in batches), stores a delivery for each change the endpoint selects
//   (`events`, `where` on the project as of the change), then moves the cursor: a crash in between stores the same
//   deliveries again, which are kept as they are (their _id is the webhook-id).
// - Per-project order: of one project's pending deliveries to an endpoint, only the first is scheduled
//   (next_attempt_at set); the others wait (null) until it is delivered or marked failed, which schedules the next.
//   A failing project holds only its own later changes; the others go on. Storing deliveries and ending them run
//   one after the other in the holder, so a delivery stored while its project's previous one ends is never left
//   waiting; after a takeover the holder first schedules what a dead holder left waiting (scheduleStranded).
// - Attempts run concurrently across projects (at most CONCURRENCY per endpoint), each at most 10 s; the lease is
//   renewed while they run, and a holder that stops does not give the lease up while one is still running, so no
//   delivery is ever attempted twice at once.
import { randomUUID } from "node:crypto";
import type { Logger } from "pino";
import type { ChangeLogEntry, CommittedChange, ProjectChangeLog } from "../projects/persistence";
import { matchesProjectWhere } from "../projects";
import { EVENT_OF_OPERATION, type WebhookEndpoint, type WebhookEvent } from "./webhook.config";
import type { WebhookDeliveryDoc } from "./webhook.model";
import { deliveryBody, deliveryId } from "./webhook.payload";
import { listKey, type WebhookRepository } from "./webhook.repository";
import { nextAttemptAt, retryAfterMs } from "./webhook.schedule";
import { sendAttempt, type AttemptResult } from "./webhook.sender";
import { signDelivery } from "./webhook.signing";

/** How a delivery's attempt ended, as GET /metrics counts it. */
export type DeliveryOutcome = "delivered" | "retried" | "failed" | "gone" | "refused";

export interface WebhookDispatcherOptions {
  endpoints: readonly WebhookEndpoint[];
  /** WEBHOOKS_ALLOW_PRIVATE. */
  allowPrivate: boolean;
  /** WEBHOOKS_RETRY_SCALE. */
  retryScale: number;
  /** WEBHOOKS_LEASE_MS. */
  leaseMs: number;
  /** How often the holder reads the log for other instances' changes (SUBSCRIPTION_POLL_MS). */
  pollMs: number;
  /** WEBHOOKS_RETENTION_DAYS. */
  retentionDays: number;
  logger: Logger;
  /** Told of every attempt's outcome. */
  onOutcome?: (endpoint: string, outcome: DeliveryOutcome) => void;
}

/** Log entries read at once. */
const BATCH = 100;
/** Attempts of one endpoint running at once (each of another project). */
const CONCURRENCY = 8;
/** How long a stop waits for the attempts under way to end. */
const STOP_WAIT_MS = 5_000;
/** How often finished deliveries past their retention are removed. */
const RETENTION_SWEEP_MS = 60 * 60_000;

/** Whether the endpoint receives this change, and as which event. */
export function selectedEvent(endpoint: WebhookEndpoint, committed: CommittedChange): WebhookEvent | undefined {
  const event = EVENT_OF_OPERATION[committed.change.operation];
  if (!event) return undefined;
  if (endpoint.events && !endpoint.events.has(event)) return undefined;
  if (endpoint.where && !matchesProjectWhere(endpoint.where, committed.project)) return undefined;
  return event;
}

class EndpointWorker {
  private timer?: NodeJS.Timeout;
  private running = false;
  private again = false;
  private stopped = false;
  /** This instance holds the lease until then (0: it does not hold it). */
  private leaseUntil = 0;
  private cursor = 0;
  off = false;
  private readonly inFlight = new Set<string>();
  private readonly attempts = new Set<Promise<void>>();
  /** Storing deliveries and ending them, one after the other. */
  private serial: Promise<unknown> = Promise.resolve();

  constructor(
    readonly endpoint: WebhookEndpoint,
    private readonly owner: string,
    private readonly repository: WebhookRepository,
    private readonly log: ProjectChangeLog,
    private readonly options: WebhookDispatcherOptions,
  ) {}

  get holding(): boolean {
    return this.leaseUntil > Date.now();
  }

  /** Works now (a change was committed here, or an attempt ended). */
  wake(): void {
    if (this.stopped) return;
    if (this.running) {
      this.again = true;
      return;
    }
    clearTimeout(this.timer);
    void this.tick();
  }

  stop(): void {
    this.stopped = true;
    clearTimeout(this.timer);
  }

  /**
   * Waits up to `ms` for the attempts under way to be recorded, then gives the lease up when none runs any more
   * (else it runs out by itself, after the attempt's 10 s at most).
   */
  async release(ms: number): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      Promise.allSettled([...this.attempts]),
      new Promise((resolve) => (timer = setTimeout(resolve, ms))),
    ]);
    clearTimeout(timer);
    if (this.leaseUntil > 0 && this.inFlight.size === 0)
      await this.repository.releaseLease(this.endpoint.id, this.owner);
  }

  private later(ms: number): void {
    if (this.stopped) return;
    clearTimeout(this.timer);
    this.timer = setTimeout(() => void this.tick(), Math.max(0, ms));
    this.timer.unref();
  }

  private runSerially<T>(work: () => Promise<T>): Promise<T> {
    const run = this.serial.then(work, work);
    this.serial = run.catch(() => undefined);
    return run;
  }

  private async tick(): Promise<void> {
    if (this.stopped) return;
    this.running = true;
    let wait = this.options.pollMs;
    try {
      do {
        this.again = false;
        wait = await this.work();
      } while (this.again && !this.stopped);
    } catch (err) {
      this.options.logger.warn({ err, endpoint: this.endpoint.id }, "webhook delivery work failed; retrying");
    } finally {
      this.running = false;
    }
    this.later(wait);
  }

  /** One round: hold the lease, store what the log adds, start what is due. Returns when to come back. */
  private async work(): Promise<number> {
    const { leaseMs, pollMs } = this.options;
    const now = new Date();
    // Renewed when half of it is gone: a holder renews about twice per lease, others try about four times.
    if (this.leaseUntil - now.getTime() < leaseMs / 2) {
      const state = await this.repository.takeLease(
        this.endpoint.id,
        this.owner,
        now,
        new Date(now.getTime() + leaseMs),
      );
      if (!state) {
        this.leaseUntil = 0;
        return Math.max(pollMs, leaseMs / 4);
      }
      const taken = this.leaseUntil === 0;
      this.leaseUntil = state.lease_until.getTime();
      this.cursor = Math.max(this.cursor, state.cursor);
      this.off = state.off_url === this.endpoint.url;
      if (taken && !this.off) {
        const scheduled = await this.runSerially(() => this.repository.scheduleStranded(this.endpoint.id, now));
        if (scheduled > 0) {
          this.options.logger.info(
            { endpoint: this.endpoint.id, scheduled },
            "webhooks: scheduled the next delivery of projects a previous holder left waiting",
          );
        }
      }
    }
    if (this.off) return Math.max(pollMs, leaseMs / 4);
    while (!this.stopped && (await this.runSerially(() => this.storeFromLog())) === BATCH);
    return this.startDue();
  }

  /** Stores the deliveries of the next batch of the log and moves the cursor past it; how many entries it read. */
  private async storeFromLog(): Promise<number> {
    const entries: ChangeLogEntry[] = await this.log.after(this.cursor, BATCH);
    if (entries.length === 0) return 0;
    const selected: { committed: CommittedChange; event: WebhookEvent }[] = [];
    for (const entry of entries) {
      const event = entry.committed && selectedEvent(this.endpoint, entry.committed);
      if (entry.committed && event) selected.push({ committed: entry.committed, event });
    }
    if (selected.length > 0) {
      const busy = await this.repository.projectsPending(this.endpoint.id, [
        ...new Set(selected.map((s) => s.committed.project_id)),
      ]);
      const now = new Date();
      const docs: WebhookDeliveryDoc[] = selected.map(({ committed, event }) => {
        const waits = busy.has(committed.project_id);
        busy.add(committed.project_id);
        return {
          _id: deliveryId(this.endpoint.id, committed.seq),
          endpoint: this.endpoint.id,
          seq: committed.seq,
          project_id: committed.project_id,
          revision: committed.change.revision,
          event,
          status: "PENDING",
          attempts: 0,
          step: 0,
          created_at: now,
          next_attempt_at: waits ? null : now,
          last_attempt_at: null,
          last_http_status: null,
          last_response: null,
          last_error: null,
          finished_at: null,
          redelivered: false,
          body: deliveryBody(event, committed),
          list_key: listKey(committed.seq, this.endpoint.id),
        };
      });
      await this.repository.insert(docs);
    }
    const last = entries[entries.length - 1].seq;
    if (!(await this.repository.advance(this.endpoint.id, this.owner, last))) {
      this.leaseUntil = 0;
      return 0;
    }
    this.cursor = last;
    return entries.length;
  }

  /** Starts the due deliveries (within CONCURRENCY); returns the wait until the next one is due (at most pollMs). */
  private async startDue(): Promise<number> {
    const { pollMs } = this.options;
    if (!this.holding) return pollMs;
    const scheduled = await this.repository.scheduled(this.endpoint.id, CONCURRENCY * 2 + this.inFlight.size);
    const now = Date.now();
    for (const doc of scheduled) {
      if (this.inFlight.has(doc._id)) continue;
      const due = doc.next_attempt_at!.getTime();
      if (due > now) return Math.min(pollMs, due - now);
      if (this.inFlight.size >= CONCURRENCY) return pollMs;
      this.inFlight.add(doc._id);
      const running: Promise<void> = this.attempt(doc).finally(() => {
        this.inFlight.delete(doc._id);
        this.attempts.delete(running);
        this.wake();
      });
      this.attempts.add(running);
    }
    return pollMs;
  }

  private async attempt(doc: WebhookDeliveryDoc): Promise<void> {
    const { endpoint } = this;
    const at = new Date();
    let result: AttemptResult;
    try {
      const headers = signDelivery(endpoint.secrets, doc._id, at, doc.body);
      result = await sendAttempt(endpoint.url, { ...headers }, doc.body, { allowPrivate: this.options.allowPrivate });
    } catch (err) {
      result = { kind: "failed", error: `request failed (${(err as Error).name})` };
    }
    const done = new Date();
    let outcome: DeliveryOutcome;
    let next: Date | null = null;
    if (result.kind === "answered" && result.status >= 200 && result.status < 300) {
      outcome = "delivered";
    } else if (result.kind === "answered" && result.status === 410) {
      outcome = "gone";
    } else if (result.kind === "refused") {
      outcome = "refused";
    } else {
      const retryAfter = result.kind === "answered" ? retryAfterMs(result.retryAfter, done) : undefined;
      next = nextAttemptAt(doc.step + 1, done, { scale: this.options.retryScale, retryAfter });
      outcome = next ? "retried" : "failed";
    }
    const record = {
      at,
      httpStatus: result.kind === "answered" ? result.status : null,
      response: result.kind === "answered" ? result.body : null,
      error: result.kind === "answered" ? null : result.error,
    };
    try {
      await this.runSerially(async () => {
        await this.repository.recordAttempt(
          doc._id,
          record,
          next ? { status: "PENDING", next } : { status: outcome === "delivered" ? "DELIVERED" : "FAILED" },
        );
        if (outcome === "gone") {
          await this.repository.turnOff(endpoint.id, endpoint.url, done);
          this.off = true;
          this.options.logger.warn(
            { endpoint: endpoint.id, delivery: doc._id },
            `webhooks: endpoint ${endpoint.id} answered 410 Gone: it is off until WEBHOOKS names it with another URL`,
          );
        } else if (!next && !doc.redelivered) {
          await this.repository.scheduleNext(endpoint.id, doc.project_id, done);
        }
      });
    } catch (err) {
      // The attempt stays as stored: pending, due again, tried by whoever holds the lease next.
      this.options.logger.warn(
        { err, endpoint: endpoint.id, delivery: doc._id },
        "webhooks: recording an attempt failed",
      );
    }
    if (outcome === "failed" || outcome === "refused") {
      this.options.logger.warn(
        { endpoint: endpoint.id, delivery: doc._id, status: record.httpStatus, error: record.error },
        `webhooks: delivery ${doc._id} failed${outcome === "refused" ? ` (${record.error})` : " after its last attempt"}`,
      );
    }
    this.options.onOutcome?.(endpoint.id, outcome);
  }
}

export class WebhookDispatcher {
  private readonly workers: EndpointWorker[];
  private readonly owner = randomUUID();
  private stopCommitListener?: () => void;
  private sweepTimer?: NodeJS.Timeout;

  constructor(
    private readonly repository: WebhookRepository,
    private readonly log: ProjectChangeLog,
    private readonly options: WebhookDispatcherOptions,
  ) {
    this.workers = options.endpoints.map(
      (endpoint) => new EndpointWorker(endpoint, this.owner, repository, log, options),
    );
  }

  get endpoints(): readonly WebhookEndpoint[] {
    return this.options.endpoints;
  }

  /**
   * Creates each new endpoint's state at the log's last position (it receives the changes committed from now on;
   * one it already has keeps its cursor), then starts working. Before the app serves a request.
   */
  async start(): Promise<void> {
    if (this.workers.length === 0) return;
    const last = await this.log.lastSeq();
    for (const worker of this.workers) await this.repository.ensureEndpoint(worker.endpoint.id, last);
    this.stopCommitListener = this.log.onCommit(() => this.nudge());
    for (const worker of this.workers) worker.wake();
    const sweep = () => {
      const before = new Date(Date.now() - this.options.retentionDays * 86_400_000);
      this.repository
        .removeFinishedBefore(before)
        .catch((err: unknown) => this.options.logger.warn({ err }, "webhooks: removing old deliveries failed"));
    };
    sweep();
    this.sweepTimer = setInterval(sweep, RETENTION_SWEEP_MS);
    this.sweepTimer.unref();
  }

  /** Works now: this instance committed a change, or a delivery was made pending again. */
  nudge(): void {
    for (const worker of this.workers) worker.wake();
  }

  /** Endpoints a 410 turned off, as far as this instance knows. */
  offEndpoints(): string[] {
    return this.workers.filter((w) => w.off).map((w) => w.endpoint.id);
  }

  async stop(): Promise<void> {
    this.stopCommitListener?.();
    clearInterval(this.sweepTimer);
    for (const worker of this.workers) worker.stop();
    // Within the shutdown's 10 s: an attempt answered meanwhile is recorded, not tried again by the next holder.
    await Promise.all(this.workers.map((w) => w.release(STOP_WAIT_MS).catch(() => undefined)));
  }
}
