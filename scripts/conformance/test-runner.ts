// Runs the tests of unified-format files one at a time against one server, as the format's "Test Runner
// Implementation" describes: requirements, initialData, entities, operations with their expected results and errors,
// fail points switched off after each test, the outcome, and ending the server's open transactions after a test
// that started one or failed. expectEvents and expectLogMessages are not checked (they check what the driver sent),
// and are listed in the result as unchecked.
import { MongoServerError, ReadPreference, type MongoClient } from "mongodb";
import { ClientPool, EntityMap, unsupportedEntity, type EntityKind } from "./entity-map";
import { driverArguments, entityOperation, type OperationContext } from "./entity-operations";
import { checkExpectedError, describeError, unsupportedExpectedError } from "./expected-error";
import { describe, matchValue, MatchFailure, type MatchContext } from "./matcher";
import { RUNNER_OPERATIONS, unsupportedRunnerOperation, type RunnerContext } from "./runner-operations";
import { type RequirementChecker } from "./server-requirements";
import { RunStopped, TestFailed, TestSkipped, type TestResult } from "./test-outcome";
import {
  compareVersions,
  versionParts,
  type CollectionData,
  type Doc,
  type EntityDescription,
  type Operation,
  type TestCase,
  type TestFile,
} from "./unified-format";

/** The newest schema version whose files this runner reads (any 1.x up to it). */
export const SUPPORTED_SCHEMA_VERSION = "1.28";

/** Blocks of a test that check what the driver sent or logged: reported as unchecked, never judged. */
const UNCHECKED_BLOCKS = ["expectEvents", "expectLogMessages", "expectTracingMessages"];
const TEST_FIELDS = new Set([
  "description",
  "runOnRequirements",
  "skipReason",
  "operations",
  "outcome",
  ...UNCHECKED_BLOCKS,
]);
const OPERATION_FIELDS = new Set([
  "name",
  "object",
  "arguments",
  "ignoreResultAndError",
  "expectError",
  "expectResult",
  "saveResultAsEntity",
]);
const MAJORITY = { w: "majority" } as const;
/**
 * A guard, not a measure: a test still running after this long (a server that stopped answering, a lock never
 * released) fails, its clients are closed, and the run goes on. The format's tests take milliseconds each.
 */
const TEST_TIME_LIMIT_MS = 60_000;
const CLEANUP_TIME_LIMIT_MS = 10_000;
/** After this many tests in a row over the limit, the run stops (exit 2) rather than wait that long for each one. */
const TIMEOUTS_BEFORE_STOPPING = 3;

/** Whether the work finished within ms; its later failure, if any, is ignored. */
async function withinTime(work: Promise<unknown>, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const done = work.then(() => true);
  done.catch(() => undefined);
  try {
    return await Promise.race([
      done,
      new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(false), ms))),
    ]);
  } finally {
    clearTimeout(timer);
  }
}

export interface TestRunnerOptions {
  /** Kill every session on the server (killAllSessions) before the run and after a test with a transaction. */
  killSessions: boolean;
}

export class TestRunner {
  private readonly pool: ClientPool;
  private timedOutInARow = 0;

  constructor(
    private readonly internal: MongoClient,
    uri: string,
    private readonly requirements: RequirementChecker,
    private readonly options: TestRunnerOptions,
  ) {
    this.pool = new ClientPool(uri);
  }

  async start(): Promise<void> {
    await this.killSessions();
  }

  async close(): Promise<void> {
    await this.pool.closeAll();
  }

  /** Every test of the file, in order; `select` says which ones to run (the others are left out of the results). */
  async runFile(file: TestFile, select: (test: TestCase) => boolean): Promise<TestResult[]> {
    const fileSkip = await this.fileSkipReason(file);
    const results: TestResult[] = [];
    for (const test of file.tests) {
      if (!select(test)) continue;
      results.push(await this.runTest(file, test, fileSkip));
    }
    return results;
  }

  private async fileSkipReason(file: TestFile): Promise<string | undefined> {
    const version = versionParts(String(file.schemaVersion));
    const supported = versionParts(SUPPORTED_SCHEMA_VERSION);
    if (version[0] !== supported[0] || compareVersions(version, supported) > 0) {
      return `schema version ${file.schemaVersion} is not supported by this runner (it reads 1.0 to ${SUPPORTED_SCHEMA_VERSION})`;
    }
    const unmet = await this.requirements.unmet(file.runOnRequirements);
    if (unmet) return unmet;
    for (const description of file.createEntities ?? []) {
      const reason = unsupportedEntity(description);
      if (reason) return reason;
    }
    return undefined;
  }

  private async runTest(file: TestFile, test: TestCase, fileSkip: string | undefined): Promise<TestResult> {
    const result: TestResult = { description: test.description, status: "passed" };
    const unchecked = UNCHECKED_BLOCKS.filter((block) => (test as unknown as Doc)[block] !== undefined);
    if (unchecked.length > 0) result.unchecked = unchecked;
    const skip = (reason: string): TestResult => ({ ...result, status: "skipped", reason });

    if (fileSkip) return skip(fileSkip);
    if (test.skipReason) return skip(`the test file skips it: ${test.skipReason}`);
    const unknownFields = Object.keys(test).filter((key) => !TEST_FIELDS.has(key));
    if (unknownFields.length > 0)
      return skip(`the test field(s) ${unknownFields.join(", ")} are not supported by this runner`);
    const unmet = await this.requirements.unmet(test.runOnRequirements);
    if (unmet) return skip(unmet);
    const unsupported = unsupportedOperations(file, test);
    if (unsupported) return skip(unsupported);

    const run = new TestRun(this.internal, new EntityMap(this.pool));
    try {
      const finished = await withinTime(run.execute(file, test), TEST_TIME_LIMIT_MS);
      if (!finished) {
        this.timedOutInARow += 1;
        throw new TestFailed(`it did not finish within ${TEST_TIME_LIMIT_MS / 1000} s`);
      }
      this.timedOutInARow = 0;
    } catch (err) {
      if (err instanceof TestSkipped) return { ...skip(err.message) };
      if (err instanceof TestFailed) {
        result.status = "failed";
        result.reason = err.message;
        if (err.details) result.details = err.details;
      } else {
        result.status = "failed";
        result.reason = `the runner failed: ${describeError(err)}`;
        result.details = (err as Error)?.stack;
      }
    } finally {
      // A client goes back to the pool only after a test that passed and sent no unacknowledged write: a server that
      // answers a w:0 write anyway (FerretDB 1.24 does) leaves that answer to be read as the next command's.
      await withinTime(
        run.cleanUp(result.status === "passed" && !sendsUnacknowledgedWrites(file, test)),
        CLEANUP_TIME_LIMIT_MS,
      );
      if (run.usedTransaction || result.status === "failed")
        await withinTime(this.killSessions(), CLEANUP_TIME_LIMIT_MS);
    }
    if (this.timedOutInARow >= TIMEOUTS_BEFORE_STOPPING) {
      throw new RunStopped(
        `${this.timedOutInARow} tests in a row did not finish within ${TEST_TIME_LIMIT_MS / 1000} s (the last: ` +
          `"${test.description}"); the database no longer answers`,
      );
    }
    return result;
  }

  /** Ends every session open on the server, and so its transactions (errors ignored: not every server has it). */
  private async killSessions(): Promise<void> {
    if (!this.options.killSessions) return;
    await this.internal
      .db("admin")
      .command({ killAllSessions: [] })
      .catch(() => undefined);
  }
}

/** Whether the file's entities or the test's operations ask for an unacknowledged write concern (w: 0). */
function sendsUnacknowledgedWrites(file: TestFile, test: TestCase): boolean {
  const hasW0 = (value: unknown): boolean => {
    if (Array.isArray(value)) return value.some(hasW0);
    if (value === null || typeof value !== "object") return false;
    return Object.entries(value).some(([key, inner]) => (key === "w" && Number(inner) === 0) || hasW0(inner));
  };
  return hasW0(file.createEntities) || hasW0(test.operations);
}

/** Why one of the test's operations cannot be run by this runner, found before anything runs; else undefined. */
function unsupportedOperations(file: TestFile, test: TestCase): string | undefined {
  const kinds = new Map<string, EntityKind>();
  const learn = (descriptions: EntityDescription[]) => {
    for (const description of descriptions) {
      const [type] = Object.keys(description);
      kinds.set(String(description[type].id), type as EntityKind);
    }
  };
  learn(file.createEntities ?? []);
  const check = (operations: Operation[]): string | undefined => {
    for (const operation of operations) {
      const unknown = Object.keys(operation).filter((key) => !OPERATION_FIELDS.has(key));
      if (unknown.length > 0) return `the operation field(s) ${unknown.join(", ")} are not supported by this runner`;
      if (operation.expectError) {
        const reason = unsupportedExpectedError(operation.expectError);
        if (reason) return reason;
      }
      if (operation.object === "testRunner") {
        const reason = unsupportedRunnerOperation(operation.name, operation.arguments);
        if (reason) return reason;
        if (operation.name === "createEntities") {
          const entities = (operation.arguments?.entities ?? []) as EntityDescription[];
          for (const description of entities) {
            const entityReason = unsupportedEntity(description);
            if (entityReason) return entityReason;
          }
          learn(entities);
        }
        continue;
      }
      const kind = kinds.get(operation.object);
      // An entity saved by an earlier operation (a cursor, a value): checked when it runs.
      if (kind === undefined) continue;
      const found = entityOperation(kind, operation);
      if (typeof found === "string") return found;
      if (operation.saveResultAsEntity) kinds.set(operation.saveResultAsEntity, found.cursor ? "cursor" : "value");
      if (operation.name === "withTransaction") {
        const reason = check((operation.arguments?.callback ?? []) as Operation[]);
        if (reason) return reason;
      }
    }
    return undefined;
  };
  return check(test.operations);
}

/** One test's run: its entities, the fail points it set, whether it used a transaction. */
class TestRun implements MatchContext {
  usedTransaction = false;
  private readonly failPoints = new Set<string>();
  private readonly runnerContext: RunnerContext;
  private readonly operationContext: OperationContext;

  constructor(
    private readonly internal: MongoClient,
    private readonly entities: EntityMap,
  ) {
    this.runnerContext = { entities, internal, failPointSet: (name) => this.failPoints.add(name) };
    this.operationContext = {
      entities,
      runCallback: (operations) => this.runOperations(operations, "callback", true),
      usedTransaction: () => (this.usedTransaction = true),
    };
  }

  entityValue(name: string): unknown {
    const entity = this.entities.any(name);
    if (entity.kind !== "value")
      throw new TestSkipped(`the test file is malformed: ${name} is a ${entity.kind}, not a value`);
    return entity.value;
  }

  sessionLsid(name: string): unknown {
    return this.entities.get(name, "session").lsid;
  }

  async execute(file: TestFile, test: TestCase): Promise<void> {
    await this.loadInitialData(file.initialData ?? []);
    for (const description of file.createEntities ?? []) await this.entities.create(description);
    await this.runOperations(test.operations, "operation", false);
    await this.switchOffFailPoints();
    if (test.outcome) await this.checkOutcome(test.outcome);
  }

  async cleanUp(reuseClients: boolean): Promise<void> {
    await this.switchOffFailPoints().catch(() => undefined);
    await this.entities.end(reuseClients);
  }

  /** Drops each collection, creates it (with its createOptions) and inserts its documents, with majority writes. */
  private async loadInitialData(data: CollectionData[]): Promise<void> {
    for (const collection of data) {
      const db = this.internal.db(collection.databaseName);
      const where = `initialData ${collection.databaseName}.${collection.collectionName}`;
      try {
        // The encrypted-field helper collections the format also drops (enxcol_.<name>.esc/.ecoc) exist only where
        // queryable encryption made them, and every test needing it is skipped (csfle): not dropped, two round
        // trips fewer per collection.
        await db.dropCollection(collection.collectionName, { writeConcern: MAJORITY }).catch((err: unknown) => {
          if (!(err instanceof MongoServerError && err.code === 26)) throw err;
        });
        if (collection.createOptions || collection.documents.length === 0) {
          await db.createCollection(collection.collectionName, { ...collection.createOptions, writeConcern: MAJORITY });
        }
        if (collection.documents.length > 0) {
          await db.collection(collection.collectionName).insertMany(collection.documents, { writeConcern: MAJORITY });
        }
      } catch (err) {
        throw new TestFailed(`${where}: ${describeError(err)}`);
      }
    }
  }

  private async switchOffFailPoints(): Promise<void> {
    for (const name of this.failPoints) {
      await this.internal.db("admin").command({ configureFailPoint: name, mode: "off" });
      this.failPoints.delete(name);
    }
  }

  private async checkOutcome(outcome: CollectionData[]): Promise<void> {
    for (const collection of outcome) {
      const where = `outcome of ${collection.databaseName}.${collection.collectionName}`;
      let documents: Doc[];
      try {
        documents = await this.internal
          .db(collection.databaseName)
          .collection(collection.collectionName)
          .find({}, { sort: { _id: 1 }, readPreference: ReadPreference.primary, readConcern: { level: "local" } })
          .toArray();
      } catch (err) {
        throw new TestFailed(`${where}: reading it failed: ${describeError(err)}`);
      }
      const details = `expected ${describe(collection.documents, 4000)}\nactual ${describe(documents, 4000)}`;
      if (documents.length !== collection.documents.length) {
        throw new TestFailed(
          `${where}: expected ${collection.documents.length} documents, found ${documents.length}: ${describe(documents)}`,
          details,
        );
      }
      // Documents match exactly (no extra field, in any key order), numbers of any type by value.
      collection.documents.forEach((expected, i) => {
        try {
          matchValue(expected, documents[i], this, "nested");
        } catch (err) {
          if (err instanceof MatchFailure) throw new TestFailed(`${where}: document ${i + 1} ${err.message}`, details);
          throw err;
        }
      });
    }
  }

  /**
   * Runs operations in order. Inside a withTransaction callback (propagate), an operation's error still goes to the
   * driver after its expectError has been checked, as the format asks.
   */
  private async runOperations(operations: Operation[], label: string, propagate: boolean): Promise<void> {
    for (const [i, operation] of operations.entries()) {
      const where = `${label} ${i + 1} (${operation.name}${operation.object === "testRunner" ? "" : ` on ${operation.object}`})`;
      try {
        await this.runOperation(operation, propagate);
      } catch (err) {
        if (err instanceof TestFailed) throw new TestFailed(`${where}: ${err.message}`, err.details);
        throw err;
      }
    }
  }

  private async runOperation(operation: Operation, propagate: boolean): Promise<void> {
    if (operation.object === "testRunner") {
      const reason = unsupportedRunnerOperation(operation.name, operation.arguments);
      if (reason) throw new TestSkipped(reason);
      try {
        await RUNNER_OPERATIONS[operation.name].run(operation.arguments ?? {}, this.runnerContext);
      } catch (err) {
        if (err instanceof TestFailed || err instanceof TestSkipped) throw err;
        throw new TestFailed(describeError(err));
      }
      return;
    }

    const entity = this.entities.any(operation.object);
    const found = entityOperation(entity.kind, operation);
    if (typeof found === "string") throw new TestSkipped(found);
    const target =
      entity.kind === "client"
        ? entity
        : entity.kind === "database"
          ? entity.db
          : entity.kind === "collection"
            ? entity.collection
            : entity.kind === "session"
              ? entity.session
              : entity.kind === "cursor"
                ? entity.cursor
                : undefined;
    let result: unknown;
    let error: unknown;
    let failed = false;
    try {
      result = await found.run(
        target as never,
        driverArguments(operation.arguments ?? {}, this.entities),
        this.operationContext,
      );
    } catch (err) {
      if (err instanceof TestSkipped) throw err;
      // A failed assertion inside a withTransaction callback is the test's failure, not the operation's error.
      if (err instanceof TestFailed) throw err;
      error = err;
      failed = true;
    }

    if (operation.ignoreResultAndError) {
      if (failed && propagate) throw error;
      return;
    }
    if (operation.expectError) {
      if (!failed) {
        throw new TestFailed(`expected an error, it succeeded with ${describe(result)}`);
      }
      checkExpectedError(operation.expectError, error, this);
      if (propagate) throw error;
      return;
    }
    if (failed) throw new TestFailed(`unexpected error ${describeError(error)}`);
    if (operation.expectResult !== undefined) {
      try {
        matchValue(operation.expectResult, result, this, found.shape ?? "root");
      } catch (err) {
        if (err instanceof MatchFailure) {
          throw new TestFailed(
            `result ${err.message}`,
            `expected ${describe(operation.expectResult, 4000)}\nactual ${describe(result, 4000)}`,
          );
        }
        throw err;
      }
    }
    if (operation.saveResultAsEntity) {
      this.entities.add(
        operation.saveResultAsEntity,
        found.cursor ? { kind: "cursor", cursor: result as never } : { kind: "value", value: result },
      );
    }
  }
}
