// The HTTP server's own limits and the failures Fastify and Node find before a route runs: time limits for slow or
// unfinished requests, and what to say about too long a path parameter, oversized headers, broken framing, a
// timed-out request and requests refused while the service drains for shutdown (answered in the shape of
// answers/http-fallback.ts). Without these, the framework answers its own bodies ({error, message, statusCode},
// "Client Error") and a body that never completes holds its connection for minutes.
import type http from "node:http";
import type { Socket } from "node:net";
import type { FastifyError, FastifyHttpOptions, FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { failure } from "../answers/failure";
import { rawHttpAnswer, sendFailure } from "../answers/http-fallback";
import { ErrorCode, FieldErrorReason } from "../shared/errors";

/** The time limits of the HTTP server, in milliseconds (README "Time limits and failure"). */
const HTTP_TIMEOUTS = {
  /** From the first byte of a request's headers until they are complete. */
  headersTimeoutMs: 10_000,
  /** From the first byte of a request until its whole body has arrived; then 408 and the connection closes. */
  requestTimeoutMs: 30_000,
  /** A connection with no traffic at all in either direction is closed after this long. */
  connectionTimeoutMs: 60_000,
  /** An idle keep-alive connection is closed after this long. */
  keepAliveTimeoutMs: 10_000,
  /** How often Node checks the two limits above (its default, 30 s, would let a limit overrun by that much). */
  checkIntervalMs: 1_000,
} as const;

/** Node's limit for the request line and headers together; more is 431. */
const MAX_HEADER_BYTES = 16 * 1024;

const MAX_PARAM_LENGTH = 100;

/** Fastify options for createApp: time limits, and the envelope for the framework's own errors. */
export const serverOptions = {
  connectionTimeout: HTTP_TIMEOUTS.connectionTimeoutMs,
  keepAliveTimeout: HTTP_TIMEOUTS.keepAliveTimeoutMs,
  requestTimeout: HTTP_TIMEOUTS.requestTimeoutMs,
  routerOptions: { maxParamLength: MAX_PARAM_LENGTH },
  http: {
    headersTimeout: HTTP_TIMEOUTS.headersTimeoutMs,
    connectionsCheckingInterval: HTTP_TIMEOUTS.checkIntervalMs,
    maxHeaderSize: MAX_HEADER_BYTES,
  },
  // Fastify's own 503 while closing writes a fixed body; registerDraining answers the envelope instead.
  return503OnClosing: false,
  frameworkErrors,
  clientErrorHandler,
} satisfies FastifyHttpOptions<http.Server>;

/** Errors Fastify finds while routing (a path parameter over 100 characters, a malformed URL): 400, the envelope. */
function frameworkErrors(err: FastifyError, request: FastifyRequest, reply: FastifyReply): void {
  const refusal =
    err.code === "FST_ERR_MAX_PARAM_LENGTH"
      ? failure(
          400,
          FieldErrorReason.TOO_LARGE,
          `a path parameter is longer than ${MAX_PARAM_LENGTH} characters; ids are whole numbers of at least 1`,
        )
      : err.code === "FST_ERR_BAD_URL"
        ? failure(
            400,
            FieldErrorReason.MALFORMED_REQUEST,
            "malformed URL: a percent-encoded sequence in the path is invalid",
          )
        : failure(400, FieldErrorReason.MALFORMED_REQUEST, "the request cannot be routed");
  void sendFailure(request, reply, refusal);
}

/**
 * Errors Node's HTTP parser raises before Fastify sees a request (oversized headers, broken framing, a request not
 * received in time). The path may be unknown here: the answer is written on the socket (answers/http-fallback.ts).
 */
function clientErrorHandler(this: FastifyInstance, err: NodeJS.ErrnoException, socket: Socket): void {
  if (err.code === "ECONNRESET" || socket.destroyed) return;
  let status = 400;
  let reason = FieldErrorReason.MALFORMED_REQUEST;
  let message =
    "malformed HTTP request: the request line, a header or the body framing (Content-Length, Transfer-Encoding) is invalid";
  if (err.code === "HPE_HEADER_OVERFLOW") {
    status = 431;
    reason = FieldErrorReason.TOO_LARGE;
    message = `request headers are too large (over ${MAX_HEADER_BYTES / 1024} KiB together); send fewer or smaller headers`;
  } else if (err.code === "ERR_HTTP_REQUEST_TIMEOUT") {
    // Node raises the same error for either limit.
    status = 408;
    reason = FieldErrorReason.TIMEOUT;
    message =
      `the request was not received in time (its headers within ${HTTP_TIMEOUTS.headersTimeoutMs / 1000} s, ` +
      `all of it within ${HTTP_TIMEOUTS.requestTimeoutMs / 1000} s); send it again without pausing`;
  }
  this.log.info({ code: err.code, status }, "client error");
  // Nothing can be written once a response has started on this socket (Node's own rule).
  const pending = (socket as Socket & { _httpMessage?: { headersSent?: boolean } })._httpMessage;
  if (socket.writable && !pending?.headersSent) {
    socket.end(rawHttpAnswer(failure(status, reason, message)));
    return;
  }
  socket.destroy(err);
}

const DRAINING_MESSAGE = "the service is shutting down; retry the request (another instance or after the restart)";

/**
 * From the moment the app starts closing, requests that still arrive (on keep-alive connections) answer 503 with
 * the envelope and `Connection: close`; requests already running complete. Register before any route or plugin so
 * every route inherits the hook.
 */
export function registerDraining(app: FastifyInstance): void {
  let draining = false;
  app.addHook("preClose", async () => {
    draining = true;
  });
  // A request that was running when closing began still gets its answer, then its connection closes: an idle
  // keep-alive connection would otherwise hold the shutdown until keepAliveTimeout.
  app.addHook("onSend", async (_request, reply, payload) => {
    if (draining) void reply.header("connection", "close");
    return payload;
  });
  app.addHook("onRequest", async (request, reply) => {
    if (!draining) return;
    return sendFailure(
      request,
      reply.header("connection", "close"),
      failure(503, FieldErrorReason.UNAVAILABLE, DRAINING_MESSAGE, ErrorCode.INTERNAL_SERVER_ERROR),
    );
  });
}
