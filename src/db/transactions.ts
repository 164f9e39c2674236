// Multi-document transactions, as MongoDB users write them: a session of its own, startTransaction, the work, then
// commitTransaction; tried again from the start after an error labelled TransientTransactionError (another
// transaction wrote the same document first: WriteConflict), and the commit alone again after
// UnknownTransactionCommitResult. MongoDB runs them on a replica set (database.ts refuses a standalone server); the
// embedded FerretDB is a replica set of one and runs them too (docs/database.md says how).
//
// Every wait has a limit: the attempts stop at the deadline (DB_TIMEOUT_MS from the first attempt), where the
// driver's withTransaction would go on for 120 s. Between attempts a short random pause lets the writer that won go
// first. GET /metrics counts the commit and the abort like every other command (db_command_duration_seconds{command=
// "commitTransaction"} and "abortTransaction").
import type { ClientSession, Connection } from "mongoose";
import { reportCommandTiming } from "./command-timing";
import { assertAvailable } from "./availability";

/** The longest pause between two attempts (ms): a random share of it, growing with the attempts. */
const MAX_PAUSE_MS = 20;

export interface Transactions {
  /**
   * Runs `work` in one transaction and commits it; `work` passes the session to every operation. Returns what work
   * returned, once committed. Throws work's own errors (the transaction is then aborted: nothing of it stays).
   */
  run<T>(work: (session: ClientSession) => Promise<T>): Promise<T>;
}

function hasLabel(err: unknown, label: string): boolean {
  const e = err as { hasErrorLabel?: (label: string) => boolean; errorLabels?: string[] } | null;
  return !!e && (e.hasErrorLabel?.(label) ?? e.errorLabels?.includes(label) ?? false);
}

/**
 * At most `limit` transactions of this process at once; the others wait their turn in order, each until its
 * deadline. The embedded FerretDB writes one transaction at a time per database, and a transaction waiting there for
 * the one writing holds a connection of the driver's small pool (configured-database.ts): enough of them waiting
 * would leave the writing one no connection for its next command. Waiting here holds none.
 */
function turns(limit: number) {
  let running = 0;
  const waiting: (() => void)[] = [];
  const release = () => {
    const next = waiting.shift();
    if (next) next();
    else running--;
  };
  return async (waitMs: number): Promise<() => void> => {
    if (running < limit) {
      running++;
      return release;
    }
    await new Promise<void>((resolve, reject) => {
      const turn = () => {
        clearTimeout(timer);
        resolve();
      };
      const timer = setTimeout(() => {
        waiting.splice(waiting.indexOf(turn), 1);
        reject(new Error(`no turn to run a transaction within ${waitMs} ms (${waiting.length} more waiting)`));
      }, waitMs);
      waiting.push(turn);
    });
    return release;
  };
}

const pause = (attempt: number) =>
  new Promise((resolve) => setTimeout(resolve, Math.random() * Math.min(MAX_PAUSE_MS, 2 * attempt)));

/** `atOnce`: how many transactions of this process may run at once (unlimited on MongoDB). */
export function transactionsOf(connection: Connection, timeoutMs: number, atOnce = Infinity): Transactions {
  const turn = turns(atOnce);
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
  return {
    async run<T>(work: (session: ClientSession) => Promise<T>): Promise<T> {
      // While the database is known to be down, no session, no abort to send: the caller's error at once.
      assertAvailable(client());
      const deadline = performance.now() + timeoutMs;
      const done = await turn(timeoutMs);
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
            if (hasLabel(err, "TransientTransactionError") && performance.now() < deadline) {
              await pause(attempt);
              continue;
            }
            throw err;
          }
          for (;;) {
            try {
              await commit(session);
              return result;
            } catch (err) {
              if (hasLabel(err, "UnknownTransactionCommitResult") && performance.now() < deadline) continue;
              if (hasLabel(err, "TransientTransactionError") && performance.now() < deadline) break;
              throw err;
            }
          }
          await pause(attempt);
        }
      } finally {
        done();
        await session.endSession().catch(() => undefined);
      }
    },
  };
}
