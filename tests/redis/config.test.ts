// When REDIS_URL is read at start, then a redis:// or rediss:// URL is taken as given (unset: no Redis, as before),
// and anything else stops the start with one line naming the variable, with the URL's password masked. When the
// deployment files run the service, then compose.yaml runs several replicas sharing one Redis.
import fs from "node:fs";
import path from "node:path";
import { parse } from "yaml";
import { parseStatusWorkflow } from "../../src/components/projects";
import { loadConfig } from "../../src/config";
import { ConfigError } from "../../src/shared/environment";

const load = (env: NodeJS.ProcessEnv) => loadConfig(env, { statusWorkflow: parseStatusWorkflow });

function configError(env: NodeJS.ProcessEnv): string {
  try {
    load(env);
  } catch (err) {
    expect(err).toBeInstanceOf(ConfigError);
    return (err as Error).message;
  }
  throw new Error("expected a ConfigError");
}

describe("REDIS_URL", () => {
  it("when it is unset or blank, then the service uses no Redis", () => {
    expect(load({}).redisUrl).toBeUndefined();
    expect(load({ REDIS_URL: "  " }).redisUrl).toBeUndefined();
  });

  it.each(["redis://redis:6379/0", "rediss://default:pa55@cache.example.org:6380", "redis://:secret@10.0.0.5"])(
    "when it is %s, then it is used as given",
    (url) => {
      expect(load({ REDIS_URL: url }).redisUrl).toBe(url);
    },
  );

  it.each([
    [
      "another scheme",
      "http://cache:6379",
      /^Invalid REDIS_URL \("http:\/\/cache:6379"\): accepts a redis:\/\/ or rediss:\/\//,
    ],
    ["no host", "redis://", /^Invalid REDIS_URL \("redis:\/\/"\): /],
    ["a bare host", "cache:6379", /^Invalid REDIS_URL \("cache:6379"\): /],
  ])("when it has %s, then the start stops with one line naming REDIS_URL", (_case, url, message) => {
    const line = configError({ REDIS_URL: url });
    expect(line).toMatch(message);
    expect(line).not.toContain("\n");
  });

  it("when a refused URL carries a password, then the error line masks it", () => {
    const line = configError({ REDIS_URL: "http://app:hunter2-secret@cache:6379" });
    expect(line).toMatch(/^Invalid REDIS_URL \("http:\/\/app:\*\*\*@cache:6379"\): /);
    expect(line).not.toContain("hunter2-secret");
  });
});

describe("compose.yaml", () => {
  const compose = parse(fs.readFileSync(path.resolve(__dirname, "../../compose.yaml"), "utf8"));

  it("when started, then several replicas of the service share the Redis it runs, which keeps nothing on disk", () => {
    const { api, redis } = compose.services;
    const replicas = api.deploy.replicas as number;
    expect(replicas).toBeGreaterThan(1);
    // One host port per replica: 4000-4002 for three.
    const [, first, last] = /^(\d+)-(\d+):4000$/.exec(api.ports[0] as string)!;
    expect(Number(last) - Number(first) + 1).toBe(replicas);
    expect(api.environment.REDIS_URL).toBe("redis://redis:6379/0");
    expect(api.depends_on.redis).toBeDefined();
    expect(redis.command).toEqual(expect.arrayContaining(["--save", "", "--appendonly", "no", "--maxmemory"]));
  });
});
