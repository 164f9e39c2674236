// The embedded FerretDB as a replica set of one (tools/ferretdb/patches/replset.patch, _added/.../embedded_replset*.go),
// against the patched program itself, no mocks: a driver finds a primary; a transaction reads its own writes and no
// uncommitted write of another, and its writes become visible all at once at commit, or never (abort, its time limit,
// its client's dropped connection, a killed program); two transactions never both write; a retryable write sent again
// is applied once; transactions and single-document writes of other clients never deadlock.
import { spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { Long, MongoClient, MongoServerError, type Collection } from "mongodb";
import { startFerretDb } from "../../src/db/ferretdb";
import type { EmbeddedDatabase } from "../../src/db/embedded";

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

interface Doc {
  _id: number | string;
  n?: number;
}

describe("the embedded FerretDB as a replica set of one", () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "ferretdb-replset-"));
  let server: EmbeddedDatabase;
  let client: MongoClient;
  let other: MongoClient;
  let coll: Collection<Doc>;
  beforeAll(async () => {
    server = await startFerretDb(dir, () => undefined, { testCommands: true });
    client = await new MongoClient(server.uri, { serverSelectionTimeoutMS: 10_000 }).connect();
    other = await new MongoClient(server.uri, { serverSelectionTimeoutMS: 10_000 }).connect();
  }, 300_000);
  beforeEach(async () => {
    coll = client.db("replset").collection<Doc>(`c${Math.random().toString(36).slice(2, 8)}`);
    await coll.insertOne({ _id: "seed" });
  });
  afterAll(async () => {
    await client?.close();
    await other?.close();
    await server?.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  const ids = async (c: Collection<Doc> = coll) => (await c.find({}, { sort: { _id: 1 } }).toArray()).map((d) => d._id);
  const otherView = () => other.db("replset").collection<Doc>(coll.collectionName);

  it("when a driver connects to the URI it prints, then it finds the primary of a replica set, with transactions and retryable writes on", async () => {
    const hello = await client.db("admin").command({ hello: 1 });
    // The Unix socket it listens on, as the URI names it (escaped) and hello names it (its path).
    const address = decodeURIComponent(new URL(server.uri).host);

    expect(hello).toMatchObject({
      setName: "rs0",
      isWritablePrimary: true,
      secondary: false,
      hosts: [address],
      primary: address,
      me: address,
      logicalSessionTimeoutMinutes: 30,
    });
    // What the driver made of it (its topology is not in its public types).
    const { topology } = client as unknown as { topology?: { description: { type: string } } };
    expect(topology?.description.type).toBe("ReplicaSetWithPrimary");
  });

  it("when a transaction writes, then it reads its own writes, others see none of them before the commit and all of them after", async () => {
    const session = client.startSession();
    try {
      session.startTransaction();
      await coll.insertMany([{ _id: 1 }, { _id: 2 }], { session });
      await coll.updateOne({ _id: "seed" }, { $set: { n: 1 } }, { session });

      expect(await coll.countDocuments({}, { session })).toBe(3);
      expect(await ids(otherView())).toEqual(["seed"]);
      expect(await otherView().findOne({ _id: "seed" })).toEqual({ _id: "seed" });

      await session.commitTransaction();
    } finally {
      await session.endSession();
    }
    expect(await ids(otherView())).toEqual([1, 2, "seed"]);
    expect(await otherView().findOne({ _id: "seed" })).toEqual({ _id: "seed", n: 1 });
  });

  it("when a transaction has read, then a write committed by another client afterwards stays out of its reads (one snapshot)", async () => {
    const session = client.startSession();
    try {
      session.startTransaction();
      expect(await coll.find({}, { session }).toArray()).toEqual([{ _id: "seed" }]);
      await otherView().insertOne({ _id: 7 });

      expect(await coll.find({}, { session }).toArray()).toEqual([{ _id: "seed" }]);
      await session.commitTransaction();
    } finally {
      await session.endSession();
    }
    expect(await ids()).toEqual([7, "seed"]);
  });

  it("when a transaction is aborted, then nothing of it is ever visible", async () => {
    const session = client.startSession();
    try {
      session.startTransaction();
      await coll.insertOne({ _id: 1 }, { session });
      await coll.deleteOne({ _id: "seed" }, { session });
      await session.abortTransaction();
    } finally {
      await session.endSession();
    }
    expect(await ids()).toEqual(["seed"]);
  });

  it("when a transaction of another client waits for one that stays idle for over a second, then it waits its turn and commits after it", async () => {
    const first = client.startSession();
    const second = other.startSession();
    try {
      first.startTransaction();
      second.startTransaction();
      await coll.insertOne({ _id: 1 }, { session: first });
      let waited = false;
      const waiting = otherView()
        .insertOne({ _id: 2 }, { session: second })
        .then(() => (waited = true));

      // The first stays idle longer than the second used to wait (a fixed second) before it failed.
      await sleep(1500);
      expect(waited).toBe(false);
      await first.commitTransaction();
      await waiting;
      await second.commitTransaction();
    } finally {
      await first.endSession();
      await second.endSession();
    }
    expect(await ids()).toEqual([1, 2, "seed"]);
  });

  it("when maxTransactionLockRequestTimeoutMillis is set and the gate stays taken past it, then the waiting transaction gets WriteConflict (TransientTransactionError) and cannot commit", async () => {
    const admin = client.db("admin");
    const was = await admin.command({ setParameter: 1, maxTransactionLockRequestTimeoutMillis: 300 });
    const first = client.startSession();
    const second = client.startSession();
    try {
      first.startTransaction();
      second.startTransaction();
      await coll.insertOne({ _id: 1 }, { session: first });

      const refused = await coll.insertOne({ _id: 2 }, { session: second }).catch((err: unknown) => err);

      expect(refused).toBeInstanceOf(MongoServerError);
      expect(refused).toMatchObject({ codeName: "WriteConflict", code: 112 });
      expect((refused as MongoServerError).hasErrorLabel("TransientTransactionError")).toBe(true);
      await first.commitTransaction();
      await expect(second.commitTransaction()).rejects.toMatchObject({ codeName: "NoSuchTransaction" });
    } finally {
      await admin.command({ setParameter: 1, maxTransactionLockRequestTimeoutMillis: was.was });
      await first.endSession();
      await second.endSession();
    }
    expect(was.was).toBe(-1);
    expect(await ids()).toEqual([1, "seed"]);
  });

  it("when a waiting transaction's command carries maxTimeMS, then it waits at most that long, then WriteConflict", async () => {
    const first = client.startSession();
    const second = client.startSession();
    try {
      first.startTransaction();
      second.startTransaction();
      await coll.insertOne({ _id: 1 }, { session: first });

      const refused = await coll
        .updateOne({ _id: "seed" }, { $set: { n: 1 } }, { session: second, maxTimeMS: 300 })
        .catch((err: unknown) => err);

      expect(refused).toMatchObject({ codeName: "WriteConflict", code: 112 });
      await first.commitTransaction();
    } finally {
      await first.endSession();
      await second.endSession();
    }
    expect(await coll.findOne({ _id: "seed" })).toEqual({ _id: "seed" });
  });

  it("when 40 withTransaction callbacks increment one document and log each step, then all commit: 40 increments, 40 distinct log entries", async () => {
    await coll.insertOne({ _id: "counter", n: 0 });
    const log = client.db("replset").collection<Doc>(`${coll.collectionName}_log`);

    await Promise.all(
      Array.from({ length: 40 }, async () => {
        const session = client.startSession();
        try {
          await session.withTransaction(async () => {
            const doc = await coll.findOneAndUpdate(
              { _id: "counter" },
              { $inc: { n: 1 } },
              { session, returnDocument: "after" },
            );
            await log.insertOne({ _id: `step-${doc!.n}` }, { session });
          });
        } finally {
          await session.endSession();
        }
      }),
    );

    expect(await coll.findOne({ _id: "counter" })).toEqual({ _id: "counter", n: 40 });
    expect(await log.countDocuments()).toBe(40);
  });

  it("when transactions and single-document updates of other clients change the same documents at once, then none deadlocks and no increment is lost", async () => {
    await coll.insertMany([
      { _id: "a", n: 0 },
      { _id: "b", n: 0 },
    ]);

    await Promise.all([
      ...Array.from({ length: 15 }, async () => {
        const session = client.startSession();
        try {
          await session.withTransaction(async () => {
            await coll.updateOne({ _id: "a" }, { $inc: { n: 1 } }, { session });
            await coll.updateOne({ _id: "b" }, { $inc: { n: 1 } }, { session });
          });
        } finally {
          await session.endSession();
        }
      }),
      ...Array.from({ length: 15 }, () => otherView().updateOne({ _id: "a" }, { $inc: { n: 10 } })),
      ...Array.from({ length: 15 }, () => otherView().findOneAndUpdate({ _id: "b" }, { $inc: { n: 100 } })),
    ]);

    expect(await coll.find({ _id: { $in: ["a", "b"] } }, { sort: { _id: 1 } }).toArray()).toEqual([
      { _id: "a", n: 15 + 150 },
      { _id: "b", n: 15 + 1500 },
    ]);
  });

  it("when a write is sent again with the same lsid and txnNumber, then it is applied once and answered as the first time", async () => {
    // A client of its own: the session's numbers are this test's.
    const own = await new MongoClient(server.uri, { serverSelectionTimeoutMS: 10_000 }).connect();
    const session = own.startSession();
    try {
      const command = {
        findAndModify: coll.collectionName,
        query: { _id: "seed" },
        update: { $inc: { n: 1 } },
        new: true,
        txnNumber: Long.fromNumber(1),
      };
      const first = await own.db("replset").command(command, { session });
      const again = await own.db("replset").command(command, { session });

      expect(first.value).toEqual({ _id: "seed", n: 1 });
      expect(again.value).toEqual(first.value);
    } finally {
      await session.endSession();
      await own.close();
    }
    expect(await coll.findOne({ _id: "seed" })).toEqual({ _id: "seed", n: 1 });
  });

  it("when a transaction outlives transactionLifetimeLimitSeconds, then it is aborted: nothing of it stays, and others write again", async () => {
    const admin = client.db("admin");
    const was = await admin.command({ setParameter: 1, transactionLifetimeLimitSeconds: 1 });
    const session = client.startSession();
    try {
      session.startTransaction();
      await coll.insertOne({ _id: 1 }, { session });
      await sleep(1_800);

      await expect(coll.insertOne({ _id: 2 }, { session })).rejects.toMatchObject({ codeName: "NoSuchTransaction" });
      await session.abortTransaction().catch(() => undefined);
    } finally {
      await session.endSession();
      await admin.command({ setParameter: 1, transactionLifetimeLimitSeconds: was.was });
    }
    await otherView().insertOne({ _id: 3 });
    expect(await ids()).toEqual([3, "seed"]);
  });

  it("when the client of an open transaction drops its connection, then the transaction is aborted and others write again", async () => {
    // A client in a process of its own, killed after its write: its connection drops, no endSessions is sent.
    const script = `
      const { MongoClient } = require(${JSON.stringify(require.resolve("mongodb"))});
      (async () => {
        const client = await new MongoClient(${JSON.stringify(server.uri)}).connect();
        const session = client.startSession();
        session.startTransaction();
        await client.db("replset").collection(${JSON.stringify(coll.collectionName)}).insertOne({ _id: 1 }, { session });
        process.stdout.write("written\\n");
        setInterval(() => {}, 1000);
      })();`;
    const child = spawn(process.execPath, ["-e", script], { stdio: ["ignore", "pipe", "inherit"] });
    await new Promise<void>((resolve) => child.stdout.once("data", () => resolve()));
    child.kill("SIGKILL");

    // The next write waits for the transaction's database, then goes through once the transaction is aborted.
    await otherView().insertOne({ _id: 2 });

    expect(await ids()).toEqual([2, "seed"]);
  });

  it("when the program is killed in the middle of a transaction, then after a restart nothing of it is there and what was committed is", async () => {
    const session = client.startSession();
    session.startTransaction();
    await coll.insertOne({ _id: "committed-before" });
    await coll.insertOne({ _id: 1 }, { session });
    await coll.updateOne({ _id: "seed" }, { $set: { n: 99 } }, { session });

    process.kill(server.pid!, "SIGKILL");
    await client.close(true).catch(() => undefined);
    await other.close(true).catch(() => undefined);
    server = await startFerretDb(dir, () => undefined, { testCommands: true });
    client = await new MongoClient(server.uri, { serverSelectionTimeoutMS: 10_000 }).connect();
    other = await new MongoClient(server.uri, { serverSelectionTimeoutMS: 10_000 }).connect();
    coll = client.db("replset").collection<Doc>(coll.collectionName);

    expect(await coll.find({}, { sort: { _id: 1 } }).toArray()).toEqual([{ _id: "committed-before" }, { _id: "seed" }]);
  }, 120_000);
});
