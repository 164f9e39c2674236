// Configuration: every environment variable the service, its scripts and the bench read, validated here and only
// here (loadConfig for the service; loadToolConfig and loadBenchConfig for what runs without it). A bad value throws
// a ConfigError whose message is one line naming the variable and what it accepts.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { z } from "zod";
import { parseStatusWorkflow, type StatusWorkflow } from "./components/projects";

/** The package's root folder (schema/, tools/, .data/): the nearest folder above this module whose package.json is
 * project-service's, whether this runs from src/ (jest) or dist/src/ (npm start). */
export const REPO_ROOT = findPackageRoot(__dirname);

function findPackageRoot(start: string): string {
  for (let dir = start; ; dir = path.dirname(dir)) {
    try {
      const { name } = JSON.parse(fs.readFileSync(path.join(dir, "package.json"), "utf8")) as { name?: string };
      if (name === "project-service") return dir;
    } catch {
      // no package.json here (or not JSON): look further up
    }
    if (path.dirname(dir) === dir) throw new Error(`project-service's package.json not found above ${start}`);
  }
}

export type AuthConfig =
  | { mode: "header" }
  | {
      mode: "jwt";
      secret?: string;
      jwksUrl?: string;
      issuer?: string;
      audience?: string;
    };

export interface Config {
  port: number;
  host: string;
  mongodbUri?: string;
  dataDir: string;
  embeddedDb: "auto" | "mongod" | "ferretdb";
  production: boolean;
  auth: AuthConfig;
  statusWorkflow?: StatusWorkflow;
  statusWorkflowPath?: string;
  logLevel: "fatal" | "error" | "warn" | "info" | "debug" | "trace" | "silent";
  /** The longest any database operation may take (DB_TIMEOUT_MS). */
  dbTimeoutMs: number;
  /** Origins allowed to call from a browser; undefined: the default (localhost origins outside production, none in production). */
  corsOrigins?: string[];
  /** Requests per minute per caller; 0 turns the limit off. */
  rateLimitPerMinute: number;
  /** What a browser gets at GET /graphql outside production. */
  explorer: "graphiql" | "sandbox";
  /** OTLP/HTTP endpoint for traces; tracing is off when unset. */
  otelEndpoint?: string;
  /** Bearer token GET /metrics requires (METRICS_TOKEN); unset: open outside production, closed in production. */
  metricsToken?: string;
  /** service.name of the exported spans (OTEL_SERVICE_NAME). */
  otelServiceName: string;
}

export class ConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "ConfigError";
  }
}

const optionalString = z
  .string()
  .optional()
  .transform((v) => (v === undefined || v.trim() === "" ? undefined : v.trim()));

/** A whole number within [min, max] from an environment string; `fallback` when unset or empty. */
const wholeNumber = (fallback: number, min: number, max: number) =>
  z
    .string()
    .optional()
    .transform((v, ctx) => {
      if (v === undefined || v.trim() === "") return fallback;
      if (!/^\d+$/.test(v.trim()) || Number(v) < min || Number(v) > max) {
        ctx.addIssue({ code: "custom", message: `accepts a whole number from ${min} to ${max}` });
        return z.NEVER;
      }
      return Number(v);
    });

const envSchema = z.object({
  PORT: z
    .string()
    .optional()
    .transform((v, ctx) => {
      if (v === undefined || v === "") return 4000;
      if (!/^\d+$/.test(v) || Number(v) > 65535) {
        ctx.addIssue({ code: "custom", message: "accepts a whole number from 0 to 65535" });
        return z.NEVER;
      }
      return Number(v);
    }),
  HOST: optionalString,
  MONGODB_URI: optionalString.refine((v) => v === undefined || /^mongodb(\+srv)?:\/\/\S+$/.test(v), {
    message: "accepts a connection string starting with mongodb:// or mongodb+srv://",
  }),
  DATA_DIR: optionalString,
  EMBEDDED_DB: z
    .string()
    .optional()
    .transform((v) => (v === undefined || v === "" ? "auto" : v.toLowerCase()))
    .pipe(z.enum(["auto", "mongod", "ferretdb"], { message: "accepts auto, mongod or ferretdb" })),
  NODE_ENV: optionalString,
  AUTH_JWT_SECRET: optionalString.refine((v) => v === undefined || Buffer.byteLength(v) >= 32, {
    message: "accepts an HS256 secret of at least 32 bytes",
  }),
  AUTH_JWKS_URL: optionalString.refine((v) => v === undefined || isHttpUrl(v), {
    message: "accepts an absolute http(s) URL of a JWKS document",
  }),
  AUTH_JWT_ISSUER: optionalString,
  AUTH_JWT_AUDIENCE: optionalString,
  PROJECT_STATUS_WORKFLOW: optionalString,
  LOG_LEVEL: z
    .string()
    .optional()
    .transform((v) => (v === undefined || v === "" ? "info" : v.toLowerCase()))
    .pipe(
      z.enum(["fatal", "error", "warn", "info", "debug", "trace", "silent"], {
        message: "accepts fatal, error, warn, info, debug, trace or silent",
      }),
    ),
  DB_TIMEOUT_MS: wholeNumber(5000, 100, 600_000),
  CORS_ORIGINS: optionalString.transform((v, ctx) => {
    if (v === undefined) return undefined;
    const origins = v
      .split(",")
      .map((o) => o.trim())
      .filter((o) => o !== "");
    for (const origin of origins) {
      if (!isOrigin(origin)) {
        ctx.addIssue({
          code: "custom",
          message: `accepts comma-separated origins such as https://app.example.org ("${origin.slice(0, 80)}" is not one)`,
        });
        return z.NEVER;
      }
    }
    return origins;
  }),
  RATE_LIMIT_PER_MINUTE: wholeNumber(600, 0, 1_000_000),
  EXPLORER: z
    .string()
    .optional()
    .transform((v) => (v === undefined || v.trim() === "" ? "graphiql" : v.trim().toLowerCase()))
    .pipe(z.enum(["graphiql", "sandbox"], { message: "accepts graphiql or sandbox" })),
  OTEL_EXPORTER_OTLP_ENDPOINT: optionalString.refine((v) => v === undefined || isHttpUrl(v), {
    message: "accepts an absolute http(s) URL of an OTLP/HTTP collector",
  }),
  METRICS_TOKEN: optionalString.refine((v) => v === undefined || /^[\x21-\x7e]{16,256}$/.test(v), {
    message: "accepts a bearer token of 16 to 256 printable characters without spaces",
  }),
  OTEL_SERVICE_NAME: optionalString,
});

/** Variables whose value a configuration error must not print. */
const SECRET_VARIABLES = new Set(["AUTH_JWT_SECRET", "METRICS_TOKEN"]);

/** The value of a variable as a configuration error may show it: secrets hidden, a URI's password masked. */
function printableValue(name: string, value: string): string {
  if (SECRET_VARIABLES.has(name)) return `${value.length} characters, value hidden`;
  if (name === "MONGODB_URI") return JSON.stringify(maskUriPassword(value));
  return JSON.stringify(value);
}

/** scheme://user:password@host… → scheme://user:***@host…; greedy to the last "@" so a raw "@" in it leaks nothing. */
function maskUriPassword(uri: string): string {
  return uri.replace(/^([^:/?#]+:\/\/[^:@/]*):(.*)@/, "$1:***@");
}

/** scheme://host[:port] with nothing after it, as browsers send in Origin. */
function isOrigin(value: string): boolean {
  try {
    const url = new URL(value);
    return (url.protocol === "http:" || url.protocol === "https:") && url.origin === value;
  } catch {
    return false;
  }
}

function isHttpUrl(value: string): boolean {
  try {
    const url = new URL(value);
    return url.protocol === "http:" || url.protocol === "https:";
  } catch {
    return false;
  }
}

/** Reads and validates the configuration; throws ConfigError with one line on the first bad variable. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const e = parseEnv(envSchema, env);
  const production = e.NODE_ENV === "production";

  let auth: AuthConfig;
  if (e.AUTH_JWT_SECRET || e.AUTH_JWKS_URL) {
    auth = {
      mode: "jwt",
      secret: e.AUTH_JWT_SECRET,
      jwksUrl: e.AUTH_JWKS_URL,
      issuer: e.AUTH_JWT_ISSUER,
      audience: e.AUTH_JWT_AUDIENCE,
    };
  } else if (production) {
    throw new ConfigError(
      "Invalid AUTH_JWT_SECRET / AUTH_JWKS_URL: one of them is required when NODE_ENV=production (header trust is for development only)",
    );
  } else {
    auth = { mode: "header" };
  }

  let statusWorkflow: StatusWorkflow | undefined;
  let statusWorkflowPath: string | undefined;
  if (e.PROJECT_STATUS_WORKFLOW) {
    statusWorkflowPath = path.resolve(e.PROJECT_STATUS_WORKFLOW);
    let text: string;
    try {
      text = fs.readFileSync(statusWorkflowPath, "utf8");
    } catch (err) {
      throw new ConfigError(
        `Invalid PROJECT_STATUS_WORKFLOW (${JSON.stringify(e.PROJECT_STATUS_WORKFLOW)}): cannot read the file (${(err as NodeJS.ErrnoException).code ?? "error"})`,
      );
    }
    try {
      statusWorkflow = parseStatusWorkflow(text);
    } catch (err) {
      throw new ConfigError(
        `Invalid PROJECT_STATUS_WORKFLOW (${JSON.stringify(e.PROJECT_STATUS_WORKFLOW)}): ${(err as Error).message}`,
      );
    }
  }

  return {
    port: e.PORT,
    host: e.HOST ?? (production ? "0.0.0.0" : "127.0.0.1"),
    mongodbUri: e.MONGODB_URI,
    dataDir: e.DATA_DIR ? path.resolve(e.DATA_DIR) : path.join(REPO_ROOT, ".data"),
    embeddedDb: e.EMBEDDED_DB,
    production,
    auth,
    statusWorkflow,
    statusWorkflowPath,
    logLevel: e.LOG_LEVEL,
    dbTimeoutMs: e.DB_TIMEOUT_MS,
    corsOrigins: e.CORS_ORIGINS,
    rateLimitPerMinute: e.RATE_LIMIT_PER_MINUTE,
    explorer: e.EXPLORER,
    otelEndpoint: e.OTEL_EXPORTER_OTLP_ENDPOINT,
    metricsToken: e.METRICS_TOKEN,
    otelServiceName: e.OTEL_SERVICE_NAME ?? "project-service",
  };
}

/** Parses env with a schema; throws ConfigError with one line on the first bad variable. */
function parseEnv<S extends z.ZodType>(schema: S, env: NodeJS.ProcessEnv): z.output<S> {
  const parsed = schema.safeParse(env);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  const name = String(issue.path[0]);
  const got = env[name];
  throw new ConfigError(
    `Invalid ${name}${got === undefined ? "" : ` (${printableValue(name, got)})`}: ${issue.message}`,
  );
}

// ---- Without the service: the embedded database (tests' global setup, the bench) and the bench's own knobs.

/** Where the embedded database comes from; read by src/db/embedded.ts and ferretdb.ts, tests' setup and the bench. */
export interface ToolConfig {
  /** MONGODB_URI: an external database instead of an embedded one. */
  mongodbUri?: string;
  embeddedDb: Config["embeddedDb"];
  /** The cache of the built FerretDB program: PROJECT_SERVICE_CACHE, else $XDG_CACHE_HOME/project-service, else
   * ~/.cache/project-service. */
  cacheDir: string;
  /** MONGOMS_SYSTEM_BINARY: a mongod to use instead of searching PATH and mongodb-memory-server's cache. */
  mongodSystemBinary?: string;
  /** MONGOMS_VERSION: the mongod version to look for in mongodb-memory-server's cache. */
  mongodVersion?: string;
}

const toolEnvSchema = z.object({
  MONGODB_URI: envSchema.shape.MONGODB_URI,
  EMBEDDED_DB: envSchema.shape.EMBEDDED_DB,
  PROJECT_SERVICE_CACHE: optionalString,
  XDG_CACHE_HOME: optionalString,
  MONGOMS_SYSTEM_BINARY: optionalString,
  MONGOMS_VERSION: optionalString,
});

export function loadToolConfig(env: NodeJS.ProcessEnv = process.env): ToolConfig {
  const e = parseEnv(toolEnvSchema, env);
  return {
    mongodbUri: e.MONGODB_URI,
    embeddedDb: e.EMBEDDED_DB,
    cacheDir: e.PROJECT_SERVICE_CACHE
      ? path.resolve(e.PROJECT_SERVICE_CACHE)
      : path.join(e.XDG_CACHE_HOME ?? path.join(os.homedir(), ".cache"), "project-service"),
    mongodSystemBinary: e.MONGOMS_SYSTEM_BINARY,
    mongodVersion: e.MONGOMS_VERSION,
  };
}

/** npm run bench / bench:limits (bench/run.ts, bench/limits.ts). */
export interface BenchConfig extends ToolConfig {
  /** BENCH_CONCURRENCY: requests in flight at once (default 10). */
  concurrency: number;
  /** BENCH_REQUESTS: requests per measured operation (default 400). */
  requests: number;
  /** BENCH_PROJECTS: projects in the database while measuring (default: just those the bench creates). */
  projects: number;
  /** BENCH_POOL_SIZE: the connection pool instead of the service's choice. */
  poolSize?: number;
  /** BENCH_RUNS: runs per query in bench:limits (default 10). */
  runs: number;
  /** BENCH_PUSHDOWN=off: the embedded FerretDB without its pushdown to SQLite, as FerretDB itself (default on). */
  ferretdbPushdown: boolean;
  /** NODE_ENV, only printed with the results. */
  nodeEnv?: string;
}

const benchEnvSchema = toolEnvSchema.extend({
  BENCH_CONCURRENCY: wholeNumber(10, 1, 1000),
  BENCH_REQUESTS: wholeNumber(400, 1, 1_000_000),
  BENCH_PROJECTS: wholeNumber(0, 0, 10_000_000),
  BENCH_POOL_SIZE: wholeNumber(0, 1, 1000),
  BENCH_RUNS: wholeNumber(10, 1, 10_000),
  BENCH_PUSHDOWN: z
    .string()
    .optional()
    .transform((v) => (v === undefined || v === "" ? "on" : v.toLowerCase()))
    .pipe(z.enum(["on", "off"], { message: "accepts on or off" })),
  NODE_ENV: optionalString,
});

export function loadBenchConfig(env: NodeJS.ProcessEnv = process.env): BenchConfig {
  const e = parseEnv(benchEnvSchema, env);
  return {
    ...loadToolConfig(env),
    concurrency: e.BENCH_CONCURRENCY,
    requests: e.BENCH_REQUESTS,
    projects: e.BENCH_PROJECTS,
    poolSize: e.BENCH_POOL_SIZE === 0 ? undefined : e.BENCH_POOL_SIZE,
    runs: e.BENCH_RUNS,
    ferretdbPushdown: e.BENCH_PUSHDOWN === "on",
    nodeEnv: e.NODE_ENV,
  };
}

/** For entry points: the configuration, or one line on stderr and exit code 1. */
export function loadConfigOrExit(): Config {
  try {
    return loadConfig();
  } catch (err) {
    if (err instanceof ConfigError) {
      process.stderr.write(`${err.message}\n`);
      process.exit(1);
    }
    throw err;
  }
}
