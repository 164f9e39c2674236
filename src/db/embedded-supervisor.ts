// Keeps the embedded database running while the service runs. When its process exits by itself (a crash, the kernel's
// OOM killer, kill -9), the supervisor says so in one event and starts it again on the same data and at the same
// address (EmbeddedDatabase.restart: the driver's URI stays valid), after a wait that doubles with each death of the
// last two minutes: 1 s, 2 s, 4 s, 8 s, … at most 30 s. A start that fails counts as a death too. The fifth death
// within two minutes is a crash loop: the supervisor gives up and says so, and the service exits non-zero so that its
// own supervisor (Docker, systemd, Kubernetes) takes over. SQLite's journal (or mongod's) keeps every write that was
// acknowledged before the death.
import { EventEmitter } from "node:events";
import type { EmbeddedDatabase, ExitStatus } from "./embedded-server";

export interface SupervisionOptions {
  /** The first wait before a restart, doubled with each further death within `windowMs`. */
  firstWaitMs?: number;
  /** The longest wait before a restart. */
  maxWaitMs?: number;
  /** This many deaths within `windowMs` is a crash loop. */
  deathsForCrashLoop?: number;
  windowMs?: number;
  /**
   * Resolves once a restarted server answers its clients (the service pings it through its own driver, so the driver
   * knows it is back); the signal aborts when the server exits again or supervision stops.
   */
  answering?: (signal: AbortSignal) => Promise<void>;
}

export interface SupervisionEvents {
  /** The server's process exited by itself, or a restart failed: one line, and the wait before the next start. */
  down: [line: string, waitMs: number];
  /** The restarted server answers again; `restarts` counts them, `downMs` is how long it was away. */
  back: [line: string, restarts: number, downMs: number];
  /** A crash loop: supervision has given up (one line). */
  gaveUp: [line: string];
}

const DEFAULTS = { firstWaitMs: 1000, maxWaitMs: 30_000, deathsForCrashLoop: 5, windowMs: 120_000 };

const seconds = (ms: number) => `${Number((ms / 1000).toFixed(1))} s`;

function describeExit(status: ExitStatus): string {
  return status.signal ? `signal ${status.signal}` : `exit code ${status.code}`;
}

export class EmbeddedSupervisor extends EventEmitter<SupervisionEvents> {
  private current: EmbeddedDatabase;
  private readonly options: Required<Omit<SupervisionOptions, "answering">> & Pick<SupervisionOptions, "answering">;
  private readonly name: string;
  /** When each death of the last window happened. */
  private deaths: number[] = [];
  private downSince: number | undefined;
  private restartCount = 0;
  private stopped = false;
  private timer: ReturnType<typeof setTimeout> | undefined;
  private restarting: Promise<void> | undefined;
  private answeringAbort: AbortController | undefined;

  constructor(first: EmbeddedDatabase, options: SupervisionOptions = {}) {
    super();
    this.options = { ...DEFAULTS, ...options };
    this.name = first.kind === "ferretdb" ? "The embedded FerretDB" : "The embedded mongod";
    this.current = first;
    this.watch(first);
  }

  /** The server running now (or the last one, while it is down). */
  get database(): EmbeddedDatabase {
    return this.current;
  }

  /** How many times the server was started again. */
  get restarts(): number {
    return this.restartCount;
  }

  /** Whether the server is down now (between a death and the restarted server answering). */
  get isDown(): boolean {
    return this.downSince !== undefined;
  }

  /** Stops supervising, then the server. */
  async stop(): Promise<void> {
    this.stopped = true;
    clearTimeout(this.timer);
    this.answeringAbort?.abort();
    await this.restarting;
    await this.current.stop();
  }

  private watch(database: EmbeddedDatabase): void {
    void database.exited.then((status) => {
      if (database === this.current) this.died(`exited (${describeExit(status)})`);
    });
  }

  private died(what: string): void {
    if (this.stopped) return;
    this.answeringAbort?.abort();
    const now = Date.now();
    this.downSince ??= now;
    this.deaths = [...this.deaths.filter((at) => now - at < this.options.windowMs), now];
    const { deathsForCrashLoop, windowMs, firstWaitMs, maxWaitMs } = this.options;
    if (this.deaths.length >= deathsForCrashLoop) {
      this.stopped = true;
      this.emit(
        "gaveUp",
        `${this.name} ${what}: ${this.deaths.length} times within ${seconds(windowMs)}, a crash loop; giving up, the service exits so that its supervisor can take over`,
      );
      return;
    }
    const waitMs = Math.min(maxWaitMs, firstWaitMs * 2 ** (this.deaths.length - 1));
    this.emit(
      "down",
      `${this.name} ${what}; starting it again on the same data and address in ${seconds(waitMs)} (death ${this.deaths.length} within ${seconds(windowMs)}; ${deathsForCrashLoop} end the service)`,
      waitMs,
    );
    this.timer = setTimeout(() => {
      this.restarting = this.restart().finally(() => (this.restarting = undefined));
    }, waitMs);
  }

  private async restart(): Promise<void> {
    let next: EmbeddedDatabase;
    try {
      next = await this.current.restart();
    } catch (err) {
      this.died(`could not be started (${(err as Error).message})`);
      return;
    }
    if (this.stopped) {
      await next.stop();
      return;
    }
    this.current = next;
    this.restartCount++;
    this.watch(next);
    const abort = (this.answeringAbort = new AbortController());
    try {
      await this.options.answering?.(abort.signal);
    } catch {
      return; // it exited again (watch reports it) or supervision stopped
    }
    if (abort.signal.aborted || this.current !== next) return;
    const downMs = Date.now() - (this.downSince ?? Date.now());
    this.downSince = undefined;
    this.emit(
      "back",
      `${this.name} is back and answering (restart ${this.restartCount}; ${seconds(downMs)} after it went away)`,
      this.restartCount,
      downMs,
    );
  }
}
