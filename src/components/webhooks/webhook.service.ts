// Webhooks' domain: seeing deliveries and redoing one (admin only: the role table), and the numbers GET /metrics
// shows. Deliveries themselves are made by the dispatcher (webhook.dispatcher.ts).
import { badRequest, conflict, FieldErrorReason, notFound } from "../../shared/errors";
import type { Connection } from "../../shared/keyset-pagination";
import { PAGE_DEFAULT_LIMIT, PAGE_MAX_LIMIT } from "../../shared/pagination";
import type { WebhookEndpoint } from "./webhook.config";
import { DELIVERY_STATUSES, type DeliveryStatus, type WebhookDeliveryDoc } from "./webhook.model";
import type { DeliveryPosition, WebhookRepository } from "./webhook.repository";

/** A delivery as the API shows it (never its body's signature or the endpoint's secret). */
export interface WebhookDeliveryRecord {
  id: string;
  endpoint: string;
  event: string;
  project_id: number;
  revision: number;
  status: DeliveryStatus;
  attempts: number;
  created_at: string;
  last_attempt_at: string | null;
  last_http_status: number | null;
  last_response: string | null;
  last_error: string | null;
  next_attempt_at: string | null;
}

export interface WebhookDeliveriesArgs {
  endpoint?: string | null;
  status?: DeliveryStatus | null;
  first?: number | null;
  after?: string | null;
}

const iso = (date: Date | null | undefined): string | null => (date ? new Date(date).toISOString() : null);

function toRecord(doc: WebhookDeliveryDoc): WebhookDeliveryRecord {
  return {
    id: doc._id,
    endpoint: doc.endpoint,
    event: doc.event,
    project_id: doc.project_id,
    revision: doc.revision,
    status: doc.status,
    attempts: doc.attempts,
    created_at: iso(doc.created_at)!,
    last_attempt_at: iso(doc.last_attempt_at),
    last_http_status: doc.last_http_status ?? null,
    last_response: doc.last_response ?? null,
    last_error: doc.last_error ?? null,
    next_attempt_at: doc.status === "PENDING" ? iso(doc.next_attempt_at) : null,
  };
}

const CURSOR_PREFIX = "wd1:";

function cursorOf(doc: Pick<WebhookDeliveryDoc, "seq" | "endpoint">): string {
  return Buffer.from(`${CURSOR_PREFIX}${doc.seq}:${doc.endpoint}`, "utf8").toString("base64url");
}

function positionOf(cursor: string): DeliveryPosition {
  const text = Buffer.from(cursor, "base64url").toString("utf8");
  const match = /^wd1:([1-9][0-9]{0,15}):([A-Za-z0-9_-]{1,64})$/.exec(text);
  if (!match || cursorOf({ seq: Number(match[1]), endpoint: match[2] }) !== cursor) {
    throw badRequest(
      "after is not a cursor of webhookDeliveries: pass an edge's cursor or pageInfo.endCursor",
      "after",
      FieldErrorReason.INVALID_CURSOR,
    );
  }
  return { seq: Number(match[1]), endpoint: match[2] };
}

export class WebhookService {
  private nudge: () => void = () => undefined;

  constructor(
    private readonly repository: WebhookRepository,
    private readonly endpoints: readonly WebhookEndpoint[],
  ) {}

  /** Who to tell when a delivery is made pending again (the dispatcher of this instance). */
  onRedeliver(nudge: () => void): void {
    this.nudge = nudge;
  }

  /** Deliveries, newest first (by change log position, then endpoint, descending), filtered by endpoint and status. */
  async deliveries(
    args: WebhookDeliveriesArgs,
    options: { total: boolean },
  ): Promise<Connection<WebhookDeliveryRecord>> {
    const first = args.first ?? PAGE_DEFAULT_LIMIT;
    if (!Number.isInteger(first) || first < 0 || first > PAGE_MAX_LIMIT) {
      throw badRequest(
        `first must be a whole number from 0 to ${PAGE_MAX_LIMIT}`,
        "first",
        FieldErrorReason.OUT_OF_RANGE,
      );
    }
    if (args.endpoint != null && !/^[A-Za-z0-9_-]{1,64}$/.test(args.endpoint)) {
      throw badRequest(
        "endpoint must be an endpoint id of WEBHOOKS (1 to 64 letters, digits, _ or -)",
        "endpoint",
        FieldErrorReason.INVALID_FORMAT,
      );
    }
    if (args.status != null && !DELIVERY_STATUSES.includes(args.status)) {
      throw badRequest(
        `status must be one of ${DELIVERY_STATUSES.join(", ")}`,
        "status",
        FieldErrorReason.INVALID_FORMAT,
      );
    }
    const filter = { endpoint: args.endpoint ?? undefined, status: args.status ?? undefined };
    const after = args.after != null ? positionOf(args.after) : undefined;
    const [docs, total] = await Promise.all([
      first === 0 ? Promise.resolve([]) : this.repository.list(filter, first + 1, after),
      options.total ? this.repository.count(filter) : Promise.resolve(undefined),
    ]);
    const page = docs.slice(0, first);
    const edges = page.map((doc) => ({ cursor: cursorOf(doc), node: toRecord(doc) }));
    return {
      edges,
      nodes: edges.map((e) => e.node),
      pageInfo: {
        hasNextPage: docs.length > first,
        hasPreviousPage: false,
        startCursor: edges[0]?.cursor ?? null,
        endCursor: edges[edges.length - 1]?.cursor ?? null,
      },
      totalCount: total,
    };
  }

  /**
   * Makes a delivered or failed delivery pending again, due at once (same webhook-id; its project's later deliveries
   * are not held for it). NOT_FOUND for an unknown id; CONFLICT while it is pending.
   */
  async redeliver(id: string): Promise<WebhookDeliveryRecord> {
    const doc = await this.repository.redeliver(id, new Date());
    if (!doc) {
      const existing = id.length <= 200 ? await this.repository.get(id) : null;
      if (!existing) throw notFound(`no webhook delivery has the id ${JSON.stringify(id.slice(0, 200))}`, "id");
      throw conflict(
        `delivery ${id} is pending: it is attempted ${existing.next_attempt_at ? `at ${existing.next_attempt_at.toISOString()}` : "after the earlier deliveries of its project"}`,
        "id",
        FieldErrorReason.CONCURRENT_CHANGE,
      );
    }
    this.nudge();
    return toRecord(doc);
  }

  /** Per configured endpoint: the age in seconds of its oldest pending delivery (0: none), and whether it is off. */
  async health(now = new Date()): Promise<{ endpoint: string; oldestPendingSeconds: number; off: boolean }[]> {
    return Promise.all(
      this.endpoints.map(async (endpoint) => {
        const [oldest, state] = await Promise.all([
          this.repository.oldestPending(endpoint.id),
          this.repository.endpoint(endpoint.id),
        ]);
        return {
          endpoint: endpoint.id,
          oldestPendingSeconds: oldest ? Math.max(0, (now.getTime() - oldest.getTime()) / 1000) : 0,
          off: state?.off_url === endpoint.url,
        };
      }),
    );
  }
}
