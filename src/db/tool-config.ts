// Where the database comes from, for what runs without the service (the tests' global setup, the bench) and for
// the embedded database itself: MONGODB_URI, EMBEDDED_DB, the cache of the built FerretDB program and
// mongodb-memory-server's MONGOMS_* variables. The service's configuration (src/config.ts) reads MONGODB_URI and
// EMBEDDED_DB with the same rules.
import os from "node:os";
import path from "node:path";
import { z } from "zod";
import { oneOf, optionalString, parseEnv, shownAs } from "../shared/environment";

export type EmbeddedDbMode = "auto" | "mongod" | "ferretdb";

/** The variables that choose the database, as the service and the tools read them. */
export const DATABASE_VARIABLES = {
  MONGODB_URI: shownAs(
    optionalString.refine((v) => v === undefined || /^mongodb(\+srv)?:\/\/\S+$/.test(v), {
      message: "accepts a connection string starting with mongodb:// or mongodb+srv://",
    }),
    "uri",
  ),
  EMBEDDED_DB: oneOf(["auto", "mongod", "ferretdb"], "auto"),
};

export interface ToolConfig {
  /** MONGODB_URI: an external database instead of an embedded one. */
  mongodbUri?: string;
  embeddedDb: EmbeddedDbMode;
  /** The cache of the built FerretDB program: PROJECT_SERVICE_CACHE, else $XDG_CACHE_HOME/project-service, else
   * ~/.cache/project-service. */
  cacheDir: string;
  /** MONGOMS_SYSTEM_BINARY: a mongod to use instead of searching PATH and mongodb-memory-server's cache. */
  mongodSystemBinary?: string;
  /** MONGOMS_VERSION: the mongod version to look for in mongodb-memory-server's cache. */
  mongodVersion?: string;
}

export const TOOL_VARIABLES = z.object({
  ...DATABASE_VARIABLES,
  PROJECT_SERVICE_CACHE: optionalString,
  XDG_CACHE_HOME: optionalString,
  MONGOMS_SYSTEM_BINARY: optionalString,
  MONGOMS_VERSION: optionalString,
});

/** Reads and validates the tools' variables; throws ConfigError with one line on the first bad one. */
export function loadToolConfig(env: NodeJS.ProcessEnv = process.env): ToolConfig {
  const e = parseEnv(TOOL_VARIABLES, env);
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
