// Request ids: every request gets one, taken from the client's X-Request-Id when it is safe to echo and log
// (≤ 64 characters of [A-Za-z0-9._-]), otherwise a new UUID; every response carries it back in x-request-id.
// Fastify puts it on each request's logger (reqId), so every log line of a request names it.
import { randomUUID } from "node:crypto";
import type { IncomingMessage } from "node:http";
import type { FastifyInstance } from "fastify";

const REQUEST_ID_HEADER = "x-request-id";

const SAFE_REQUEST_ID = /^[A-Za-z0-9._-]{1,64}$/;

/** Fastify's genReqId: the client's id when safe, else a fresh one (never a value that could forge log lines). */
export function requestIdFor(request: IncomingMessage): string {
  const sent = request.headers[REQUEST_ID_HEADER];
  return typeof sent === "string" && SAFE_REQUEST_ID.test(sent) ? sent : randomUUID();
}

/** Echoes the id on every response: set first thing, so error and not-found replies carry it too. */
export function registerRequestIdHeader(app: FastifyInstance): void {
  app.addHook("onRequest", (request, reply, done) => {
    reply.header(REQUEST_ID_HEADER, request.id);
    done();
  });
}
