// The configuration the benches build the app with: the service's defaults in header mode, with the rate limit off
// (a bench is one caller sending thousands of requests).
import type { AppConfig } from "../src/app";

export const BENCH_APP_CONFIG: AppConfig = {
  auth: { mode: "header" },
  production: false,
  explorer: "graphiql",
  rateLimitPerMinute: 0,
  subscriptionPollMs: 250,
  subscriptionsPerConnection: 20,
  wsMaxConnections: 1000,
  trustedDocumentsOnly: false,
};
