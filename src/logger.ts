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
  const stdout = new TurnBatchedLines(pino.destination({ dest: 1, sync: true }));
  // process.exit() right after a log call (a failed start, the end of a shutdown) still writes its line.
  process.once("exit", () => stdout.flush());
  return pino(base, stdout);
}

/**
 * The JSON lines logged in one turn of the event loop, written together at its end (setImmediate) in one write to
 * `out` (pino's synchronous destination, which waits out a full pipe). Each request's line was a write of its own,
 * as costly as the response's; requests that end in the same turn now share one. A line waits for no timer and for
 * no other line: only for the code running in the same turn to finish.
 */
export class TurnBatchedLines {
  private lines: string[] = [];
  private scheduled = false;

  constructor(private readonly out: { write(text: string): unknown }) {}

  write(line: string): void {
    this.lines.push(line);
    if (!this.scheduled) {
      this.scheduled = true;
      setImmediate(this.endOfTurn);
    }
  }

  private readonly endOfTurn = (): void => {
    this.scheduled = false;
    this.flush();
  };

  /** Writes the lines kept so far now (pino's logger.flush() calls it too). */
  flush(done?: (err?: Error) => void): void {
    if (this.lines.length > 0) {
      const text = this.lines.length === 1 ? this.lines[0] : this.lines.join("");
      this.lines = [];
      this.out.write(text);
    }
    done?.();
  }
}
