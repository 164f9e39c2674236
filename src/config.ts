// Configuration: every environment variable of the contract, read and validated once at start.
// A bad value throws a ConfigError whose message is one line naming the variable and what it accepts.
import fs from "node:fs";
import path from "node:path";
import { z } from "zod";
import { parseStatusWorkflow, type StatusWorkflow } from "./components/projects";

export const REPO_ROOT = path.resolve(__dirname, __dirname.includes(`${path.sep}dist${path.sep}`) ? "../.." : "..");

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
    const origins = v.split(",").map((o) => o.trim()).filter((o) => o !== "");
    for (const origin of origins) {
      if (!isOrigin(origin)) {
        ctx.addIssue({ code: "custom", message: `accepts comma-separated origins such as https://app.example.org ("${origin.slice(0, 80)}" is not one)` });
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
});

/** Variables whose value a configuration error must not print. */
const SECRET_VARIABLES = new Set(["AUTH_JWT_SECRET", "METRICS_TOKEN"]);

/** The value of a variable as a configuration error may show it: secrets hidden, a URI's password masked. */
export function printableValue(name: string, value: string): string {
  if (SECRET_VARIABLES.has(name)) return `${value.length} characters, value hidden`;
  if (name === "MONGODB_URI") return JSON.stringify(maskUriPassword(value));
  return JSON.stringify(value);
}

/** scheme://user:password@host… → scheme://user:***@host…; greedy to the last "@" so a raw "@" in it leaks nothing. */
export function maskUriPassword(uri: string): string {
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
  const parsed = envSchema.safeParse(env);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const name = String(issue.path[0]);
    const got = env[name];
    throw new ConfigError(`Invalid ${name}${got === undefined ? "" : ` (${printableValue(name, got)})`}: ${issue.message}`);
  }
  const e = parsed.data;
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
