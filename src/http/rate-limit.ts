// Requests per minute per caller (RATE_LIMIT_PER_MINUTE, 0 = off) with @fastify/rate-limit. The key is the
// authenticated caller (JWT sub, or X-User-Id in header mode), else the client address; probes and the metrics
// scrape are exempt. Over the limit the request fails with a TOO_MANY_REQUESTS DomainError and Retry-After, which
// the app's error handler answers in the route's shape (REST envelope, GraphQL error; answers/http-fallback.ts).
// Counts live in this instance's memory, or with REDIS_URL in the store src/redis gives (one count per caller across
// every instance, and this instance's memory while Redis is out).
import rateLimit, { type FastifyRateLimitStoreCtor } from "@fastify/rate-limit";
import type { FastifyInstance, FastifyRequest } from "fastify";
import { DomainError, ErrorCode, FieldErrorReason } from "../shared/errors";
import { isOperationsRoute } from "./caller";

/** Over the limit: carries the HTTP status for the error handlers that read statusCode. */
class TooManyRequestsError extends DomainError {
  readonly statusCode = 429;

  constructor(message: string) {
    super(ErrorCode.TOO_MANY_REQUESTS, message, { reason: FieldErrorReason.RATE_LIMITED });
  }
}

function rateLimitKey(request: FastifyRequest): string {
  const caller = request.caller;
  return caller?.authenticated && caller.id ? `caller:${caller.id}` : `address:${request.ip}`;
}

/**
 * Register before the routes: the plugin attaches its hook to each route as it is added. `store`: where counts are
 * kept (default: this instance's memory).
 */
export async function registerRateLimit(
  app: FastifyInstance,
  perMinute: number,
  store?: FastifyRateLimitStoreCtor,
): Promise<void> {
  if (perMinute <= 0) return;
  await app.register(rateLimit, {
    ...(store ? { store } : {}),
    max: perMinute,
    timeWindow: 60_000,
    // After the caller hook (app-level onRequest hooks run before route-level ones), before the body is read.
    hook: "onRequest",
    keyGenerator: rateLimitKey,
    allowList: (request) => isOperationsRoute(request),
    errorResponseBuilder: (_request, context) =>
      new TooManyRequestsError(
        `Rate limit of ${context.max} requests per minute exceeded; retry in ${Math.ceil(context.ttl / 1000)} s`,
      ),
  });
}
