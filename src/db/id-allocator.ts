// Ids from counters (`findOneAndUpdate` with upsert and $inc: atomic on MongoDB and on the patched embedded FerretDB),
// inserted under unique indexes. The unique index on the id field stays what guarantees uniqueness: a counter behind
// the ids already stored (data restored or written by other means) costs a retry with the next number, never a
// duplicate.
import type { ClientSession } from "mongoose";
import { internalError } from "../shared/errors";
import { GRAPHQL_INT_MAX, SAFE_INT_MAX } from "../shared/validation";
import type { CounterModel } from "./counter.model";

const DUPLICATE_KEY = 11000;
const MAX_ATTEMPTS = 50;

/**
 * The largest id of each sequence: what the GraphQL type answering it can return (Int for projects and teachers,
 * SafeInt for students). A sequence not listed gets the smaller bound, so a new one fails safe.
 */
const LARGEST_ID: Readonly<Record<string, number>> = {
  projects: GRAPHQL_INT_MAX,
  teachers: GRAPHQL_INT_MAX,
  students: SAFE_INT_MAX,
};

export function isDuplicateKeyError(err: unknown): boolean {
  const e = err as { code?: number } | null;
  return !!e && e.code === DUPLICATE_KEY;
}

/**
 * The fields of the unique index a duplicate-key error names (its keyPattern, as MongoDB and the embedded FerretDB
 * give it); empty when it names none.
 */
export function duplicateKeyFields(err: unknown): string[] {
  const pattern = (err as { keyPattern?: unknown } | null)?.keyPattern;
  return pattern && typeof pattern === "object" ? Object.keys(pattern) : [];
}

/** The id, unless it is past what the API can answer (contract: ranges both transports can answer). */
function answerable(sequence: string, id: number): number {
  const largest = LARGEST_ID[sequence] ?? GRAPHQL_INT_MAX;
  if (id > largest) {
    throw internalError(new Error(`the ${sequence} id sequence is exhausted: ${id} is over ${largest}`));
  }
  return id;
}

export class IdAllocator {
  constructor(private readonly counters: CounterModel) {}

  /**
   * The next number of a sequence (1, 2, …). In a transaction (`session`), the step is the transaction's: it commits
   * with it, or is rolled back with it, and no other transaction takes a number of the sequence meanwhile.
   */
  next(sequence: string, session?: ClientSession): Promise<number> {
    return this.reserve(sequence, 1, session);
  }

  /** The first of `count` consecutive numbers of a sequence, taken in one step (in `session`'s transaction too). */
  async reserve(sequence: string, count: number, session?: ClientSession): Promise<number> {
    for (let attempt = 0; ; attempt++) {
      try {
        const doc = await this.counters
          .findOneAndUpdate(
            { _id: sequence },
            { $inc: { seq: count } },
            // Only the value is read back (findAndModify's `fields`, which the embedded FerretDB now takes too).
            { upsert: true, returnDocument: "after", projection: { seq: 1 }, ...(session ? { session } : {}) },
          )
          .lean();
        return doc!.seq - count + 1;
      } catch (err) {
        // Two first-ever upserts may race to insert the counter document itself (outside a transaction, which a
        // duplicate key would end: the caller's transaction is then tried again as a whole).
        if (session || !isDuplicateKeyError(err) || attempt >= 3) throw err;
      }
    }
  }

  /** The last number a sequence handed out (0 when it never did). */
  async current(sequence: string): Promise<number> {
    const doc = await this.counters.findOne({ _id: sequence }).lean();
    return doc?.seq ?? 0;
  }

  /** Raises a sequence to at least `value` (its next number is then above it). */
  async atLeast(sequence: string, value: number): Promise<void> {
    await this.counters
      .updateOne({ _id: sequence }, { $max: { seq: value } }, { upsert: true })
      .catch((err: unknown) => {
        if (!isDuplicateKeyError(err)) throw err;
      });
  }

  /**
   * The next id of a sequence for a record inserted in `session`'s transaction: refused past the largest id the API
   * can answer. An id taken meanwhile by other means (data restored or written behind the service's back) makes the
   * insert fail on its unique index and ends the transaction: the caller raises the sequence past it (atLeast) and
   * tries again.
   */
  async nextId(sequence: string, session: ClientSession): Promise<number> {
    return answerable(sequence, await this.next(sequence, session));
  }

  /**
   * Allocates an id and runs `insert` with it. When `insert` fails on a duplicate key, the error's keyPattern says
   * which unique index refused it: the id's (`_id` or `idField`, taken by a record stored by other means: retry with
   * the next id), or another (a name, an email): `explainDuplicate` is given its fields and returns the error to throw.
   */
  async insertWithNewId<T>(
    sequence: string,
    idField: string,
    insert: (id: number) => Promise<T>,
    explainDuplicate: (fields: string[]) => Error | undefined = () => undefined,
  ): Promise<T> {
    for (let attempt = 1; ; attempt++) {
      const id = answerable(sequence, await this.next(sequence));
      try {
        return await insert(id);
      } catch (err) {
        if (!isDuplicateKeyError(err)) throw err;
        const fields = duplicateKeyFields(err);
        if (!fields.includes("_id") && !fields.includes(idField)) throw explainDuplicate(fields) ?? err;
        if (attempt >= MAX_ATTEMPTS) throw err;
      }
    }
  }
}
