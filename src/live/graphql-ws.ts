// GraphQL subscriptions over WebSocket at GET /graphql, protocol graphql-transport-ws (graphql-ws's server core,
// makeServer, on @fastify/websocket's sockets). What a connection goes through:
//
// - Upgrade: a Fastify request like any other (request id, draining 503 while shutting down, the per-caller rate
//   limit); over WS_MAX_CONNECTIONS it is refused with 503 before any WebSocket exists.
// - connection_init: authentication from its payload, as the HTTP headers would carry it ({authorization: "Bearer
//   …"} in jwt mode, {"x-user-role", "x-user-id"} in header mode, and "x-user-claims" with ACCESS_POLICY). Refused: close 4403 Forbidden with the reason. A
//   token's expiry closes the connection with 4403 too (graphql-ws's client retries 4403, so a client whose
//   connectionParams fetch a fresh token reconnects, and resumes from its cursors).
// - subscribe: counts against the same per-caller rate limit as HTTP requests; at most SUBSCRIPTIONS_PER_CONNECTION
//   at once; the document goes through graphql/document-policy.ts like every HTTP request (token, depth, alias and
//   cost limits). Only subscriptions run here: queries and mutations are for HTTP POST /graphql.
// - Each subscription's events are sent one at a time: the next is taken from the feed once the socket has accepted
//   the previous one. A subscriber that falls too far behind is closed with 1013 (try again later) — graphql-ws's
//   client reconnects, and resuming from its last cursor misses nothing.
// - Keep-alive: a ping every KEEPALIVE_MS; no pong by the next one terminates the socket.
// - Shutdown (app.close): every socket is closed with 1001 (going away) within CLOSE_WAIT_MS, then terminated.
import type { FastifyInstance, FastifyRequest } from "fastify";
import {
  GraphQLError,
  type ExecutionArgs,
  type GraphQLFormattedError,
  type GraphQLSchema,
  type OperationDefinitionNode,
} from "graphql";
import { CloseCode, makeServer, type Context as WsContext, type SubscribePayload } from "graphql-ws";
import { Counter, Gauge } from "prom-client";
import type { WebSocket } from "ws";
import type { Authenticator } from "../auth/authenticator";
import type { Caller } from "../auth/caller";
import { createLoaders, type Context } from "../graphql/context";
import { prepareOperation, type DocumentPolicy } from "../graphql/document-policy";
import type { Metrics } from "../http/metrics";
import type { Services } from "../services";
import { ErrorCode, FieldErrorReason, unauthorized } from "../shared/errors";

/** Close codes this service uses besides graphql-ws's own (CloseCode: 4403 Forbidden, 4400 BadRequest, …). */
export const LiveCloseCode = {
  /** The service is shutting down (or restarting): reconnect, to this or another instance. */
  GoingAway: 1001,
  /** A subscriber fell too far behind, or the instance holds too many connections: reconnect and resume. */
  TryAgainLater: 1013,
} as const;

const KEEPALIVE_MS = 15_000;
/** How long shutdown waits for clients to answer the close handshake before cutting their sockets. */
const CLOSE_WAIT_MS = 2_000;
/** connection_init must arrive this soon after the upgrade. */
const CONNECTION_INIT_WAIT_MS = 5_000;

export interface LiveServerOptions {
  schema: GraphQLSchema;
  policy: DocumentPolicy;
  authenticator: Authenticator;
  services: Services;
  metrics: Metrics;
  /** WS_MAX_CONNECTIONS. */
  maxConnections: number;
  /** SUBSCRIPTIONS_PER_CONNECTION. */
  subscriptionsPerConnection: number;
  /** Formats an error as Apollo's formatError does for HTTP answers. */
  formatError: (formatted: GraphQLFormattedError, error: unknown) => GraphQLFormattedError;
  /** The per-caller limiter of HTTP requests (@fastify/rate-limit's createRateLimit()); undefined: no limit. */
  rateLimit?: ReturnType<FastifyInstance["createRateLimit"]>;
}

interface Connection {
  socket: WebSocket;
  request: FastifyRequest;
  caller?: Extract<Caller, { authenticated: true }>;
  expiry?: NodeJS.Timeout;
  /** Subscriptions counted in the gauge, by id. */
  counted: Set<string>;
  opened: number;
}

type Ctx = WsContext<Record<string, unknown>, Connection>;

function documentError(
  message: string,
  reason: FieldErrorReason,
  code: ErrorCode = ErrorCode.BAD_REQUEST,
): GraphQLError {
  return new GraphQLError(message, { extensions: { code, reason } });
}

/**
 * Headers as the authenticator reads them, from a connection_init payload (string values only; x-user-claims may
 * also be the JSON object itself).
 */
function headersOf(params: Record<string, unknown> | undefined): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [name, given] of Object.entries(params ?? {})) {
    const key = name.toLowerCase();
    const value =
      key === "x-user-claims" && given !== null && typeof given === "object" ? JSON.stringify(given) : given;
    if (typeof value === "string" && value.length <= 8192) headers[key] = value;
  }
  return headers;
}

/** A close reason: WebSocket allows 123 bytes. */
function reason(text: string): string {
  return Buffer.byteLength(text) <= 123 ? text : `${Buffer.from(text).subarray(0, 120).toString("utf8")}…`;
}

export class LiveServer {
  private readonly connections = new Set<Connection>();
  private readonly server;
  private readonly gauges;
  private closing = false;

  constructor(private readonly options: LiveServerOptions) {
    const registers = [options.metrics.registry];
    this.gauges = {
      connections: new Gauge({
        name: "graphql_ws_connections",
        help: "Open GraphQL WebSocket connections",
        registers,
      }),
      subscriptions: new Gauge({
        name: "graphql_subscriptions",
        help: "Active GraphQL subscriptions (over all WebSocket connections)",
        registers,
      }),
      events: new Counter({
        name: "graphql_subscription_events_total",
        help: "Subscription events delivered (next messages sent)",
        registers,
      }),
      closed: new Counter({
        name: "graphql_ws_closed_total",
        help: "GraphQL WebSocket connections closed, by close code",
        labelNames: ["code"] as const,
        registers,
      }),
      slow: new Counter({
        name: "graphql_ws_slow_consumers_total",
        help: "Connections closed (1013) because a subscriber fell too far behind",
        registers,
      }),
      refused: new Counter({
        name: "graphql_ws_refused_total",
        help: "WebSocket upgrades refused because the instance held WS_MAX_CONNECTIONS",
        registers,
      }),
    };
    this.server = makeServer<Record<string, unknown>, Connection>({
      schema: options.schema,
      connectionInitWaitTimeout: CONNECTION_INIT_WAIT_MS,
      onConnect: (ctx) => this.onConnect(ctx),
      onSubscribe: (ctx, id, payload) => this.onSubscribe(ctx, id, payload),
      onOperation: (ctx, id, _payload, _args, result) => {
        if (result && typeof result === "object" && Symbol.asyncIterator in result) {
          ctx.extra.counted.add(id);
          this.gauges.subscriptions.inc();
        }
        return undefined;
      },
      onNext: (_ctx, _id, _payload, _args, result) => {
        this.gauges.events.inc();
        return result.errors ? { ...result, errors: this.format(result.errors) } : undefined;
      },
      onError: (_ctx, _id, _payload, errors) => this.format(errors),
      onComplete: (ctx, id) => {
        if (ctx.extra.counted.delete(id)) this.gauges.subscriptions.dec();
      },
    });
  }

  /** Open connections. */
  get size(): number {
    return this.connections.size;
  }

  /** Route hook of GET /graphql: refuses an upgrade beyond WS_MAX_CONNECTIONS before the WebSocket exists. */
  admits(): boolean {
    if (this.closing || this.connections.size < this.options.maxConnections) return true;
    this.gauges.refused.inc();
    return false;
  }

  /** @fastify/websocket's handler of GET /graphql. */
  readonly handle = (socket: WebSocket, request: FastifyRequest): void => {
    if (this.closing || this.connections.size >= this.options.maxConnections) {
      // Upgrades that passed admits() at the same time as others.
      this.gauges.refused.inc();
      socket.close(LiveCloseCode.TryAgainLater, reason("Too many connections on this instance; try again later"));
      return;
    }
    const connection: Connection = { socket, request, counted: new Set(), opened: Date.now() };
    this.connections.add(connection);
    this.gauges.connections.inc();

    let alive = true;
    const keepalive = setInterval(() => {
      if (!alive) return socket.terminate();
      alive = false;
      socket.ping();
    }, KEEPALIVE_MS);
    keepalive.unref();
    socket.on("pong", () => (alive = true));

    const closed = this.server.opened(
      {
        protocol: socket.protocol,
        send: (data) =>
          new Promise<void>((resolve, reject) => {
            if (socket.readyState !== socket.OPEN) return resolve();
            socket.send(data, (err) => (err ? reject(err) : resolve()));
          }),
        close: (code, text) => socket.close(code, reason(text ?? "")),
        onMessage: (cb) =>
          socket.on("message", (data: Buffer, isBinary: boolean) => {
            if (isBinary) return socket.close(CloseCode.BadRequest, "Binary messages are not accepted");
            cb(data.toString("utf8")).catch((err: unknown) => {
              request.log.error({ err }, "GraphQL WebSocket message failed");
              socket.close(CloseCode.InternalServerError, "Internal server error");
            });
          }),
      },
      connection,
    );
    socket.once("close", (code: number, why: Buffer) => {
      clearInterval(keepalive);
      clearTimeout(connection.expiry);
      this.connections.delete(connection);
      this.gauges.connections.dec();
      this.gauges.closed.inc({ code: String(code) });
      request.log.info(
        {
          ws: { code, reason: why.toString("utf8"), ms: Date.now() - connection.opened },
          userId: connection.caller?.id,
        },
        "GraphQL WebSocket closed",
      );
      void closed(code, why.toString("utf8"));
    });
  };

  /** Closes every socket with 1001 and waits (at most CLOSE_WAIT_MS) for them to go, then cuts the rest. */
  async close(): Promise<void> {
    this.closing = true;
    const sockets = [...this.connections].map((c) => c.socket);
    const gone = sockets.map(
      (socket) =>
        new Promise<void>((resolve) => {
          if (socket.readyState === socket.CLOSED) return resolve();
          socket.once("close", () => resolve());
        }),
    );
    for (const socket of sockets) {
      socket.close(
        LiveCloseCode.GoingAway,
        reason("Going away: the service is shutting down; reconnect and resume from your last cursor"),
      );
    }
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      Promise.all(gone),
      new Promise<void>((resolve) => (timer = setTimeout(resolve, CLOSE_WAIT_MS))),
    ]);
    clearTimeout(timer);
    for (const socket of sockets) if (socket.readyState !== socket.CLOSED) socket.terminate();
  }

  private async onConnect(ctx: Ctx): Promise<boolean> {
    const { socket } = ctx.extra;
    const caller = await this.options.authenticator.authenticate(headersOf(ctx.connectionParams));
    if (!caller.authenticated) {
      socket.close(CloseCode.Forbidden, reason(`Forbidden: ${caller.reason}`));
      return false;
    }
    ctx.extra.caller = caller;
    // The rate limit keys on the caller, as for HTTP requests.
    ctx.extra.request.caller = caller;
    if (caller.expiresAt !== undefined) {
      const expire = () =>
        socket.close(CloseCode.Forbidden, reason("Forbidden: token has expired; reconnect with a fresh one"));
      const left = caller.expiresAt - Date.now();
      if (left <= 0) {
        expire();
        return false;
      }
      ctx.extra.expiry = setTimeout(expire, Math.min(left, 2_147_483_647));
      ctx.extra.expiry.unref();
    }
    return true;
  }

  private async onSubscribe(
    ctx: Ctx,
    id: string,
    payload: SubscribePayload,
  ): Promise<ExecutionArgs | readonly GraphQLError[]> {
    const { request } = ctx.extra;
    const caller = ctx.extra.caller!;
    const active = Object.keys(ctx.subscriptions).length; // this one included
    if (active > this.options.subscriptionsPerConnection) {
      return [
        documentError(
          `At most ${this.options.subscriptionsPerConnection} subscriptions may be active on one connection ` +
            `(SUBSCRIPTIONS_PER_CONNECTION); complete one first or open another connection`,
          FieldErrorReason.LIMIT_EXCEEDED,
        ),
      ];
    }
    if (this.options.rateLimit) {
      const limit = await this.options.rateLimit(request);
      if (!limit.isAllowed && limit.isExceeded) {
        return [
          documentError(
            `Rate limit of ${limit.max} requests per minute exceeded; retry in ${limit.ttlInSeconds} s`,
            FieldErrorReason.RATE_LIMITED,
            ErrorCode.TOO_MANY_REQUESTS,
          ),
        ];
      }
    }
    const prepared = prepareOperation(this.options.policy, this.options.schema, {
      query: payload.query,
      variables: payload.variables,
      operationName: payload.operationName,
      // Persisted documents: the same names as over HTTP (graphql-ws keeps the message's other fields).
      documentId: (payload as { documentId?: unknown }).documentId,
      extensions: payload.extensions,
    });
    if ("errors" in prepared) return prepared.errors;
    if ((prepared.operation as OperationDefinitionNode).operation !== "subscription") {
      return [
        documentError(
          "Only subscriptions run over WebSocket; send queries and mutations to POST /graphql",
          FieldErrorReason.NOT_SUPPORTED,
        ),
      ];
    }
    const { services } = this.options;
    const access = services.projects.accessOf(caller);
    const context: Context = {
      caller,
      access,
      services,
      loaders: createLoaders(services, access),
      logger: request.log,
      live: {
        onOverflow: () => {
          this.gauges.slow.inc();
          // The close frame follows what the socket still holds; ws cuts the socket if the handshake does not end
          // within its closeTimeout (30 s). Nothing more is queued meanwhile: the subscriber is closed.
          ctx.extra.socket.close(
            LiveCloseCode.TryAgainLater,
            reason("Slow consumer: too many events unread; reconnect and resume from your last cursor"),
          );
        },
        authorizeEvent: () => {
          if (caller.expiresAt !== undefined && Date.now() >= caller.expiresAt) {
            ctx.extra.socket.close(
              CloseCode.Forbidden,
              reason("Forbidden: token has expired; reconnect with a fresh one"),
            );
            throw unauthorized("token has expired");
          }
        },
      },
    };
    return {
      schema: this.options.schema,
      document: prepared.document,
      operationName: payload.operationName,
      variableValues: payload.variables,
      contextValue: context,
    };
  }

  /** Errors as HTTP answers show them; errors of the document itself get BAD_REQUEST. */
  private format(errors: readonly GraphQLError[]): GraphQLFormattedError[] {
    return errors.map((error) => {
      const formatted = this.options.formatError(error.toJSON(), error);
      // `http` is for HTTP answers (Apollo strips it there too).
      const { http: _http, ...extensions } = formatted.extensions ?? {};
      const known =
        typeof extensions.code === "string" && (Object.values(ErrorCode) as string[]).includes(extensions.code);
      return {
        ...formatted,
        message: this.options.policy.message(formatted.message),
        extensions: { ...extensions, code: known ? extensions.code : ErrorCode.BAD_REQUEST },
      };
    });
  }
}
