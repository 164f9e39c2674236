// Authenticates each request once, in an onRequest hook, and keeps the Caller on the request: the rate limit keys
// on it, the GraphQL context and the REST routes reuse it, and the request log names it. In jwt mode this is the
// one signature verification of the request. Health and metrics routes are not authenticated.
import type { FastifyInstance, FastifyRequest } from "fastify";
import type { Authenticator } from "../auth/authenticator";
import type { Caller } from "../auth/caller";

declare module "fastify" {
  interface FastifyRequest {
    /** Who is calling; undefined on routes that do not authenticate (health, metrics). */
    caller?: Caller;
  }
}

/** Routes for machines (probes, scrapers): no caller, no rate limit. */
const UNAUTHENTICATED_ROUTES: ReadonlySet<string> = new Set(["/healthz", "/readyz", "/metrics"]);

/** Probes, scrapes and CORS preflights (which carry no credentials): neither authenticated nor rate limited. */
export function isOperationsRoute(request: FastifyRequest): boolean {
  return request.method === "OPTIONS" || UNAUTHENTICATED_ROUTES.has(request.routeOptions.url ?? "");
}

export function registerCaller(app: FastifyInstance, authenticator: Authenticator): void {
  app.decorateRequest("caller", undefined);
  app.addHook("onRequest", async (request) => {
    if (!isOperationsRoute(request)) request.caller = await authenticator.authenticate(request.headers);
  });
}

/** The request's caller, authenticating now if no hook did (an app built without registerCaller). */
export async function callerOf(request: FastifyRequest, authenticator: Authenticator): Promise<Caller> {
  return (request.caller ??= await authenticator.authenticate(request.headers));
}
