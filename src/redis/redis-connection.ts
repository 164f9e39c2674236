// The service's one connection to Redis (REDIS_URL), through ioredis, and the rule that Redis never holds a request
// up nor takes the API down. Every operation goes through attempt(): while Redis is not known to answer (still
// connecting, unreachable, lost, or slow) it fails at once, and the caller (rate-limit-store.ts, document-cache.ts)
// uses this instance's own memory instead. An operation that fails or takes longer than OPERATION_DEADLINE_MS marks
// Redis out: one warn line per outage, every failure counted (redis_errors_total), and a probe that marks it back
// (one info line) as soon as it answers again. Loaded only when REDIS_URL is set (index.ts imports it on demand), so
// without it no Redis client module is loaded at all.
import { Redis } from "ioredis";
import type { Logger } from "../logger";

/**
 * The longest one Redis operation may hold a request. A request makes at most two that it waits for (its rate-limit
 * count, then the lookup of an automatic persisted query; a registration is not waited for), so it waits on Redis
 * 180 ms at most in all: under the 200 ms the contract allows, with room for the timers' own lateness.
 */
export const OPERATION_DEADLINE_MS = 90;

/** While Redis is out: how often the probe checks whether it answers again (and the longest pause between reconnections). */
const PROBE_INTERVAL_MS = 500;

/** What the probe writes (under the prefix of every key of the service, src/redis/index.ts). */
const PROBE_KEY = "project-service:probe";

/** When ioredis itself gives up on a command (see commandTimeout below). */
const COMMAND_TIMEOUT_MS = 1000;

/** How long a connection attempt may take; requests never wait for one (they use the fallback meanwhile). */
const CONNECT_TIMEOUT_MS = 2000;

/** Thrown by attempt() when Redis did not serve the operation; the caller falls back to its own memory. */
export class RedisUnavailable extends Error {
  constructor() {
    super("Redis is unavailable");
    this.name = "RedisUnavailable";
  }
}
const UNAVAILABLE = new RedisUnavailable();

/**
 * The URL as logs may show it: scheme, host, port and database only. The user, the password and the query string
 * (ioredis reads options such as `password` from it) never reach a log line.
 */
export function redactedRedisUrl(url: string): string {
  try {
    const parsed = new URL(url);
    return `${parsed.protocol}//${parsed.host}${parsed.pathname === "/" ? "" : parsed.pathname}`;
  } catch {
    return "(unparseable REDIS_URL)";
  }
}

/** The one line of an error that may be logged: ioredis's reply errors carry the command and its arguments (AUTH's password among them). */
function reasonOf(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/**
 * The operation's result, or a rejection once OPERATION_DEADLINE_MS have passed without one. The rejection waits for
 * the poll phase of the event loop that fires the timer: when this process itself was busy past the deadline (a
 * loaded machine), a reply that arrived meanwhile is read first and wins, so only Redis's own slowness counts.
 */
async function withinDeadline<T>(operation: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  let immediate: NodeJS.Immediate | undefined;
  const deadline = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => {
      immediate = setImmediate(() => reject(new Error(`no answer within ${OPERATION_DEADLINE_MS} ms`)));
    }, OPERATION_DEADLINE_MS);
  });
  try {
    return await Promise.race([operation, deadline]);
  } finally {
    clearTimeout(timer);
    clearImmediate(immediate);
  }
}

export interface RedisConnectionOptions {
  logger: Logger;
  /** Called for every failed operation and connection attempt (redis_errors_total). */
  onError(): void;
}

export class RedisConnection {
  readonly client: Redis;
  /** connecting: not yet ready since the start (no outage yet); up: operations go to Redis; down: an outage. */
  private state: "connecting" | "up" | "down" = "connecting";
  private probe?: NodeJS.Timeout;
  private probing = false;
  private closed = false;
  private readonly where: string;

  constructor(
    url: string,
    private readonly options: RedisConnectionOptions,
  ) {
    this.where = redactedRedisUrl(url);
    this.client = new Redis(url, {
      connectTimeout: CONNECT_TIMEOUT_MS,
      // A backstop that ends a stalled command's own promise; requests stop waiting at OPERATION_DEADLINE_MS
      // (withinDeadline). Not equal to it: ioredis's timer, started first, would fire before a late reply is read.
      commandTimeout: COMMAND_TIMEOUT_MS,
      // Not connected: a command fails at once instead of waiting in a queue for the connection.
      enableOfflineQueue: false,
      // Lost connection: the commands in flight fail at once instead of being sent again after reconnecting.
      maxRetriesPerRequest: 0,
      autoResendUnfulfilledCommands: false,
      // Reconnect forever, soon: sharing resumes by itself when Redis returns.
      retryStrategy: (times) => Math.min(times * 100, PROBE_INTERVAL_MS),
      connectionName: "project-service",
    });
    this.client.on("ready", () => this.answered());
    this.client.on("error", (err: unknown) => this.failed(err));
    // A server that goes away cleanly (restart, kill) closes the socket without an error event.
    this.client.on("close", () => {
      if (this.state === "up") this.failed(new Error("connection closed"));
    });
  }

  /** Whether operations currently go to Redis. */
  get available(): boolean {
    return this.state === "up";
  }

  /** Runs one operation on Redis within OPERATION_DEADLINE_MS; throws RedisUnavailable when Redis did not serve it. */
  async attempt<T>(operation: (client: Redis) => Promise<T>): Promise<T> {
    if (this.state !== "up") throw UNAVAILABLE;
    try {
      return await withinDeadline(operation(this.client));
    } catch (err) {
      this.failed(err);
      throw UNAVAILABLE;
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    clearInterval(this.probe);
    // disconnect, not quit: quit waits for Redis's answer, which a stalled Redis never sends.
    this.client.disconnect();
  }

  private failed(err: unknown): void {
    if (this.closed) return;
    this.options.onError();
    if (this.state === "down") return;
    const lost = this.state === "up";
    this.state = "down";
    this.options.logger.warn(
      `Redis at ${this.where} ${lost ? "failed" : "is unreachable"} (${reasonOf(err)}): this instance counts rate ` +
        `limits and keeps persisted queries on its own until Redis answers again`,
    );
    this.probe ??= setInterval(() => void this.check(), PROBE_INTERVAL_MS).unref();
  }

  /**
   * The probe: a connection that is still open (a stalled Redis keeps it) is tried with a write, not a PING: a Redis
   * that is full (maxmemory without eviction) answers PING but refuses writes, and must stay out, not flap.
   */
  private async check(): Promise<void> {
    if (this.state !== "down" || this.probing || this.client.status !== "ready") return;
    this.probing = true;
    try {
      await withinDeadline(this.client.set(PROBE_KEY, "1", "PX", PROBE_INTERVAL_MS));
    } catch {
      this.options.onError(); // the same outage: counted, not logged again
      return;
    } finally {
      this.probing = false;
    }
    this.answered();
  }

  private answered(): void {
    if (this.closed || this.state === "up") return;
    const back = this.state === "down";
    this.state = "up";
    clearInterval(this.probe);
    this.probe = undefined;
    this.options.logger.info(
      back
        ? `Redis at ${this.where} answers again: rate limits and persisted queries are shared by every instance again`
        : `Redis at ${this.where} connected: rate limits and persisted queries are shared by every instance`,
    );
  }
}
