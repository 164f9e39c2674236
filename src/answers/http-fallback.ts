// The plain HTTP fallback: how the server answers a failure that no operation answers itself, whether the framework
// raised it (malformed JSON, an oversized body, the rate limit, too long a path parameter, an unknown route, draining
// for shutdown) or a route threw. On /graphql the body is the GraphQL error, anywhere else the envelope; when Node's
// parser fails before any path is known, the envelope whose entries also carry GraphQL's extensions.code, so both
// kinds of client read it.
import http from "node:http";
import type { FastifyError, FastifyReply, FastifyRequest } from "fastify";
import { FieldErrorReason } from "../shared/errors";
import { errorBody } from "./envelope";
import { failure, failureOf, type Failure } from "./failure";
import { graphqlErrorBody } from "./graphql-error";

/** True for the GraphQL endpoint (with or without a query string). */
function isGraphqlUrl(url: string): boolean {
  const path = url.split("?")[0];
  return path === "/graphql" || path === "/graphql/";
}

/** Answers `failure` to a request in the shape its route's clients read. */
export function sendFailure(request: FastifyRequest, reply: FastifyReply, failure: Failure): FastifyReply {
  if (failure.retryAfterSeconds !== undefined) reply.header("retry-after", String(failure.retryAfterSeconds));
  return reply.code(failure.status).send(isGraphqlUrl(request.url) ? graphqlErrorBody(failure) : errorBody(failure));
}

/** The app's error handler: everything a route or the framework throws (Apollo answers GraphQL's own errors). */
export function appErrorHandler(err: FastifyError, request: FastifyRequest, reply: FastifyReply): FastifyReply {
  return sendFailure(request, reply, failureOf(err, request.log));
}

/** The app's not-found handler: the envelope, on /graphql too (a method it does not serve). */
export function appNotFoundHandler(request: FastifyRequest, reply: FastifyReply): FastifyReply {
  const path = request.url.split("?")[0].slice(0, 200);
  const notFound = failure(404, FieldErrorReason.NOT_FOUND, `no route ${request.method} ${path}`);
  return reply.code(notFound.status).send(errorBody(notFound));
}

/** The whole HTTP/1.1 response to write on a socket whose request Node could not parse; the connection closes. */
export function rawHttpAnswer(failure: Failure): string {
  const entries = failure.errors.map((entry) => ({ ...entry, extensions: { code: entry.code } }));
  const body = JSON.stringify({ ...errorBody(failure), errors: entries });
  return (
    `HTTP/1.1 ${failure.status} ${http.STATUS_CODES[failure.status]}\r\nContent-Type: application/json; charset=utf-8\r\n` +
    `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`
  );
}
