// What starting an embedded database server gives back, whichever kind it is (mongod in embedded.ts, FerretDB in
// ferretdb.ts), and how the starters report progress. Its process may exit while the service runs (a crash, the
// kernel's OOM killer): `exited` says so, and `restart` brings it back where the driver already looks for it
// (embedded-supervisor.ts does both).
import type { ChildProcess } from "node:child_process";

export type Progress = (message: string) => void;

/** How a server's process ended: its exit code, or the signal that ended it. */
export interface ExitStatus {
  code: number | null;
  signal: NodeJS.Signals | null;
}

export interface EmbeddedDatabase {
  uri: string;
  kind: "mongod" | "ferretdb";
  /** One phrase for the start-up line, e.g. "embedded FerretDB 1.24 (SQLite in /x/.data/ferretdb)". */
  description: string;
  /** The server process's id (tests pause it with SIGSTOP to play a stalled database). */
  pid: number | undefined;
  /** Resolves once this server's process has exited, whatever ended it (stop() too). */
  exited: Promise<ExitStatus>;
  /**
   * Starts the server again, once this one's process has exited, on the same data and at the same address: the new
   * one's `uri` is this one's, so a driver connected to it finds it again without a new URI.
   */
  restart(): Promise<EmbeddedDatabase>;
  stop(): Promise<void>;
}

/** The exit of a child process, also when it has already happened. */
export function exitOf(child: ChildProcess): Promise<ExitStatus> {
  if (child.exitCode !== null || child.signalCode !== null) {
    return Promise.resolve({ code: child.exitCode, signal: child.signalCode });
  }
  return new Promise((resolve) => child.once("exit", (code, signal) => resolve({ code, signal })));
}
