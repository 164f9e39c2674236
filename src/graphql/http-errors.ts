// Errors raised by Fastify before a /graphql request reaches Apollo (malformed JSON, an oversized body, an
// unsupported content type) answered as a GraphQL response, {errors: [{message, extensions: {code}}]}, with the
// HTTP status of the failure, instead of Fastify's default body. The REST facade has its own handler.
import type { FastifyError, FastifyReply, FastifyRequest } from "fastify";
import { DomainError, ErrorCode, INTERNAL_MESSAGE } from "../shared/errors";

export function graphqlHttpErrorHandler(err: FastifyError, request: FastifyRequest, reply: FastifyReply) {
  const status = err.statusCode ?? 500;
  if (status >= 500) {
    request.log.error({ err }, "internal error");
    return reply.code(500).send({ errors: [{ message: INTERNAL_MESSAGE, extensions: { code: ErrorCode.INTERNAL_SERVER_ERROR } }] });
  }
  const message = err instanceof SyntaxError || err.code === "FST_ERR_CTP_INVALID_JSON_BODY" ? `malformed JSON body: ${err.message}` : err.message;
  // A DomainError raised before Apollo (the rate limit's TOO_MANY_REQUESTS) keeps its code.
  const code = err instanceof DomainError ? err.code : ErrorCode.BAD_REQUEST;
  return reply.code(status).send({ errors: [{ message, extensions: { code } }] });
}
