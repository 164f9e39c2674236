// When 50 clients change one document at the same moment, then the embedded FerretDB (tools/ferretdb's atomic.patch)
// gives MongoDB's single-document guarantees: one conditional update matches, every `$inc` counts, concurrent upserts
// leave one document, one `findOneAndDelete` gets the document, one conditional `findOneAndUpdate` wins. Each
// scenario runs against two FerretDB processes started from the same binary, through the driver with a pool of 50
// open connections (so the 50 requests really are in FerretDB together): the patched one must pass every round, and
// the one with the switch off (FERRETDB_EMBEDDED_ATOMIC=off: FerretDB 1.24's own read-then-write) must be seen to
// fail. Its failure is a race, so it runs up to STOCK_ROUNDS rounds and stops at the first one that goes wrong;
// that it went wrong at all is asserted.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { Double, Int32, Long, MongoClient, type Collection, type Db } from "mongodb";
import { startFerretDb } from "../../src/db/ferretdb";
import type { EmbeddedDatabase } from "../../src/db/embedded";

const CLIENTS = 50;
const ATOMIC_ROUNDS = 3;
/**
 * Rounds tried until FerretDB's own path shows its race (the loop stops at the first); a loaded machine hides it for
 * longer (40 once ran out during a full run of the suite, and 150 twice since, with three more test files running
 * processes of their own), so the limit is high and costs nothing when the race shows.
 */
const STOCK_ROUNDS = 600;
const POOL_READY_TIMEOUT_MS = 30_000;
/** Documents of a one-winner race carry this much: FerretDB's own read-then-write then takes long enough for its
 * race to show within a few rounds (without it, sometimes not within 25); MongoDB's guarantee does not depend on it. */
const PAYLOAD = "x".repeat(64 * 1024);

interface Doc {
  _id: string;
  n?: number;
  v?: number;
  by?: number;
  group?: string;
  key?: string;
  tag?: string;
  state?: string;
  payload?: string;
}

/** The outcome of one round: what went wrong, or undefined. */
type Round = (coll: Collection<Doc>) => Promise<string | undefined>;

/** Runs fn for callers 0..CLIENTS-1 at once; each result or error, in caller order. */
async function together<T>(fn: (i: number) => Promise<T>): Promise<PromiseSettledResult<T>[]> {
  return Promise.allSettled(Array.from({ length: CLIENTS }, (_, i) => fn(i)));
}

function errorsOf(results: PromiseSettledResult<unknown>[]): string[] {
  return results
    .filter((r): r is PromiseRejectedResult => r.status === "rejected")
    .map((r) => String((r.reason as Error).message));
}

const scenarios: Record<string, Round> = {
  "of 50 conditional updates of one document, exactly one matches, and its change is stored": async (coll) => {
    await coll.insertOne({ _id: "doc", v: 0, payload: PAYLOAD });
    const results = await together((i) => coll.updateOne({ _id: "doc", v: 0 }, { $set: { v: 1, by: i } }));
    const errors = errorsOf(results);
    if (errors.length) return `errors: ${errors[0]}`;
    const winners = results.flatMap((r, i) => (r.status === "fulfilled" && r.value.modifiedCount === 1 ? [i] : []));
    const stored = await coll.findOne({ _id: "doc" });
    if (winners.length !== 1) return `${winners.length} of ${CLIENTS} matched`;
    if (stored?.by !== winners[0]) return `stored by ${String(stored?.by)}, matched by ${winners[0]}`;
    return undefined;
  },

  "50 concurrent $inc of 1 add 50": async (coll) => {
    await coll.insertOne({ _id: "counter", n: 0 });
    const errors = errorsOf(await together(() => coll.updateOne({ _id: "counter" }, { $inc: { n: 1 } })));
    if (errors.length) return `errors: ${errors[0]}`;
    const stored = await coll.findOne({ _id: "counter" });
    return stored?.n === CLIENTS ? undefined : `n is ${String(stored?.n)}`;
  },

  "50 concurrent $inc of one document, half of them naming it by _id and half by another field, add 50": async (
    coll,
  ) => {
    await coll.insertOne({ _id: "counter", key: "k", n: 0 });
    const errors = errorsOf(
      await together((i) => coll.updateOne(i % 2 ? { _id: "counter" } : { key: "k" }, { $inc: { n: 1 } })),
    );
    if (errors.length) return `errors: ${errors[0]}`;
    const stored = await coll.findOne({ _id: "counter" });
    return stored?.n === CLIENTS ? undefined : `n is ${String(stored?.n)}`;
  },

  "50 concurrent $inc of a document with a numeric _id, named as int32, int64 and double, add 50": async (coll) => {
    const numeric = coll as unknown as Collection<{ _id: number; n: number }>;
    await numeric.insertOne({ _id: 7, n: 0 });
    const ids = [new Int32(7), new Long(7), new Double(7)] as unknown as number[];
    const errors = errorsOf(await together((i) => numeric.updateOne({ _id: ids[i % 3] }, { $inc: { n: 1 } })));
    if (errors.length) return `errors: ${errors[0]}`;
    const stored = await numeric.findOne({ _id: 7 });
    return stored?.n === CLIENTS ? undefined : `n is ${String(stored?.n)}`;
  },

  "50 concurrent $inc of several documents matched by a filter (multi) add 50 to each": async (coll) => {
    await coll.insertMany(["a", "b", "c"].map((_id) => ({ _id, group: "g", n: 0 })));
    const errors = errorsOf(await together(() => coll.updateMany({ group: "g" }, { $inc: { n: 1 } })));
    if (errors.length) return `errors: ${errors[0]}`;
    const ns = (await coll.find({}, { sort: { _id: 1 } }).toArray()).map((d) => d.n);
    return ns.every((n) => n === CLIENTS) ? undefined : `n are ${ns.join(", ")}`;
  },

  "50 concurrent upserts with $inc on a new _id leave one document with 50": async (coll) => {
    const results = await together(() => coll.updateOne({ _id: "new" }, { $inc: { n: 1 } }, { upsert: true }));
    const errors = errorsOf(results);
    if (errors.length) return `${errors.length} errors, e.g. ${errors[0]}`;
    const docs = await coll.find({}).toArray();
    if (docs.length !== 1 || docs[0].n !== CLIENTS) return `documents: ${JSON.stringify(docs)}`;
    return undefined;
  },

  "50 concurrent upserts with $inc on a new value of a field leave one document with 50": async (coll) => {
    const results = await together(() => coll.updateOne({ key: "k" }, { $inc: { n: 1 } }, { upsert: true }));
    const errors = errorsOf(results);
    if (errors.length) return `${errors.length} errors, e.g. ${errors[0]}`;
    const docs = await coll.find({}).toArray();
    if (docs.length !== 1 || docs[0].n !== CLIENTS) return `documents: ${JSON.stringify(docs.map((d) => d.n))}`;
    return undefined;
  },

  "of 50 concurrent findOneAndDelete, exactly one gets the document": async (coll) => {
    await coll.insertOne({ _id: "doc", tag: "x", payload: PAYLOAD });
    const results = await together(() => coll.findOneAndDelete({ tag: "x" }));
    const errors = errorsOf(results);
    if (errors.length) return `errors: ${errors[0]}`;
    const got = results.filter((r) => r.status === "fulfilled" && r.value !== null).length;
    if (got !== 1) return `${got} of ${CLIENTS} got the document`;
    return (await coll.countDocuments({})) === 0 ? undefined : "the document is still there";
  },

  "of 50 concurrent conditional findOneAndUpdate, exactly one wins, and its change is stored": async (coll) => {
    await coll.insertOne({ _id: "doc", state: "open", payload: PAYLOAD });
    const results = await together((i) =>
      coll.findOneAndUpdate(
        { _id: "doc", state: "open" },
        { $set: { state: "taken", by: i } },
        { returnDocument: "after" },
      ),
    );
    const errors = errorsOf(results);
    if (errors.length) return `errors: ${errors[0]}`;
    const winners = results.flatMap((r, i) => (r.status === "fulfilled" && r.value !== null ? [i] : []));
    const stored = await coll.findOne({ _id: "doc" });
    if (winners.length !== 1) return `${winners.length} of ${CLIENTS} won`;
    if (stored?.by !== winners[0]) return `stored by ${String(stored?.by)}, won by ${winners[0]}`;
    return undefined;
  },
};

describe("FerretDB's single-document atomicity (atomic.patch) against FerretDB's own", () => {
  const dirs: string[] = [];
  let atomic: EmbeddedDatabase;
  let stock: EmbeddedDatabase;
  let atomicClient: MongoClient;
  let stockClient: MongoClient;
  let collections = 0;

  /** A client whose pool holds CLIENTS open connections before any test runs. */
  async function connect(uri: string): Promise<MongoClient> {
    const client = new MongoClient(uri, { minPoolSize: CLIENTS, maxPoolSize: CLIENTS, maxConnecting: CLIENTS });
    let ready = 0;
    const full = new Promise<void>((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`the pool opened ${ready} of ${CLIENTS} connections`)),
        POOL_READY_TIMEOUT_MS,
      );
      client.on("connectionReady", () => {
        if (++ready === CLIENTS) {
          clearTimeout(timer);
          resolve();
        }
      });
    });
    await client.connect();
    await full;
    return client;
  }

  beforeAll(async () => {
    for (let i = 0; i < 2; i++) dirs.push(fs.mkdtempSync(path.join(os.tmpdir(), "project-service-atomic-")));
    [atomic, stock] = await Promise.all([
      startFerretDb(dirs[0], () => undefined),
      startFerretDb(dirs[1], () => undefined, { atomic: false }),
    ]);
    [atomicClient, stockClient] = await Promise.all([connect(atomic.uri), connect(stock.uri)]);
  }, 300_000);
  afterAll(async () => {
    await Promise.all([atomicClient?.close(), stockClient?.close()]);
    await Promise.all([atomic?.stop(), stock?.stop()]);
    for (const dir of dirs) fs.rmSync(dir, { recursive: true, force: true });
  });

  /** A collection of its own for each round. */
  function fresh(db: Db): Collection<Doc> {
    collections += 1;
    return db.collection<Doc>(`round_${collections}`);
  }

  for (const [name, round] of Object.entries(scenarios)) {
    it(`when the patch is on, then ${name}, every round`, async () => {
      const failures: string[] = [];
      for (let i = 0; i < ATOMIC_ROUNDS; i++) {
        const failure = await round(fresh(atomicClient.db("atomic")));
        if (failure) failures.push(`round ${i + 1}: ${failure}`);
      }
      expect(failures).toEqual([]);
    });

    it(`when the patch is switched off, then it is not true that ${name}`, async () => {
      let failure: string | undefined;
      let rounds = 0;
      while (!failure && rounds < STOCK_ROUNDS) {
        rounds += 1;
        failure = await round(fresh(stockClient.db("stock")));
      }
      expect(failure).toEqual(expect.any(String));
    });
  }

  it("when upserts race an insert of the same _id, then the unique _id decides and every upsert still counts", async () => {
    for (let round = 0; round < ATOMIC_ROUNDS; round++) {
      const coll = fresh(atomicClient.db("atomic"));
      const [inserted, ...upserts] = await Promise.allSettled([
        coll.insertOne({ _id: "race", n: 100 }),
        ...Array.from({ length: CLIENTS - 1 }, () =>
          coll.updateOne({ _id: "race" }, { $inc: { n: 1 } }, { upsert: true }),
        ),
      ]);
      expect(errorsOf(upserts)).toEqual([]);
      if (inserted.status === "rejected") expect((inserted.reason as { code?: number }).code).toBe(11000);
      const stored = await coll.findOne({ _id: "race" });
      expect(stored?.n).toBe((inserted.status === "fulfilled" ? 100 : 0) + CLIENTS - 1);
    }
  });

  it("when a collection is renamed while $inc runs on it, then every acknowledged increment is in the renamed one", async () => {
    for (let round = 0; round < ATOMIC_ROUNDS; round++) {
      const db = atomicClient.db("atomic");
      const coll = fresh(db);
      const target = `${coll.collectionName}_renamed`;
      await coll.insertOne({ _id: "counter", n: 0, payload: PAYLOAD });
      const half = CLIENTS / 2;
      const incs = Array.from({ length: CLIENTS }, (_, i) =>
        i === half
          ? coll.rename(target).then(() => undefined)
          : coll.updateOne({ _id: "counter" }, { $inc: { n: 1 } }).then((r) => r.modifiedCount),
      );
      const acknowledged = (await Promise.all(incs)).reduce<number>((sum, n) => sum + (n ?? 0), 0);
      const stored = await db.collection<Doc>(target).findOne({ _id: "counter" });
      expect(stored?.n).toBe(acknowledged);
    }
  });

  it("when buildInfo is asked, then the patched program says embeddedAtomicWrites: true and FerretDB's own does not", async () => {
    const [withPatch, without] = await Promise.all([
      atomicClient.db("admin").command({ buildInfo: 1 }),
      stockClient.db("admin").command({ buildInfo: 1 }),
    ]);
    expect(withPatch.embeddedAtomicWrites).toBe(true);
    expect(without).not.toHaveProperty("embeddedAtomicWrites");
    // FerretDB lists its aggregation stages in a map's order, which changes from call to call.
    const comparable = (reply: Record<string, unknown>) => {
      const { embeddedAtomicWrites: _marker, ferretdbFeatures, ...rest } = reply;
      const stages = (ferretdbFeatures as { aggregationStages: string[] }).aggregationStages;
      return { ...rest, ferretdbFeatures: { aggregationStages: [...stages].sort() } };
    };
    expect(comparable(withPatch)).toEqual(comparable(without));
  });
});
