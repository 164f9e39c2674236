// Webhooks' data access: the only code that queries the webhook models; returns plain records. Every write takes its
// turn with the process's transactions (db/write-turns.ts), as the other repositories' writes do.
import type { Transactions } from "../../db/transactions";
import type {
  DeliveryStatus,
  WebhookDeliveryDoc,
  WebhookDeliveryModel,
  WebhookEndpointDoc,
  WebhookEndpointModel,
} from "./webhook.model";

/** The outcome of one attempt, as it is recorded. */
export interface AttemptRecord {
  at: Date;
  httpStatus: number | null;
  response: string | null;
  error: string | null;
}

export interface DeliveryFilter {
  endpoint?: string;
  status?: DeliveryStatus;
}

/** A position in the list of deliveries (newest first): the log position, then the endpoint. */
export interface DeliveryPosition {
  seq: number;
  endpoint: string;
}

const DUPLICATE_KEY = 11000;

/** The order of the list of every endpoint's deliveries as one indexed key: position (zero-padded), then endpoint. */
export const listKey = (seq: number, endpoint: string): string => `${String(seq).padStart(16, "0")}:${endpoint}`;

function isDuplicateOnly(err: unknown): boolean {
  const e = err as { code?: number; writeErrors?: { code?: number }[] } | null;
  if (!e) return false;
  if (e.writeErrors && e.writeErrors.length > 0) return e.writeErrors.every((w) => w.code === DUPLICATE_KEY);
  return e.code === DUPLICATE_KEY;
}

export class WebhookRepository {
  constructor(
    private readonly endpoints: WebhookEndpointModel,
    private readonly deliveries: WebhookDeliveryModel,
    private readonly writes: Pick<Transactions, "write">,
  ) {}

  /** Creates the endpoint's state at `cursor` unless it exists (then it keeps its own cursor). */
  async ensureEndpoint(id: string, cursor: number): Promise<void> {
    await this.writes.write(() =>
      this.endpoints.updateOne(
        { _id: id },
        { $setOnInsert: { cursor, lease_owner: null, lease_until: new Date(0), off_url: null, off_at: null } },
        { upsert: true },
      ),
    );
  }

  endpoint(id: string): Promise<WebhookEndpointDoc | null> {
    return this.endpoints.findOne({ _id: id }).lean<WebhookEndpointDoc>();
  }

  /**
   * Takes or renews the lease of an endpoint for `owner` until `until`: one atomic conditional update, which
   * matches only when `owner` holds it or it has run out. The state, or null when another instance holds it.
   */
  takeLease(id: string, owner: string, now: Date, until: Date): Promise<WebhookEndpointDoc | null> {
    return this.writes.write(() =>
      this.endpoints
        .findOneAndUpdate(
          { _id: id, $or: [{ lease_owner: owner }, { lease_until: { $lt: now } }] },
          { $set: { lease_owner: owner, lease_until: until } },
          { returnDocument: "after" },
        )
        .lean<WebhookEndpointDoc>(),
    );
  }

  /** Gives the lease up (a clean stop), so another instance takes over at once. */
  async releaseLease(id: string, owner: string): Promise<void> {
    await this.writes.write(() =>
      this.endpoints.updateOne(
        { _id: id, lease_owner: owner },
        { $set: { lease_owner: null, lease_until: new Date(0) } },
      ),
    );
  }

  /** Moves the endpoint's cursor to `seq`, while `owner` holds its lease; false when it no longer does. */
  async advance(id: string, owner: string, seq: number): Promise<boolean> {
    const result = await this.writes.write(() =>
      this.endpoints.updateOne({ _id: id, lease_owner: owner }, { $max: { cursor: seq } }),
    );
    return result.matchedCount === 1;
  }

  async turnOff(id: string, url: string, at: Date): Promise<void> {
    await this.writes.write(() => this.endpoints.updateOne({ _id: id }, { $set: { off_url: url, off_at: at } }));
  }

  /** Of `projectIds`, those with a pending delivery to the endpoint. */
  async projectsPending(endpoint: string, projectIds: number[]): Promise<Set<number>> {
    const docs = await this.deliveries
      .find({ endpoint, status: "PENDING", project_id: { $in: projectIds } }, { project_id: 1 })
      .lean<{ project_id: number }[]>();
    return new Set(docs.map((d) => d.project_id));
  }

  /** Inserts deliveries; those already stored (an insert repeated after a crash) are left as they are. */
  async insert(docs: WebhookDeliveryDoc[]): Promise<void> {
    if (docs.length === 0) return;
    await this.writes.write(async () => {
      try {
        await this.deliveries.insertMany(docs, { ordered: false, lean: true });
      } catch (err) {
        if (!isDuplicateOnly(err)) throw err;
      }
    });
  }

  /** The endpoint's scheduled pending deliveries, soonest first (due ones, then the next to come). */
  scheduled(endpoint: string, limit: number): Promise<WebhookDeliveryDoc[]> {
    return this.deliveries
      .find({ endpoint, status: "PENDING", next_attempt_at: { $ne: null } })
      .sort({ next_attempt_at: 1 })
      .limit(limit)
      .lean<WebhookDeliveryDoc[]>();
  }

  /** Records an attempt: still pending (due again at `next`), or finished as `status`. */
  async recordAttempt(
    id: string,
    attempt: AttemptRecord,
    outcome: { status: "PENDING"; next: Date } | { status: "DELIVERED" | "FAILED" },
  ): Promise<void> {
    const finished = outcome.status !== "PENDING";
    await this.writes.write(() =>
      this.deliveries.updateOne(
        { _id: id },
        {
          $inc: { attempts: 1, step: 1 },
          $set: {
            status: outcome.status,
            last_attempt_at: attempt.at,
            last_http_status: attempt.httpStatus,
            last_response: attempt.response,
            last_error: attempt.error,
            next_attempt_at: finished ? null : outcome.next,
            finished_at: finished ? attempt.at : null,
          },
        },
      ),
    );
  }

  /** Schedules, at `now`, the first waiting delivery of a project to the endpoint (its earlier one ended). */
  async scheduleNext(endpoint: string, projectId: number, now: Date): Promise<void> {
    await this.writes.write(() =>
      this.deliveries.findOneAndUpdate(
        { endpoint, project_id: projectId, status: "PENDING", next_attempt_at: null },
        { $set: { next_attempt_at: now } },
        { sort: { seq: 1 } },
      ),
    );
  }

  /**
   * Schedules the first waiting delivery of every project of the endpoint that has none scheduled: after an
   * instance died between ending a delivery and scheduling the next, or an endpoint turned on again.
   */
  async scheduleStranded(endpoint: string, now: Date): Promise<number> {
    const pending = await this.deliveries
      .find({ endpoint, status: "PENDING" }, { project_id: 1, seq: 1, next_attempt_at: 1 })
      .sort({ seq: 1 })
      .lean<Pick<WebhookDeliveryDoc, "_id" | "project_id" | "seq" | "next_attempt_at">[]>();
    const scheduled = new Set(pending.filter((d) => d.next_attempt_at !== null).map((d) => d.project_id));
    const first = new Map<number, string>();
    for (const d of pending)
      if (!scheduled.has(d.project_id) && !first.has(d.project_id)) first.set(d.project_id, d._id);
    if (first.size === 0) return 0;
    await this.writes.write(() =>
      this.deliveries.updateMany(
        { _id: { $in: [...first.values()] }, status: "PENDING", next_attempt_at: null },
        { $set: { next_attempt_at: now } },
      ),
    );
    return first.size;
  }

  get(id: string): Promise<WebhookDeliveryDoc | null> {
    return this.deliveries.findOne({ _id: id }).lean<WebhookDeliveryDoc>();
  }

  /** Makes a finished delivery pending again, due at `now`; null when none has that id or it is pending. */
  redeliver(id: string, now: Date): Promise<WebhookDeliveryDoc | null> {
    return this.writes.write(() =>
      this.deliveries
        .findOneAndUpdate(
          { _id: id, status: { $ne: "PENDING" } },
          { $set: { status: "PENDING", step: 0, next_attempt_at: now, finished_at: null, redelivered: true } },
          { returnDocument: "after" },
        )
        .lean<WebhookDeliveryDoc>(),
    );
  }

  /** Up to `limit` deliveries matching `filter` after `after`, newest first (log position, then endpoint, descending). */
  list(filter: DeliveryFilter, limit: number, after?: DeliveryPosition): Promise<WebhookDeliveryDoc[]> {
    const query: Record<string, unknown> = {};
    if (filter.endpoint !== undefined) query.endpoint = filter.endpoint;
    if (filter.status !== undefined) query.status = filter.status;
    // One endpoint's deliveries have distinct positions: its list is ordered by seq alone (an index on endpoint, seq).
    if (filter.endpoint !== undefined) {
      if (after) query.seq = filter.endpoint < after.endpoint ? { $lte: after.seq } : { $lt: after.seq };
      return this.deliveries.find(query, { body: 0 }).sort({ seq: -1 }).limit(limit).lean<WebhookDeliveryDoc[]>();
    }
    if (after) query.list_key = { $lt: listKey(after.seq, after.endpoint) };
    return this.deliveries.find(query, { body: 0 }).sort({ list_key: -1 }).limit(limit).lean<WebhookDeliveryDoc[]>();
  }

  count(filter: DeliveryFilter): Promise<number> {
    const query: Record<string, unknown> = {};
    if (filter.endpoint !== undefined) query.endpoint = filter.endpoint;
    if (filter.status !== undefined) query.status = filter.status;
    return this.deliveries.countDocuments(query);
  }

  /** When the endpoint's oldest pending delivery was created; null when none is pending. */
  async oldestPending(endpoint: string): Promise<Date | null> {
    const doc = await this.deliveries
      .findOne({ endpoint, status: "PENDING" }, { created_at: 1 })
      .sort({ created_at: 1 })
      .lean<{ created_at: Date }>();
    return doc?.created_at ?? null;
  }

  /** Removes the deliveries that finished before `before`; how many. */
  async removeFinishedBefore(before: Date): Promise<number> {
    const result = await this.writes.write(() => this.deliveries.deleteMany({ finished_at: { $lt: before } }));
    return result.deletedCount;
  }
}
