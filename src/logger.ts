// pino logger: JSON lines in production or when output is not a terminal, readable lines in a terminal.
import pino, { type Logger } from "pino";

export type { Logger };

/** What request-scoped code logs through: the app logger or a request's child of it. */
export type { FastifyBaseLogger as RequestLogger } from "fastify";

export function createLogger(options: { level: string; production: boolean }): Logger {
  const base: pino.LoggerOptions = {
    level: options.level,
    redact: { paths: ["req.headers.authorization", "headers.authorization"], censor: "[redacted]" },
  };
  if (!options.production && process.stdout.isTTY) {
    // Loaded only here: production and piped output never pay for pino-pretty (and its dependencies) at start.
    // eslint-disable-next-line @typescript-eslint/no-require-imports -- lazy on purpose (see above)
    const pretty = require("pino-pretty") as typeof import("pino-pretty");
    // Synchronous pretty stream: no worker thread, lines appear in order with the process's own output.
    return pino(
      base,
      pretty({ colorize: true, translateTime: "HH:MM:ss.l", ignore: "pid,hostname", singleLine: true, sync: true }),
    );
  }
  return pino(base);
}
