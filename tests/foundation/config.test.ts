// When the environment is read at start, then every contract variable is validated once and a bad value stops the
// process with one line naming the variable and what it accepts.
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { loadBenchConfig } from "../../bench/bench-config";
import { parseStatusWorkflow } from "../../src/components/projects";
import { loadConfig as loadConfigWith } from "../../src/config";
import { loadToolConfig } from "../../src/db/tool-config";
import { ConfigError } from "../../src/shared/environment";
import { REPO_ROOT } from "../../src/shared/package-root";

const REPO = path.resolve(__dirname, "../..");

/** The service's configuration as its start reads it (the projects component parses the workflow file). */
const loadConfig = (env: NodeJS.ProcessEnv) => loadConfigWith(env, { statusWorkflow: parseStatusWorkflow });

function configError(env: NodeJS.ProcessEnv): string {
  try {
    loadConfig(env);
  } catch (err) {
    expect(err).toBeInstanceOf(ConfigError);
    return (err as Error).message;
  }
  throw new Error("expected a ConfigError");
}

describe("configuration", () => {
  it("when nothing is set, then the contract's defaults apply", () => {
    const config = loadConfig({});
    expect(config).toMatchObject({
      port: 4000,
      host: "127.0.0.1",
      mongodbUri: undefined,
      dataDir: path.join(REPO, ".data"),
      embeddedDb: "auto",
      production: false,
      auth: { mode: "header" },
      statusWorkflow: undefined,
      logLevel: "info",
    });
  });

  it("when NODE_ENV=production with a JWT secret, then HOST defaults to 0.0.0.0 and auth is jwt", () => {
    const config = loadConfig({ NODE_ENV: "production", AUTH_JWT_SECRET: "s".repeat(32), AUTH_JWT_ISSUER: "iss" });
    expect(config.host).toBe("0.0.0.0");
    expect(config.auth).toEqual({
      mode: "jwt",
      secret: "s".repeat(32),
      issuer: "iss",
      audience: undefined,
      jwksUrl: undefined,
    });
  });

  it.each([
    [{ PORT: "abc" }, /^Invalid PORT \("abc"\): accepts a whole number from 0 to 65535$/],
    [{ PORT: "70000" }, /^Invalid PORT/],
    [{ MONGODB_URI: "postgres://x" }, /^Invalid MONGODB_URI .*mongodb:\/\//],
    [{ EMBEDDED_DB: "sqlite" }, /^Invalid EMBEDDED_DB \("sqlite"\): accepts auto, mongod or ferretdb$/],
    [{ LOG_LEVEL: "loud" }, /^Invalid LOG_LEVEL .*accepts fatal, error, warn, info, debug, trace or silent/],
    [{ AUTH_JWT_SECRET: "short" }, /^Invalid AUTH_JWT_SECRET .*at least 32 bytes/],
    [{ AUTH_JWKS_URL: "not a url" }, /^Invalid AUTH_JWKS_URL .*http\(s\) URL/],
    [
      { NODE_ENV: "production" },
      /^Invalid AUTH_JWT_SECRET \/ AUTH_JWKS_URL: one of them is required when NODE_ENV=production/,
    ],
    [
      { PROJECT_STATUS_WORKFLOW: "/nonexistent/workflow.json" },
      /^Invalid PROJECT_STATUS_WORKFLOW .*cannot read the file \(ENOENT\)/,
    ],
  ])("when %j, then start-up fails with one line naming the variable", (env, expected) => {
    const message = configError(env);
    expect(message).toMatch(expected);
    expect(message).not.toContain("\n");
  });

  it.each([
    [
      "AUTH_JWT_SECRET",
      { AUTH_JWT_SECRET: "hunter2-too-short" },
      "hunter2-too-short",
      /^Invalid AUTH_JWT_SECRET \(17 characters, value hidden\): /,
    ],
    [
      "METRICS_TOKEN",
      { METRICS_TOKEN: "tok en" },
      "tok en",
      /^Invalid METRICS_TOKEN \(6 characters, value hidden\): accepts a bearer token/,
    ],
    [
      "the password in MONGODB_URI",
      { MONGODB_URI: "mongodb://app:s3cr@t-pw@db example/x" },
      "s3cr",
      /^Invalid MONGODB_URI \("mongodb:\/\/app:\*\*\*@db example\/x"\): /,
    ],
    [
      "the password of a non-MongoDB URI",
      { MONGODB_URI: "postgres://app:pa55word@db/x" },
      "pa55word",
      /^Invalid MONGODB_URI \("postgres:\/\/app:\*\*\*@db\/x"\): /,
    ],
  ])("when %s is invalid, then the error line does not print the secret", (_what, env, secret, expected) => {
    const message = configError(env);
    expect(message).toMatch(expected);
    expect(message).not.toContain(secret);
  });

  it("when METRICS_TOKEN is set, then it is the metrics bearer token; unset, there is none", () => {
    expect(loadConfig({ METRICS_TOKEN: "a-scrape-token-0123" }).metricsToken).toBe("a-scrape-token-0123");
    expect(loadConfig({}).metricsToken).toBeUndefined();
  });

  it("when PROJECT_STATUS_WORKFLOW names an invalid file, then the line says what is wrong in it", () => {
    const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "wf-")), "wf.json");
    fs.writeFileSync(file, JSON.stringify({ transitions: { open: ["closed"] } }));
    expect(configError({ PROJECT_STATUS_WORKFLOW: file })).toMatch(/"open" may change to "closed", which is not a key/);
    fs.writeFileSync(file, "{ nope");
    expect(configError({ PROJECT_STATUS_WORKFLOW: file })).toMatch(/not valid JSON/);
  });

  it("when PROJECT_STATUS_WORKFLOW names a valid file, then its statuses are loaded in order", () => {
    const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "wf-")), "wf.json");
    fs.writeFileSync(file, JSON.stringify({ initial: ["open"], transitions: { open: ["closed"], closed: [] } }));
    expect(loadConfig({ PROJECT_STATUS_WORKFLOW: file }).statusWorkflow?.statuses).toEqual(["open", "closed"]);
  });

  it("when the service is started with a bad variable, then the process exits 1 printing exactly one line", () => {
    const result = spawnSync(process.execPath, [path.join(REPO, "dist/src/index.js")], {
      env: { PATH: process.env.PATH, PORT: "not-a-port" },
      encoding: "utf8",
      timeout: 20_000,
    });
    expect(result.status).toBe(1);
    expect(result.stderr.trim().split("\n")).toEqual([
      'Invalid PORT ("not-a-port"): accepts a whole number from 0 to 65535',
    ]);
    expect(result.stdout).toBe("");
  });

  it("when OTEL_SERVICE_NAME is set, then spans are named after it; unset, project-service", () => {
    expect(loadConfig({ OTEL_SERVICE_NAME: "projects-eu" }).otelServiceName).toBe("projects-eu");
    expect(loadConfig({}).otelServiceName).toBe("project-service");
  });

  it("when the package root is needed, then it is the folder of project-service's package.json", () => {
    expect(REPO_ROOT).toBe(REPO);
  });
});

describe("configuration without the service (embedded database, bench)", () => {
  it("when the cache variables are set, then PROJECT_SERVICE_CACHE wins over XDG_CACHE_HOME, which wins over ~/.cache", () => {
    expect(loadToolConfig({ PROJECT_SERVICE_CACHE: "/tmp/ps-cache", XDG_CACHE_HOME: "/tmp/xdg" }).cacheDir).toBe(
      "/tmp/ps-cache",
    );
    expect(loadToolConfig({ XDG_CACHE_HOME: "/tmp/xdg" }).cacheDir).toBe("/tmp/xdg/project-service");
    expect(loadToolConfig({}).cacheDir).toBe(path.join(os.homedir(), ".cache", "project-service"));
  });

  it("when the database variables are read, then they are validated as the service validates them", () => {
    expect(loadToolConfig({ MONGOMS_SYSTEM_BINARY: "/usr/bin/mongod", EMBEDDED_DB: "FerretDB" })).toMatchObject({
      mongodSystemBinary: "/usr/bin/mongod",
      embeddedDb: "ferretdb",
    });
    expect(() => loadToolConfig({ EMBEDDED_DB: "sqlite" })).toThrow(
      /^Invalid EMBEDDED_DB \("sqlite"\): accepts auto, mongod or ferretdb$/,
    );
  });

  it("when the bench's variables are unset, then its defaults apply; a bad one is one line naming it", () => {
    expect(loadBenchConfig({})).toMatchObject({
      concurrency: 10,
      requests: 400,
      projects: 0,
      poolSize: undefined,
      runs: 10,
      ferretdbPushdown: true,
    });
    expect(loadBenchConfig({ BENCH_POOL_SIZE: "4", BENCH_PROJECTS: "20000", BENCH_PUSHDOWN: "off" })).toMatchObject({
      poolSize: 4,
      projects: 20000,
      ferretdbPushdown: false,
    });
    expect(() => loadBenchConfig({ BENCH_PUSHDOWN: "maybe" })).toThrow(
      /^Invalid BENCH_PUSHDOWN \("maybe"\): accepts on or off$/,
    );
    expect(() => loadBenchConfig({ BENCH_REQUESTS: "many" })).toThrow(
      /^Invalid BENCH_REQUESTS \("many"\): accepts a whole number from 1 to 1000000$/,
    );
  });
});
