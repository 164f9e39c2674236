// What starting an embedded database server gives back, whichever kind it is (mongod in embedded.ts, FerretDB in
// ferretdb.ts), and how the starters report progress.
export type Progress = (message: string) => void;

export interface EmbeddedDatabase {
  uri: string;
  kind: "mongod" | "ferretdb";
  /** One phrase for the start-up line, e.g. "embedded FerretDB 1.24 (SQLite in /x/.data/ferretdb)". */
  description: string;
  /** The server process's id (tests pause it with SIGSTOP to play a stalled database). */
  pid: number | undefined;
  stop(): Promise<void>;
}
