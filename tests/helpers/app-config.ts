// The configuration tests build an app with: what a test sets (undefined: not set), and for the rest the service's
// defaults, except the rate limit, which is off (the tests of a file act as one caller).
import type { AppConfig } from "../../src/app";

export function testAppConfig(config: Partial<AppConfig> = {}): AppConfig {
  const given = Object.fromEntries(Object.entries(config).filter(([, value]) => value !== undefined));
  return {
    auth: { mode: "header" },
    production: false,
    explorer: "graphiql",
    rateLimitPerMinute: 0,
    subscriptionPollMs: 250,
    subscriptionsPerConnection: 20,
    wsMaxConnections: 1000,
    trustedDocumentsOnly: false,
    ...given,
  };
}
