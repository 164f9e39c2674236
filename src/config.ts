// The service's configuration: every environment variable the service reads, validated here and only here. A bad
// value throws a ConfigError whose message is one line naming the variable and what it accepts. What runs without
// the service has its own: the tools' (embedded database: src/db/tool-config.ts) and the bench's
// (bench/bench-config.ts). This module imports no component: the files a variable names are read here and parsed by
// the component that owns their format, which the service's start passes in (ConfigFileFormats).
import fs from "node:fs";
import path from "node:path";
import { z } from "zod";
import { DATABASE_VARIABLES, type EmbeddedDbMode } from "./db/tool-config";
import { parseTrustedDocuments, type TrustedDocuments } from "./graphql/trusted-documents";
import {
  ConfigError,
  isHttpUrl,
  oneOf,
  optionalBoolean,
  optionalString,
  parseEnv,
  shownAs,
  wholeNumber,
} from "./shared/environment";
import { REPO_ROOT } from "./shared/package-root";

export type AuthConfig =
  | { mode: "header" }
  | {
      mode: "jwt";
      secret?: string;
      jwksUrl?: string;
      issuer?: string;
      audience?: string;
    };

/** Parsers of the files variables name, each the format of the component that reads it. */
export interface ConfigFileFormats<Workflow, Policy = unknown, Hooks = unknown> {
  /** PROJECT_STATUS_WORKFLOW (the projects component's parseStatusWorkflow); throws Error with a one-line reason. */
  statusWorkflow(text: string): Workflow;
  /**
   * ACCESS_POLICY (the projects component's parseAccessPolicy); throws Error with a one-line reason naming the place.
   * Tools that serve no request (db:check, db:backup, token…) leave it out, and the variable is not read.
   */
  accessPolicy?(text: string): Policy;
  /**
   * WEBHOOKS (the webhooks component's parseWebhooksFile); throws Error with a one-line reason naming the place, never
   * a secret. Tools that deliver nothing leave it out, and the variable is not read.
   */
  webhooks?(text: string, options: { allowPrivate: boolean }): Hooks;
}

/**
 * The service's configuration; `Workflow` is what ConfigFileFormats.statusWorkflow makes of the workflow file,
 * `Policy` what ConfigFileFormats.accessPolicy makes of the row rules.
 */
export interface Config<Workflow = unknown, Policy = unknown, Hooks = unknown> {
  port: number;
  host: string;
  mongodbUri?: string;
  dataDir: string;
  embeddedDb: EmbeddedDbMode;
  production: boolean;
  auth: AuthConfig;
  statusWorkflow?: Workflow;
  statusWorkflowPath?: string;
  /** ACCESS_POLICY's row rules for projects; undefined when it is unset (every role reads and changes as its role allows). */
  accessPolicy?: Policy;
  accessPolicyPath?: string;
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
  /** How often each instance reads the change log for other instances' changes (SUBSCRIPTION_POLL_MS). */
  subscriptionPollMs: number;
  /** Most active subscriptions on one WebSocket (SUBSCRIPTIONS_PER_CONNECTION). */
  subscriptionsPerConnection: number;
  /** Most WebSocket connections one instance holds (WS_MAX_CONNECTIONS); 0 refuses every one. */
  wsMaxConnections: number;
  /** The trusted documents of TRUSTED_DOCUMENTS's manifest, by sha256; undefined when it is unset. */
  trustedDocuments?: TrustedDocuments;
  trustedDocumentsPath?: string;
  /** TRUSTED_DOCUMENTS_ONLY: only trusted documents run (default true when a manifest is set). */
  trustedDocumentsOnly: boolean;
  /** FEDERATION: serve the schema as an Apollo Federation 2 subgraph (graphql/federation.ts). */
  federation: boolean;
  /** REDIS_URL: where instances share rate limits and automatic persisted queries; unset: each keeps its own. */
  redisUrl?: string;
  /** WEBHOOKS's endpoints; undefined when it is unset (no webhooks). */
  webhooks?: Hooks;
  webhooksPath?: string;
  /** WEBHOOKS_ALLOW_PRIVATE: endpoints may be http and resolve to loopback or private addresses. */
  webhooksAllowPrivate: boolean;
  /** WEBHOOKS_RETENTION_DAYS: how long a delivered or failed delivery stays stored. */
  webhooksRetentionDays: number;
  /** WEBHOOKS_RETRY_SCALE: the factor on every wait of the retry schedule (1: as documented). */
  webhooksRetryScale: number;
  /** WEBHOOKS_LEASE_MS: how long an instance holds an endpoint's deliveries without renewing (then another takes over). */
  webhooksLeaseMs: number;
}

/** A redis:// or rediss:// (TLS) URL naming a host. */
function isRedisUrl(value: string): boolean {
  try {
    const url = new URL(value);
    return (url.protocol === "redis:" || url.protocol === "rediss:") && url.hostname !== "";
  } catch {
    return false;
  }
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

const TRACING_VARIABLES = {
  OTEL_EXPORTER_OTLP_ENDPOINT: optionalString.refine((v) => v === undefined || isHttpUrl(v), {
    message: "accepts an absolute http(s) URL of an OTLP/HTTP collector",
  }),
  OTEL_SERVICE_NAME: optionalString,
};

/** A decimal factor in (0, 1000]; 1 when unset or empty. */
const scaleFactor = z
  .string()
  .optional()
  .transform((v, ctx) => {
    if (v === undefined || v.trim() === "") return 1;
    const n = Number(v.trim());
    if (!/^\d+(\.\d+)?(e-?\d+)?$/i.test(v.trim()) || !(n > 0) || n > 1000) {
      ctx.addIssue({ code: "custom", message: "accepts a factor above 0 and at most 1000, such as 1 or 0.001" });
      return z.NEVER;
    }
    return n;
  });

/** Every variable the service reads, with its rule. */
export const SERVICE_VARIABLES = z.object({
  PORT: wholeNumber(4000, 0, 65535),
  HOST: optionalString,
  ...DATABASE_VARIABLES,
  DATA_DIR: optionalString,
  NODE_ENV: optionalString,
  AUTH_JWT_SECRET: shownAs(
    optionalString.refine((v) => v === undefined || Buffer.byteLength(v) >= 32, {
      message: "accepts an HS256 secret of at least 32 bytes",
    }),
    "hidden",
  ),
  AUTH_JWKS_URL: optionalString.refine((v) => v === undefined || isHttpUrl(v), {
    message: "accepts an absolute http(s) URL of a JWKS document",
  }),
  AUTH_JWT_ISSUER: optionalString,
  AUTH_JWT_AUDIENCE: optionalString,
  PROJECT_STATUS_WORKFLOW: optionalString,
  ACCESS_POLICY: optionalString,
  LOG_LEVEL: oneOf(["fatal", "error", "warn", "info", "debug", "trace", "silent"], "info"),
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
  EXPLORER: oneOf(["graphiql", "sandbox"], "graphiql"),
  METRICS_TOKEN: shownAs(
    optionalString.refine((v) => v === undefined || /^[\x21-\x7e]{16,256}$/.test(v), {
      message: "accepts a bearer token of 16 to 256 printable characters without spaces",
    }),
    "hidden",
  ),
  ...TRACING_VARIABLES,
  SUBSCRIPTION_POLL_MS: wholeNumber(250, 10, 60_000),
  SUBSCRIPTIONS_PER_CONNECTION: wholeNumber(20, 1, 1000),
  WS_MAX_CONNECTIONS: wholeNumber(1000, 0, 1_000_000),
  TRUSTED_DOCUMENTS: optionalString,
  TRUSTED_DOCUMENTS_ONLY: optionalBoolean,
  FEDERATION: optionalBoolean,
  // Its password never shows in a configuration error.
  REDIS_URL: shownAs(
    optionalString.refine((v) => v === undefined || isRedisUrl(v), {
      message: "accepts a redis:// or rediss:// (TLS) URL such as redis://:password@redis:6379/0",
    }),
    "uri",
  ),
  WEBHOOKS: optionalString,
  WEBHOOKS_ALLOW_PRIVATE: optionalBoolean,
  WEBHOOKS_RETENTION_DAYS: wholeNumber(14, 1, 3650),
  WEBHOOKS_RETRY_SCALE: scaleFactor,
  WEBHOOKS_LEASE_MS: wholeNumber(10_000, 1000, 600_000),
});

/**
 * Reads and validates the configuration; throws ConfigError with one line on the first bad variable, or on a file
 * that cannot be read or that `formats` refuses.
 */
export function loadConfig<Workflow, Policy = unknown, Hooks = unknown>(
  env: NodeJS.ProcessEnv,
  formats: ConfigFileFormats<Workflow, Policy, Hooks>,
): Config<Workflow, Policy, Hooks> {
  const e = parseEnv(SERVICE_VARIABLES, env);
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

  let statusWorkflow: Workflow | undefined;
  let statusWorkflowPath: string | undefined;
  if (e.PROJECT_STATUS_WORKFLOW) {
    statusWorkflowPath = path.resolve(e.PROJECT_STATUS_WORKFLOW);
    statusWorkflow = readConfigFile(
      "PROJECT_STATUS_WORKFLOW",
      e.PROJECT_STATUS_WORKFLOW,
      statusWorkflowPath,
      formats.statusWorkflow,
    );
  }

  let accessPolicy: Policy | undefined;
  let accessPolicyPath: string | undefined;
  if (e.ACCESS_POLICY && formats.accessPolicy) {
    accessPolicyPath = path.resolve(e.ACCESS_POLICY);
    accessPolicy = readConfigFile("ACCESS_POLICY", e.ACCESS_POLICY, accessPolicyPath, formats.accessPolicy);
  }

  let trustedDocuments: TrustedDocuments | undefined;
  let trustedDocumentsPath: string | undefined;
  if (e.TRUSTED_DOCUMENTS) {
    trustedDocumentsPath = path.resolve(e.TRUSTED_DOCUMENTS);
    // graphql-codegen's client preset writes it (persistedDocuments: true); every hash is checked against its document.
    trustedDocuments = readConfigFile(
      "TRUSTED_DOCUMENTS",
      e.TRUSTED_DOCUMENTS,
      trustedDocumentsPath,
      parseTrustedDocuments,
    );
  } else if (e.TRUSTED_DOCUMENTS_ONLY === true) {
    throw new ConfigError(
      `Invalid TRUSTED_DOCUMENTS_ONLY ("${env.TRUSTED_DOCUMENTS_ONLY}"): needs TRUSTED_DOCUMENTS, the path of the manifest of the documents to accept`,
    );
  }

  const webhooksAllowPrivate = e.WEBHOOKS_ALLOW_PRIVATE ?? !production;
  let webhooks: Hooks | undefined;
  let webhooksPath: string | undefined;
  if (e.WEBHOOKS && formats.webhooks) {
    const parse = formats.webhooks;
    webhooksPath = path.resolve(e.WEBHOOKS);
    webhooks = readConfigFile("WEBHOOKS", e.WEBHOOKS, webhooksPath, (text) =>
      parse(text, { allowPrivate: webhooksAllowPrivate }),
    );
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
    accessPolicy,
    accessPolicyPath,
    logLevel: e.LOG_LEVEL,
    dbTimeoutMs: e.DB_TIMEOUT_MS,
    corsOrigins: e.CORS_ORIGINS,
    rateLimitPerMinute: e.RATE_LIMIT_PER_MINUTE,
    explorer: e.EXPLORER,
    otelEndpoint: e.OTEL_EXPORTER_OTLP_ENDPOINT,
    metricsToken: e.METRICS_TOKEN,
    otelServiceName: e.OTEL_SERVICE_NAME ?? "project-service",
    subscriptionPollMs: e.SUBSCRIPTION_POLL_MS,
    subscriptionsPerConnection: e.SUBSCRIPTIONS_PER_CONNECTION,
    wsMaxConnections: e.WS_MAX_CONNECTIONS,
    trustedDocuments,
    trustedDocumentsPath,
    trustedDocumentsOnly: trustedDocuments !== undefined && (e.TRUSTED_DOCUMENTS_ONLY ?? true),
    federation: e.FEDERATION ?? false,
    redisUrl: e.REDIS_URL,
    webhooks,
    webhooksPath,
    webhooksAllowPrivate,
    webhooksRetentionDays: e.WEBHOOKS_RETENTION_DAYS,
    webhooksRetryScale: e.WEBHOOKS_RETRY_SCALE,
    webhooksLeaseMs: e.WEBHOOKS_LEASE_MS,
  };
}

/** The file a variable names, parsed; a file that cannot be read or parsed is a ConfigError naming the variable. */
function readConfigFile<T>(variable: string, value: string, file: string, parse: (text: string) => T): T {
  let text: string;
  try {
    text = fs.readFileSync(file, "utf8");
  } catch (err) {
    throw new ConfigError(
      `Invalid ${variable} (${JSON.stringify(value)}): cannot read the file (${(err as NodeJS.ErrnoException).code ?? "error"})`,
    );
  }
  try {
    return parse(text);
  } catch (err) {
    throw new ConfigError(`Invalid ${variable} (${JSON.stringify(value)}): ${(err as Error).message}`);
  }
}

/** Tracing's part of the configuration, read before anything else loads (src/tracing.ts). */
export type TracingConfig = Pick<Config, "otelEndpoint" | "otelServiceName">;

export function loadTracingConfig(env: NodeJS.ProcessEnv): TracingConfig {
  const e = parseEnv(z.object(TRACING_VARIABLES), env);
  return { otelEndpoint: e.OTEL_EXPORTER_OTLP_ENDPOINT, otelServiceName: e.OTEL_SERVICE_NAME ?? "project-service" };
}

/** For entry points: the configuration, or one line on stderr and exit code 1. */
export function loadConfigOrExit<Workflow, Policy = unknown, Hooks = unknown>(
  formats: ConfigFileFormats<Workflow, Policy, Hooks>,
): Config<Workflow, Policy, Hooks> {
  try {
    return loadConfig(process.env, formats);
  } catch (err) {
    if (err instanceof ConfigError) {
      process.stderr.write(`${err.message}\n`);
      process.exit(1);
    }
    throw err;
  }
}
