// The live updates' three variables: defaults as the contract gives them, and one clear line for a bad value.
import { parseStatusWorkflow } from "../../src/components/projects";
import { loadConfig as loadConfigWith } from "../../src/config";
import { ConfigError } from "../../src/shared/environment";

const loadConfig = (env: NodeJS.ProcessEnv) => loadConfigWith(env, { statusWorkflow: parseStatusWorkflow });

function configError(env: Record<string, string>): string {
  try {
    loadConfig(env);
  } catch (err) {
    if (err instanceof ConfigError) return err.message;
    throw err;
  }
  throw new Error("loadConfig accepted the environment");
}

describe("live updates configuration", () => {
  it("when nothing is set, then the poll is 250 ms, 20 subscriptions per connection and 1000 connections", () => {
    expect(loadConfig({})).toMatchObject({
      subscriptionPollMs: 250,
      subscriptionsPerConnection: 20,
      wsMaxConnections: 1000,
    });
  });

  it("when the variables are set, then they are used", () => {
    expect(
      loadConfig({ SUBSCRIPTION_POLL_MS: "100", SUBSCRIPTIONS_PER_CONNECTION: "5", WS_MAX_CONNECTIONS: "0" }),
    ).toMatchObject({ subscriptionPollMs: 100, subscriptionsPerConnection: 5, wsMaxConnections: 0 });
  });

  it.each([
    [{ SUBSCRIPTION_POLL_MS: "5" }, 'Invalid SUBSCRIPTION_POLL_MS ("5"): accepts a whole number from 10 to 60000'],
    [
      { SUBSCRIPTIONS_PER_CONNECTION: "0" },
      'Invalid SUBSCRIPTIONS_PER_CONNECTION ("0"): accepts a whole number from 1 to 1000',
    ],
    [{ WS_MAX_CONNECTIONS: "lots" }, 'Invalid WS_MAX_CONNECTIONS ("lots"): accepts a whole number from 0 to 1000000'],
  ])("when %j, then start-up fails with one line naming it", (env, line) => {
    expect(configError(env)).toBe(line);
  });
});
