// pino logger: JSON lines in production or when output is not a terminal, readable lines in a terminal.
import pino, { type Logger } from "pino";
import pretty from "pino-pretty";

export type { Logger };

/** What request-scoped code logs through: the app logger or a request's child of it. */
export type { FastifyBaseLogger as RequestLogger } from "fastify";

export function createLogger(options: { level: string; production: boolean }): Logger {
  const base: pino.LoggerOptions = {
    level: options.level,
    redact: { paths: ["req.headers.authorization", "headers.authorization"], censor: "[redacted]" },
  };
  if (!options.production && process.stdout.isTTY) {
    // Synchronous pretty stream: no worker thread, lines appear in order with the process's own output.
    return pino(base, pretty({ colorize: true, translateTime: "HH:MM:ss.l", ignore: "pid,hostname", singleLine: true, sync: true }));
  }
  return pino(base);
}
