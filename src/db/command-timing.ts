// The database round-trip time of each Mongoose operation, by the driver command it sends (find, insert, update,
// findAndModify, aggregate, …), for db_command_duration_seconds at GET /metrics. Timed around the operation by
// Mongoose middleware rather than by the driver's command monitoring: to build its commandSucceeded event the driver
// decodes every reply a second time (the whole page of documents, once more), which cost about a sixth of the
// service's CPU per read. One global plugin (registered by database.ts before any model is compiled) times every
// model's queries, aggregations and saves; listeners subscribe per MongoClient, so several apps in one process keep
// their own figures.
import type mongoose from "mongoose";

export interface CommandTiming {
  /** The driver command the operation sends. */
  command: string;
  outcome: "ok" | "error";
  /** Milliseconds, from the operation's start to its result. */
  duration: number;
}

type Listener = (timing: CommandTiming) => void;

const listeners = new WeakMap<object, Set<Listener>>();

/** Calls listener with the timing of every operation on that client's models; returns the function that stops it. */
export function onCommandTiming(client: object, listener: Listener): () => void {
  let set = listeners.get(client);
  if (!set) listeners.set(client, (set = new Set()));
  set.add(listener);
  return () => set.delete(listener);
}

/** Reports one operation on client that started at `started` (performance.now()). */
export function reportCommandTiming(
  client: object | undefined,
  command: string,
  outcome: CommandTiming["outcome"],
  started: number,
): void {
  const set = client && listeners.get(client);
  if (!set || set.size === 0) return;
  const timing = { command, outcome, duration: performance.now() - started };
  for (const listener of set) listener(timing);
}

/** Mongoose's query operations, by the driver command each sends. */
const QUERY_COMMANDS = {
  find: "find",
  findOne: "find",
  countDocuments: "aggregate",
  estimatedDocumentCount: "count",
  distinct: "distinct",
  findOneAndUpdate: "findAndModify",
  findOneAndDelete: "findAndModify",
  findOneAndReplace: "findAndModify",
  updateOne: "update",
  updateMany: "update",
  replaceOne: "update",
  deleteOne: "delete",
  deleteMany: "delete",
} as const;
type QueryOperation = keyof typeof QUERY_COMMANDS;
export const QUERY_OPERATIONS = Object.keys(QUERY_COMMANDS) as QueryOperation[];

/** When each timed operation (a Query, an Aggregate, a saved document) started, and as which command. */
const started = new WeakMap<object, { at: number; command: string }>();

/** The command of a query (Mongoose names its operation in `op`, which its typings leave out). */
function commandOf(query: object): string {
  const op = (query as { op?: string }).op ?? "unknown";
  return QUERY_COMMANDS[op as QueryOperation] ?? op;
}

function clientOf(model: { db?: { getClient?: () => object } } | undefined): object | undefined {
  return model?.db?.getClient?.();
}

function finish(operation: object, client: object | undefined, outcome: CommandTiming["outcome"]): void {
  const start = started.get(operation);
  if (!start) return;
  started.delete(operation);
  reportCommandTiming(client, start.command, outcome, start.at);
}

/**
 * The plugin: pre middleware notes the start, post middleware reports the timing, and error handlers (marked so,
 * not told apart by their arity) report the failure and throw the error on unchanged.
 */
export function commandTimingPlugin(schema: mongoose.Schema): void {
  schema.pre(QUERY_OPERATIONS, function (this: mongoose.Query<unknown, unknown>) {
    started.set(this, { at: performance.now(), command: commandOf(this) });
  });
  schema.post(QUERY_OPERATIONS, function (this: mongoose.Query<unknown, unknown>) {
    finish(this, clientOf(this.model), "ok");
  });
  schema.post(
    QUERY_OPERATIONS,
    { errorHandler: true },
    function (this: mongoose.Query<unknown, unknown>, error: unknown) {
      finish(this, clientOf(this.model), "error");
      throw error;
    },
  );

  schema.pre("aggregate", function (this: mongoose.Aggregate<unknown>) {
    started.set(this, { at: performance.now(), command: "aggregate" });
  });
  schema.post("aggregate", function (this: mongoose.Aggregate<unknown>) {
    finish(this, clientOf(this.model()), "ok");
  });
  schema.post("aggregate", { errorHandler: true }, function (this: mongoose.Aggregate<unknown>, error: unknown) {
    finish(this, clientOf(this.model()), "error");
    throw error;
  });

  // A subdocument's save is part of its parent's, which is the command ($parent() is the document itself at the top).
  const isSubdocument = (doc: mongoose.Document) => {
    const parent: unknown = typeof doc.$parent === "function" ? doc.$parent() : undefined;
    return parent !== undefined && parent !== doc;
  };
  schema.pre("save", function (this: mongoose.Document) {
    if (!isSubdocument(this)) started.set(this, { at: performance.now(), command: this.isNew ? "insert" : "update" });
  });
  schema.post("save", function (this: mongoose.Document) {
    finish(this, clientOf(this as never), "ok");
  });
  schema.post("save", { errorHandler: true }, function (this: mongoose.Document, error: unknown) {
    finish(this, clientOf(this as never), "error");
    throw error;
  });
}

/**
 * Runs one operation sent through the driver directly (a model's `collection`, which no Mongoose middleware sees),
 * timed as `command` like the plugin times Mongoose's own operations.
 */
export async function timedCommand<T>(client: object | undefined, command: string, run: () => Promise<T>): Promise<T> {
  const started = performance.now();
  try {
    const result = await run();
    reportCommandTiming(client, command, "ok", started);
    return result;
  } catch (err) {
    reportCommandTiming(client, command, "error", started);
    throw err;
  }
}
