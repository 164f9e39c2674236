// The format's special test operations (object "testRunner"): fail points, assertions on sessions, collections and
// indexes, and createEntities. Those that read what the driver sent or observed (command, connection-pool and
// topology events, threads) are named with the reason they are skipped: this runner does not record events.
import type { ClientSession, MongoClient } from "mongodb";
import type { EntityMap } from "./entity-map";
import { describe } from "./matcher";
import { TestFailed, TestSkipped } from "./test-outcome";
import type { Doc, EntityDescription } from "./unified-format";

export interface RunnerContext {
  entities: EntityMap;
  /** The runner's own client (initialData, outcome, assertions on collections and indexes). */
  internal: MongoClient;
  /** Records a fail point set on the server, to switch it off after the test. */
  failPointSet(name: string): void;
}

interface RunnerOperation {
  required: readonly string[];
  optional?: readonly string[];
  run(args: Doc, context: RunnerContext): Promise<void>;
}

const READS_EVENTS = "it reads the command events the driver sent, which this runner does not record";
const READS_POOL = "it reads the driver's connection pool events, which this runner does not record";
const READS_TOPOLOGY = "it reads the driver's topology events, which this runner does not record";
const THREADS = "this runner has no threads";

/** Special operations this runner cannot do, each with the reason its tests are skipped. */
export const UNSUPPORTED_RUNNER_OPERATIONS: Record<string, string> = {
  assertSameLsidOnLastTwoCommands: READS_EVENTS,
  assertDifferentLsidOnLastTwoCommands: READS_EVENTS,
  assertEventCount: READS_EVENTS,
  waitForEvent: READS_EVENTS,
  assertNumberConnectionsCheckedOut: READS_POOL,
  recordTopologyDescription: READS_TOPOLOGY,
  assertTopologyType: READS_TOPOLOGY,
  waitForPrimaryChange: READS_TOPOLOGY,
  runOnThread: THREADS,
  waitForThread: THREADS,
  loop: "it loops until told to stop from outside, which this runner cannot do",
};

async function setFailPoint(client: MongoClient, failPoint: unknown, context: RunnerContext): Promise<void> {
  const command = failPoint as Doc;
  await client.db("admin").command(command);
  context.failPointSet(String(command.configureFailPoint));
}

/** The driver's state of a session's transaction (not in its typings), as the format names the states. */
function transactionState(session: ClientSession): string {
  const state = (session as unknown as { transaction?: { state?: string } }).transaction?.state;
  const names: Record<string, string> = {
    NO_TRANSACTION: "none",
    STARTING_TRANSACTION: "starting",
    TRANSACTION_IN_PROGRESS: "in_progress",
    TRANSACTION_COMMITTED: "committed",
    TRANSACTION_COMMITTED_EMPTY: "committed",
    TRANSACTION_ABORTED: "aborted",
  };
  if (state === undefined || !(state in names)) throw new TestSkipped(`cannot read the session's transaction state`);
  return names[state];
}

function isDirty(session: ClientSession): boolean {
  try {
    return session.serverSession.isDirty;
  } catch {
    throw new TestSkipped("cannot read whether the session is dirty: it has no server session");
  }
}

async function collectionExists(context: RunnerContext, args: Doc): Promise<boolean> {
  const list = await context.internal
    .db(String(args.databaseName))
    .listCollections({ name: String(args.collectionName) }, { nameOnly: true })
    .toArray();
  return list.length > 0;
}

async function indexNames(context: RunnerContext, args: Doc): Promise<string[]> {
  try {
    const indexes = await context.internal
      .db(String(args.databaseName))
      .collection(String(args.collectionName))
      .listIndexes()
      .toArray();
    return indexes.map((index) => String(index.name));
  } catch (err) {
    if ((err as { code?: number }).code === 26) return [];
    throw err;
  }
}

const COLLECTION_ARGS = ["databaseName", "collectionName"];
const INDEX_ARGS = [...COLLECTION_ARGS, "indexName"];

function session(args: Doc, context: RunnerContext): ClientSession {
  return context.entities.get(String(args.session), "session").session;
}

export const RUNNER_OPERATIONS: Record<string, RunnerOperation> = {
  failPoint: {
    required: ["client", "failPoint"],
    run: (args, context) =>
      setFailPoint(context.entities.get(String(args.client), "client").client, args.failPoint, context),
  },
  // One server here, so the session's server is the client's: the fail point is set through the session's client.
  targetedFailPoint: {
    required: ["session", "failPoint"],
    run: (args, context) =>
      setFailPoint(context.entities.get(String(args.session), "session").client, args.failPoint, context),
  },
  assertSessionTransactionState: {
    required: ["session", "state"],
    run: async (args, context) => {
      const state = transactionState(session(args, context));
      if (state !== args.state)
        throw new TestFailed(`the session's transaction is ${state}, expected ${String(args.state)}`);
    },
  },
  assertSessionPinned: {
    required: ["session"],
    run: async (args, context) => {
      if (!session(args, context).isPinned) throw new TestFailed("the session is not pinned, expected pinned");
    },
  },
  assertSessionUnpinned: {
    required: ["session"],
    run: async (args, context) => {
      if (session(args, context).isPinned) throw new TestFailed("the session is pinned, expected unpinned");
    },
  },
  assertSessionDirty: {
    required: ["session"],
    run: async (args, context) => {
      if (!isDirty(session(args, context))) throw new TestFailed("the session is not dirty, expected dirty");
    },
  },
  assertSessionNotDirty: {
    required: ["session"],
    run: async (args, context) => {
      if (isDirty(session(args, context))) throw new TestFailed("the session is dirty, expected not dirty");
    },
  },
  assertCollectionExists: {
    required: COLLECTION_ARGS,
    run: async (args, context) => {
      if (!(await collectionExists(context, args))) {
        throw new TestFailed(
          `the collection ${String(args.databaseName)}.${String(args.collectionName)} does not exist`,
        );
      }
    },
  },
  assertCollectionNotExists: {
    required: COLLECTION_ARGS,
    run: async (args, context) => {
      if (await collectionExists(context, args)) {
        throw new TestFailed(`the collection ${String(args.databaseName)}.${String(args.collectionName)} exists`);
      }
    },
  },
  assertIndexExists: {
    required: INDEX_ARGS,
    run: async (args, context) => {
      const names = await indexNames(context, args);
      if (!names.includes(String(args.indexName))) {
        throw new TestFailed(`no index ${String(args.indexName)} (the indexes are ${describe(names)})`);
      }
    },
  },
  assertIndexNotExists: {
    required: INDEX_ARGS,
    run: async (args, context) => {
      if ((await indexNames(context, args)).includes(String(args.indexName))) {
        throw new TestFailed(`the index ${String(args.indexName)} exists`);
      }
    },
  },
  createEntities: {
    required: ["entities"],
    run: async (args, context) => {
      for (const description of args.entities as EntityDescription[]) await context.entities.create(description);
    },
  },
  wait: {
    required: ["ms"],
    run: (args) => new Promise((resolve) => setTimeout(resolve, Number(args.ms))),
  },
};

/** Why this runner cannot run the special operation, or undefined. */
export function unsupportedRunnerOperation(name: string, args: Doc | undefined): string | undefined {
  if (name in UNSUPPORTED_RUNNER_OPERATIONS) return `${name}: ${UNSUPPORTED_RUNNER_OPERATIONS[name]}`;
  const operation = Object.prototype.hasOwnProperty.call(RUNNER_OPERATIONS, name) ? RUNNER_OPERATIONS[name] : undefined;
  if (!operation) return `the testRunner operation ${name} is not supported by this runner`;
  const given = Object.keys(args ?? {});
  const unknown = given.filter((key) => !operation.required.includes(key) && !(operation.optional ?? []).includes(key));
  if (unknown.length > 0) return `the argument(s) ${unknown.join(", ")} of ${name} are not supported by this runner`;
  const missing = operation.required.filter((key) => !given.includes(key));
  if (missing.length > 0) return `the test file is malformed: ${name} lacks ${missing.join(", ")}`;
  return undefined;
}
