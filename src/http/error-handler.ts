// The app's root error handler: it answers errors of every route outside the REST plugin (which has its own
// handler, src/rest/rest.plugin.ts). Mostly those are errors Fastify raises before a /graphql request reaches Apollo
// (malformed JSON, an oversized body, an unsupported content type, the rate limit): they are answered as a GraphQL
// response, {errors: [{message, extensions: {code}}]}, with the HTTP status of the failure, instead of Fastify's
// default body. The few other routes (health, metrics, docs) get the same shape.
import type { FastifyError, FastifyReply, FastifyRequest } from "fastify";
import { DomainError, ErrorCode, INTERNAL_MESSAGE } from "../shared/errors";

export interface GraphqlErrorBody {
  errors: { message: string; extensions: { code: ErrorCode } }[];
}

/** The GraphQL shape of an error answered outside Apollo. */
export function graphqlErrorBody(message: string, code: ErrorCode): GraphqlErrorBody {
  return { errors: [{ message, extensions: { code } }] };
}

/** True for the GraphQL endpoint (with or without a query string). */
export function isGraphqlUrl(url: string): boolean {
  const path = url.split("?")[0];
  return path === "/graphql" || path === "/graphql/";
}

/** Runtime text (a stack overflow, a V8 range error) says nothing a client can act on and leaks internals. */
const RUNTIME_TEXT = /call stack|RangeError|Invalid (array|string) length|out of memory/i;

export function rootErrorHandler(err: FastifyError, request: FastifyRequest, reply: FastifyReply) {
  const status = err.statusCode ?? 500;
  if (status >= 500) {
    request.log.error({ err }, "internal error");
    return reply.code(500).send(graphqlErrorBody(INTERNAL_MESSAGE, ErrorCode.INTERNAL_SERVER_ERROR));
  }
  let message =
    err instanceof SyntaxError || err.code === "FST_ERR_CTP_INVALID_JSON_BODY"
      ? `malformed JSON body: ${err.message}`
      : err.message;
  // Fastify's own errors may be RangeErrors too (body too large); those messages are the framework's, not V8's.
  if ((err instanceof RangeError && !err.code?.startsWith("FST_")) || RUNTIME_TEXT.test(message)) {
    request.log.warn({ err }, "client error with runtime text");
    message = "the request is nested too deeply or is too large to process; simplify it";
  }
  // A DomainError raised before Apollo (the rate limit's TOO_MANY_REQUESTS) keeps its code.
  const code = err instanceof DomainError ? err.code : ErrorCode.BAD_REQUEST;
  return reply.code(status).send(graphqlErrorBody(message, code));
}

/**
 * An error Apollo formats from the runtime instead of graphql-js (a document nested deeply enough to overflow the
 * parser's stack) keeps its code but gets a message that says what to fix.
 */
export function withoutRuntimeText<T extends { message: string }>(formatted: T): T {
  if (!RUNTIME_TEXT.test(formatted.message)) return formatted;
  return {
    ...formatted,
    message: "the GraphQL document nests lists or objects too deeply, or is too large, to process; simplify it",
  };
}
