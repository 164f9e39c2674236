// Multi-document transactions, as MongoDB users write them: a session of its own, startTransaction, the work, then
// commitTransaction; tried again from the start after an error labelled TransientTransactionError (another
// transaction wrote the same document first: WriteConflict), and the commit alone again after
// UnknownTransactionCommitResult. MongoDB runs them on a replica set (database.ts refuses a standalone server); the
// embedded FerretDB is a replica set of one and runs them too (docs/database.md says how).
//
// Every wait has a limit: the attempts stop at the deadline (DB_TIMEOUT_MS from the request's first attempt), where
// the driver's withTransaction would go on for 120 s. Between attempts a pause with jitter, growing as MongoDB's
// drivers grow it (5 ms times 1.5 per attempt, at most 500 ms), lets the writer that won go first. A transaction whose
// conflicts outlast its budget, or that gets no turn (write-turns.ts), is shed: SERVICE_UNAVAILABLE, HTTP 503, never
// an internal error. GET /metrics counts the commit and the abort like every other command
// (db_command_duration_seconds{command="commitTransaction"} and "abortTransaction").
import { mongo, type ClientSession, type Connection } from "mongoose";
import { reportCommandTiming } from "./command-timing";
import { assertAvailable } from "./availability";
import type { WriteTurns } from "./write-turns";

export interface Transactions {
  /**
   * Runs `work` in one transaction and commits it; `work` passes the session to every operation. Returns what work
   * returned, once committed. Throws work's own errors (the transaction is then aborted: nothing of it stays).
   */
  run<T>(work: (session: ClientSession) => Promise<T>): Promise<T>;
  /**
   * Runs `work`, writes outside a transaction, in its turn with this process's transactions (write-turns.ts): on
   * the embedded FerretDB a single write waits for another's transaction as a transaction does.
   */
  write<T>(work: () => Promise<T>): Promise<T>;
}

function hasLabel(err: unknown, label: string): boolean {
  const e = err as { hasErrorLabel?: (label: string) => boolean; errorLabels?: string[] } | null;
  return !!e && (e.hasErrorLabel?.(label) ?? e.errorLabels?.includes(label) ?? false);
}

/** MongoDB's drivers' backoff between attempts of a transaction: the first pause, its growth, its largest. */
const BACKOFF_FIRST_MS = 5;
const BACKOFF_GROWTH = 1.5;
const BACKOFF_MAX_MS = 500;

/** The pause before attempt `attempt + 1`: a random share (jitter) of the grown backoff. */
export function backoffMs(attempt: number): number {
  return Math.random() * Math.min(BACKOFF_FIRST_MS * BACKOFF_GROWTH ** (attempt - 1), BACKOFF_MAX_MS);
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Transactions on `connection`, each within `timeoutMs`, taking their turns (and single writes theirs) from `turns`. */
export function transactionsOf(connection: Connection, timeoutMs: number, turns: WriteTurns): Transactions {
  const client = () => connection.getClient();
  // The driver's session helpers send commitTransaction and abortTransaction outside the timed commands.
  const timed = async (command: "commitTransaction" | "abortTransaction", send: () => Promise<void>) => {
    const started = performance.now();
    try {
      await send();
      reportCommandTiming(client(), command, "ok", started);
    } catch (err) {
      reportCommandTiming(client(), command, "error", started);
      throw err;
    }
  };
  const commit = (session: ClientSession) => timed("commitTransaction", () => session.commitTransaction());
  /**
   * After a transient error: pauses, unless the pause would pass the deadline. Then a conflict the server answered
   * sheds the change; a server that did not answer (a network error, also labelled transient) fails it as any
   * operation that found no database does.
   */
  const pauseOrShed = async (attempt: number, deadline: number, err: unknown) => {
    const pause = backoffMs(attempt);
    if (performance.now() + pause >= deadline) {
      if (!(err instanceof mongo.MongoServerError)) throw err;
      throw turns.shed(
        "conflicts",
        "the change kept meeting other changes at the database until its time limit; retry",
        err,
      );
    }
    await sleep(pause);
  };
  return {
    async run<T>(work: (session: ClientSession) => Promise<T>): Promise<T> {
      // While the database is known to be down, no session, no abort to send: the caller's error at once.
      assertAvailable(client());
      const deadline = performance.now() + timeoutMs;
      const done = await turns.take(deadline);
      const session = await connection.startSession();
      try {
        for (let attempt = 1; ; attempt++) {
          session.startTransaction({ writeConcern: { w: "majority" } });
          let result: T;
          try {
            result = await work(session);
          } catch (err) {
            // The driver sends abortTransaction only once a command of the transaction went out.
            // (Its state is internal to the driver's typings.)
            const { transaction } = session as unknown as { transaction: { state: string } };
            const sent = transaction.state === "TRANSACTION_IN_PROGRESS";
            const abort = () => session.abortTransaction();
            await (sent ? timed("abortTransaction", abort) : abort()).catch(() => undefined);
            if (!hasLabel(err, "TransientTransactionError")) throw err;
            await pauseOrShed(attempt, deadline, err);
            continue;
          }
          let conflict: unknown;
          while (conflict === undefined) {
            try {
              await commit(session);
              return result;
            } catch (err) {
              // The commit alone again (the driver sends it again with w: majority; a commit applied is not applied twice).
              if (hasLabel(err, "UnknownTransactionCommitResult") && performance.now() < deadline) continue;
              if (!hasLabel(err, "TransientTransactionError")) throw err;
              conflict = err;
            }
          }
          await pauseOrShed(attempt, deadline, conflict);
        }
      } finally {
        done();
        await session.endSession().catch(() => undefined);
      }
    },
    write<T>(work: () => Promise<T>): Promise<T> {
      // While the database is known to be down: the caller's error at once, not a wait for a turn.
      assertAvailable(client());
      return turns.run(performance.now() + timeoutMs, work);
    },
  };
}
