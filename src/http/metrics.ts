// Prometheus metrics (prom-client) at GET /metrics: HTTP requests by route and status with latency histograms,
// GraphQL operations by name and outcome code, database round-trip time of each operation by its driver command
// (timed by the models' middleware, src/db/command-timing.ts), and
// the restarts of the embedded database (src/db/embedded-supervisor.ts) and whether it is up, and
// the process metrics of collectDefaultMetrics. One registry per app, so several apps in one process (tests) do
// not collide. Access: open outside production; with METRICS_TOKEN set (always, and in production the only way
// to open it) a scrape must send Authorization: Bearer <METRICS_TOKEN>.
import { timingSafeEqual } from "node:crypto";
import type { FastifyInstance } from "fastify";
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from "prom-client";
import { failure } from "../answers/failure";
import { onCommandTiming } from "../db/command-timing";
import type { WriteTurns } from "../db/write-turns";
import type { EmbeddedSupervisor } from "../db/embedded-supervisor";
import { sendFailure } from "../answers/http-fallback";
import { FieldErrorReason } from "../shared/errors";

const METRICS_PATH = "/metrics";

export class Metrics {
  readonly registry = new Registry();

  readonly httpRequests = new Counter({
    name: "http_requests_total",
    help: "HTTP requests answered, by method, route (the route pattern; unmatched for unknown paths) and status",
    labelNames: ["method", "route", "status"] as const,
    registers: [this.registry],
  });

  readonly httpDuration = new Histogram({
    name: "http_request_duration_seconds",
    help: "Time from receiving a request to the end of its answer, by method, route and status",
    labelNames: ["method", "route", "status"] as const,
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers: [this.registry],
  });

  readonly graphqlOperations = new Counter({
    name: "graphql_operations_total",
    help: "GraphQL operations, by operation name and outcome (success, or the ErrorCode of the payload or error)",
    labelNames: ["operation", "outcome"] as const,
    registers: [this.registry],
  });

  readonly dbCommandDuration = new Histogram({
    name: "db_command_duration_seconds",
    help: "Database round-trip time of each operation, by the driver command it sends and outcome (ok or error)",
    labelNames: ["command", "outcome"] as const,
    buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 5],
    registers: [this.registry],
  });

  readonly writesShed = new Counter({
    name: "db_writes_shed_total",
    help: "Changes refused with 503 SERVICE_UNAVAILABLE because they got no turn at the database within DB_TIMEOUT_MS, by reason (queue_full: too many waiting; no_turn: the wait ran out; conflicts: transient conflicts until the time limit)",
    labelNames: ["reason"] as const,
    registers: [this.registry],
  });

  readonly redisErrors = new Counter({
    name: "redis_errors_total",
    help: "Failed or timed-out Redis operations and connection attempts (REDIS_URL); meanwhile each instance limits and caches on its own",
    registers: [this.registry],
  });

  readonly webhookDeliveries = new Counter({
    name: "webhook_deliveries_total",
    help: "Webhook delivery attempts by endpoint and outcome: delivered (2xx), retried (failed, tried again later), failed (its last attempt failed), gone (410: the endpoint is turned off), refused (an address WEBHOOKS_ALLOW_PRIVATE=false does not call)",
    labelNames: ["endpoint", "outcome"] as const,
    registers: [this.registry],
  });

  private webhookHealth?: () => Promise<{ endpoint: string; oldestPendingSeconds: number; off: boolean }[]>;
  /** One read of the webhooks' health per scrape, shared by the gauges (prom-client collects them at once). */
  private webhookScrape?: { at: number; health: ReturnType<NonNullable<Metrics["webhookHealth"]>> };

  private scrapeWebhooks(): ReturnType<NonNullable<Metrics["webhookHealth"]>> {
    const now = Date.now();
    if (!this.webhookScrape || now - this.webhookScrape.at > 500) {
      this.webhookScrape = { at: now, health: this.webhookHealth?.() ?? Promise.resolve([]) };
    }
    return this.webhookScrape.health;
  }

  readonly webhookOldestPending = new Gauge({
    name: "webhook_oldest_pending_seconds",
    help: "Age of the oldest pending webhook delivery of each endpoint (0: none pending)",
    labelNames: ["endpoint"] as const,
    registers: [this.registry],
    collect: async () => {
      for (const entry of await this.scrapeWebhooks()) {
        this.webhookOldestPending.set({ endpoint: entry.endpoint }, entry.oldestPendingSeconds);
      }
    },
  });

  readonly webhookEndpointOff = new Gauge({
    name: "webhook_endpoint_off",
    help: "1 while a webhook endpoint is turned off by a 410 Gone (until WEBHOOKS names it with another URL), else 0",
    labelNames: ["endpoint"] as const,
    registers: [this.registry],
    collect: async () => {
      for (const entry of await this.scrapeWebhooks()) {
        this.webhookEndpointOff.set({ endpoint: entry.endpoint }, entry.off ? 1 : 0);
      }
    },
  });

  constructor() {
    collectDefaultMetrics({ register: this.registry });
  }

  /** Reads the webhook gauges from `health` at every scrape (one database read per endpoint). */
  observeWebhooks(health: () => Promise<{ endpoint: string; oldestPendingSeconds: number; off: boolean }[]>): void {
    this.webhookHealth = health;
  }

  /**
   * Counts the restarts of the embedded database this supervisor keeps running, and says whether it is up
   * (embedded_database_restarts_total, embedded_database_up); read at each scrape.
   */
  observeEmbeddedDatabase(supervisor: EmbeddedSupervisor): void {
    new Counter({
      name: "embedded_database_restarts_total",
      help: "Times the embedded database (FerretDB or mongod) was started again after its process exited while the service ran",
      registers: [this.registry],
      collect() {
        this.reset();
        this.inc(supervisor.restarts);
      },
    });
    new Gauge({
      name: "embedded_database_up",
      help: "1 while the embedded database answers, 0 while it is down and being started again",
      registers: [this.registry],
      collect() {
        this.set(supervisor.isDown ? 0 : 1);
      },
    });
  }

  /**
   * Times every operation on the models of the connection whose driver client this is, and counts the writes `writes`
   * sheds; returns the function that stops both.
   */
  observeDatabase(client: object, writes: Pick<WriteTurns, "onShed">): () => void {
    const stopTiming = onCommandTiming(client, (timing) =>
      this.dbCommandDuration.observe({ command: timing.command, outcome: timing.outcome }, timing.duration / 1000),
    );
    const stopShed = writes.onShed((reason) => this.writesShed.inc({ reason }));
    return () => {
      stopTiming();
      stopShed();
    };
  }
}

/** Counts and times every answered request, and serves GET /metrics unless production leaves it closed. */
export function registerMetrics(
  app: FastifyInstance,
  metrics: Metrics,
  options: { production: boolean; token?: string },
): void {
  app.addHook("onResponse", (request, reply, done) => {
    const labels = {
      method: request.method,
      route: request.routeOptions.url ?? "unmatched",
      status: String(reply.statusCode),
    };
    metrics.httpRequests.inc(labels);
    metrics.httpDuration.observe(labels, reply.elapsedTime / 1000);
    done();
  });

  // In production without a token the route does not exist: not open to the world.
  if (options.production && !options.token) return;
  const expected = options.token ? Buffer.from(`Bearer ${options.token}`) : undefined;
  app.get(METRICS_PATH, async (request, reply) => {
    if (expected) {
      const sent = Buffer.from(request.headers.authorization ?? "");
      if (sent.length !== expected.length || !timingSafeEqual(sent, expected)) {
        const refused = failure(
          401,
          FieldErrorReason.NOT_ALLOWED,
          "GET /metrics requires Authorization: Bearer <METRICS_TOKEN>",
        );
        return sendFailure(request, reply, refused);
      }
    }
    return reply.type(metrics.registry.contentType).send(await metrics.registry.metrics());
  });
}
