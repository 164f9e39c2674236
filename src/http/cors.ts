// CORS for browser frontends on other origins (@fastify/cors): which origins may call /graphql and the REST routes,
// and which headers a preflight allows and a response exposes. Apollo's CSRF prevention stays in force beside it:
// CORS lets an allowed page read answers, while Apollo refuses the simple (unpreflighted) requests a hostile page
// could send without reading them.
import type { FastifyCorsOptions } from "@fastify/cors";
import type { FastifyInstance } from "fastify";
import type { Config } from "../config";
import { failure } from "../answers/failure";
import { sendFailure } from "../answers/http-fallback";
import { FieldErrorReason } from "../shared/errors";

/** Outside production without CORS_ORIGINS: any port of a local development server (Vite on :5173, etc.). */
const LOCAL_DEVELOPMENT_ORIGINS = [/^http:\/\/localhost(:\d{1,5})?$/, /^http:\/\/127\.0\.0\.1(:\d{1,5})?$/];

/** Every header the API reads: content type, both auth modes, request ids and Apollo's CSRF-prevention headers. */
const CORS_ALLOWED_HEADERS = [
  "content-type",
  "authorization",
  "x-user-role",
  "x-user-id",
  "x-request-id",
  "apollo-require-preflight",
  "x-apollo-operation-name",
];

/** Response headers a frontend may read besides the CORS-safelisted ones. */
const CORS_EXPOSED_HEADERS = ["x-request-id", "retry-after"];

/** Browsers cache a preflight this many seconds (Chromium caps it at 7200). */
const PREFLIGHT_MAX_AGE_SECONDS = 600;

export function corsOptions(config: Pick<Config, "production" | "corsOrigins">): FastifyCorsOptions {
  return {
    // false: no CORS headers at all, so every cross-origin browser read is refused.
    origin: config.corsOrigins ?? (config.production ? false : LOCAL_DEVELOPMENT_ORIGINS),
    methods: ["GET", "HEAD", "POST", "PUT"],
    allowedHeaders: CORS_ALLOWED_HEADERS,
    exposedHeaders: CORS_EXPOSED_HEADERS,
    // Bearer tokens travel in a header, never in cookies, so credentialed requests are not needed.
    credentials: false,
    maxAge: PREFLIGHT_MAX_AGE_SECONDS,
  };
}

const NOT_A_PREFLIGHT =
  "OPTIONS is answered only as a CORS preflight, which carries Origin and Access-Control-Request-Method headers";

/**
 * OPTIONS that is not a CORS preflight (no Origin or no Access-Control-Request-Method): 400 with the error body of
 * the route, like every other refusal. Without this, @fastify/cors answers it with a plain-text "Invalid Preflight
 * Request". Register before the CORS plugin.
 */
export function registerPreflightCheck(app: FastifyInstance): void {
  app.addHook("onRequest", async (request, reply) => {
    if (request.method !== "OPTIONS") return;
    if (request.headers.origin && request.headers["access-control-request-method"]) return;
    return sendFailure(request, reply, failure(400, FieldErrorReason.MALFORMED_REQUEST, NOT_A_PREFLIGHT));
  });
}
