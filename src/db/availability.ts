// Whether the database is known to be down: while the embedded database's process is being started again
// (embedded-supervisor.ts), every database operation of the service fails at once with DatabaseUnavailableError,
// which every transport answers as the internal error it is (INTERNAL_SERVER_ERROR, docs/operations.md), instead of
// each waiting DB_TIMEOUT_MS for the driver to find a server that is not there. One global Mongoose plugin
// (registered by database.ts, like command-timing.ts's) refuses the models' queries, aggregations, saves and
// insertMany before they reach the driver; transactions.ts and the ping ask assertAvailable themselves.
import type mongoose from "mongoose";
import { QUERY_OPERATIONS } from "./command-timing";

/** Thrown by an operation started while its database is known to be down. */
export class DatabaseUnavailableError extends Error {
  override name = "DatabaseUnavailableError";
}

/** The availability of one database, as its supervisor knows it. */
export class Availability {
  private reason: string | undefined;
  private readonly downListeners = new Set<(reason: string) => void>();

  /** Why the database is down, or undefined while it is up (as far as anyone knows). */
  get down(): string | undefined {
    return this.reason;
  }

  markDown(reason: string): void {
    this.reason = reason;
    for (const listener of this.downListeners) listener(reason);
  }

  /** Tells `listener` each time the database is marked down (the writes waiting for their turn then fail at once). */
  onDown(listener: (reason: string) => void): void {
    this.downListeners.add(listener);
  }

  markUp(): void {
    this.reason = undefined;
  }
}

const byClient = new WeakMap<object, Availability>();

/** Makes the operations on the models of this driver client follow `availability`. */
export function followAvailability(client: object, availability: Availability): void {
  byClient.set(client, availability);
}

/** The error of an operation while the database is known to be down for `reason`. */
export function unavailable(reason: string): DatabaseUnavailableError {
  return new DatabaseUnavailableError(`the database is unavailable: ${reason}`);
}

/** Throws DatabaseUnavailableError while the database of this driver client is known to be down. */
export function assertAvailable(client: object | undefined): void {
  const reason = client && byClient.get(client)?.down;
  if (reason) throw unavailable(reason);
}

function clientOf(model: { db?: { getClient?: () => object } } | undefined): object | undefined {
  return model?.db?.getClient?.();
}

/** The plugin: a pre hook on every operation that reaches the driver refuses it while its database is down. */
export function availabilityPlugin(schema: mongoose.Schema): void {
  schema.pre(QUERY_OPERATIONS, function (this: mongoose.Query<unknown, unknown>) {
    assertAvailable(clientOf(this.model));
  });
  schema.pre("aggregate", function (this: mongoose.Aggregate<unknown>) {
    assertAvailable(clientOf(this.model()));
  });
  schema.pre("save", function (this: mongoose.Document) {
    assertAvailable(clientOf(this as never));
  });
  schema.pre("insertMany", function (this: mongoose.Model<unknown>) {
    assertAvailable(clientOf(this as never));
  });
}
