// The operations side of the HTTP app in one registration (x-request-id is registered first of all, in app.ts): the
// caller authenticated once per request, the per-caller rate limit, and request metrics with GET /metrics. Registered
// before the routes, because the rate limit attaches itself to each route as the route is added.
import type { FastifyRateLimitStoreCtor } from "@fastify/rate-limit";
import type { FastifyInstance } from "fastify";
import type { Authenticator } from "../auth/authenticator";
import type { Config } from "../config";
import { registerCaller } from "./caller";
import { registerMetrics, type Metrics } from "./metrics";
import { registerRateLimit } from "./rate-limit";

export interface OperationsOptions {
  config: Pick<Config, "production" | "rateLimitPerMinute" | "metricsToken">;
  authenticator: Authenticator;
  metrics: Metrics;
  /** Where rate-limit counts are kept (REDIS_URL's shared store); default: this instance's memory. */
  rateLimitStore?: FastifyRateLimitStoreCtor;
}

export async function registerOperations(
  app: FastifyInstance,
  { config, authenticator, metrics, rateLimitStore }: OperationsOptions,
): Promise<void> {
  app.decorateRequest("graphql", undefined);
  registerCaller(app, authenticator);
  registerMetrics(app, metrics, { production: config.production, token: config.metricsToken });
  await registerRateLimit(app, config.rateLimitPerMinute, rateLimitStore);
}
