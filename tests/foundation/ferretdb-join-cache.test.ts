// The embedded FerretDB keeps what a join looked up (tools/ferretdb/_added/internal/handler/embedded_readpath_cache.go,
// readpath's concern): the documents of `from` each local value matched, as BSON, between commands, until any command
// that may write. Checked on the program against the same binary with FERRETDB_EMBEDDED_JOIN_CACHE=off: after each of
// a random run of writes (every kind of write the service and the CRUD specification use, to `from`, to the joined
// collection and elsewhere; in and out of transactions, committed and aborted), the join answers the same on both, and
// what a find of `from` by each value gives. A join twice with no write between reads `from` once (SQLite's log of
// statements); inside a transaction a join sees the transaction's own writes, and others do not until it commits.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { mongo } from "mongoose";
import { startFerretDb } from "../../src/db/ferretdb";
import type { EmbeddedDatabase } from "../../src/db/embedded";
import { seededRandom as rng } from "../helpers/random";

const { Int32 } = mongo;
type Doc = mongo.Document;

function isRead(sql: string, table: string): boolean {
  return sql.startsWith("SELECT ") && !sql.startsWith("SELECT EXISTS") && sql.includes(` FROM "${table}`);
}

/** The service's page of projects with their teachers, in MongoDB's words: a page, then its teachers looked up. */
const PAGE = [
  { $match: {} },
  { $sort: { n: 1 } },
  { $limit: 20 },
  { $project: { n: 1, r: 1 } },
  {
    $lookup: {
      from: "t",
      localField: "r",
      foreignField: "k",
      pipeline: [{ $project: { _id: 0, k: 1, name: 1 } }],
      as: "m",
    },
  },
];
/** The service's project by id with its teacher (by a string _id, as the service keys its documents). */
const BY_ID = (id: number) => [
  { $match: { _id: `p${id}` } },
  { $limit: 1 },
  { $lookup: { from: "t", localField: "r", foreignField: "k", as: "m" } },
];

describe("the embedded FerretDB's join keeps what it looked up until a write", () => {
  const dirs: string[] = [];
  let sqlLog: string;
  const servers: EmbeddedDatabase[] = [];
  const clients: mongo.MongoClient[] = [];

  beforeAll(async () => {
    for (let i = 0; i < 2; i++) dirs.push(fs.mkdtempSync(path.join(os.tmpdir(), "project-service-join-cache-")));
    sqlLog = path.join(dirs[0], "sql.log");
    servers.push(
      ...(await Promise.all([
        startFerretDb(dirs[0], () => undefined, { sqlLog }),
        startFerretDb(dirs[1], () => undefined, { joinCache: false }),
      ])),
    );
    for (const server of servers) clients.push(await mongo.MongoClient.connect(server.uri, { promoteValues: false }));
  });
  afterAll(async () => {
    await Promise.all(clients.map((c) => c.close()));
    await Promise.all(servers.map((s) => s.stop()));
    for (const dir of dirs) fs.rmSync(dir, { recursive: true, force: true });
  });

  /** Fresh collections t (teachers: unique k) and p (projects: n, r) in database `name` of every server. */
  async function seed(name: string): Promise<mongo.Db[]> {
    const dbs = clients.map((c) => c.db(name));
    for (const db of dbs) {
      await db.collection("t").createIndex({ k: 1 }, { unique: true });
      await db.collection("p").createIndex({ n: 1 }, { unique: true });
      await db
        .collection<Doc>("t")
        .insertMany(
          Array.from({ length: 8 }, (_, i) => ({ _id: new Int32(i + 1), k: new Int32(i + 1), name: `T${i}` }) as Doc),
        );
      await db.collection<Doc>("p").insertMany(
        Array.from(
          { length: 30 },
          (_, i) =>
            ({
              _id: `p${i + 1}`,
              n: new Int32(i),
              r: new Int32(1 + (i % 10)),
            }) as Doc,
        ),
      );
    }
    return dbs;
  }

  /** What the page must answer: each document's matches as a find of `from` by its value gives them. */
  async function expectedPage(db: mongo.Db): Promise<Doc[]> {
    const page = await db
      .collection("p")
      .find({}, { projection: { n: 1, r: 1 } })
      .sort({ n: 1 })
      .limit(20)
      .toArray();
    const out: Doc[] = [];
    for (const doc of page) {
      const m = await db
        .collection("t")
        .find({ k: { $eq: doc.r } }, { projection: { _id: 0, k: 1, name: 1 } })
        .toArray();
      out.push({ ...doc, m });
    }
    return out;
  }

  const readsOfT = async (run: () => Promise<unknown>): Promise<number> => {
    const before = fs.readFileSync(sqlLog, "utf8").length;
    await run();
    const lines = fs.readFileSync(sqlLog, "utf8").slice(before).split("\n").filter(Boolean);
    return lines.map((l) => JSON.parse(l) as { sql: string }).filter((s) => isRead(s.sql, "t_")).length;
  };

  it("when a join runs twice with no write between, then the second reads nothing of `from` and answers the same; after any write, it reads again", async () => {
    const [db] = await seed("again");
    const page = () => db.collection("p").aggregate(PAGE).toArray();
    const byId = () => db.collection("p").aggregate(BY_ID(3)).toArray();
    let first: Doc[] = [];
    expect(await readsOfT(async () => (first = await page()))).toBe(1);
    let second: Doc[] = [];
    expect(await readsOfT(async () => (second = await page()))).toBe(0);
    expect(second).toEqual(first);
    expect(first).toEqual(await expectedPage(db));
    // The project by id finds its teacher among what the page kept only with the same pipeline: read once, then kept.
    expect(await readsOfT(byId)).toBe(1);
    expect(await readsOfT(byId)).toBe(0);
    // A write anywhere (here another collection) drops everything kept.
    await db.collection("elsewhere").insertOne({ x: 1 });
    expect(await readsOfT(page)).toBe(1);
    expect(await readsOfT(byId)).toBe(1);
    // An aggregation that writes ($out) is a write too.
    await db
      .collection("p")
      .aggregate([{ $match: { n: { $lt: 2 } } }, { $out: "copy" }])
      .toArray();
    expect(await readsOfT(page)).toBe(1);
  });

  it("when writes of every kind come between joins, then each join answers what a find of `from` gives, as without the cache", async () => {
    const dbs = await seed("writes");
    const r = rng(20261128);
    const pick = (n: number) => Math.floor(r() * n);
    type Step = (db: mongo.Db, i: number) => Promise<unknown>;
    const steps: [string, Step][] = [
      [
        "insertOne",
        (db, i) =>
          db.collection<Doc>("t").insertOne({ _id: new Int32(100 + i), k: new Int32(1000 + i), name: `N${i}` } as Doc),
      ],
      [
        "upsert",
        (db, i) =>
          db.collection("t").updateOne({ k: new Int32(1 + (i % 11)) }, { $set: { name: `S${i}` } }, { upsert: true }),
      ],
      [
        "updateOne",
        (db, i) => db.collection("t").updateOne({ k: new Int32(1 + (i % 8)) }, { $set: { name: `U${i}` } }),
      ],
      ["updateMany", (db, i) => db.collection("t").updateMany({}, { $set: { name: `M${i}` } })],
      [
        "replaceOne",
        (db, i) =>
          db.collection("t").replaceOne({ k: new Int32(1 + (i % 8)) }, { k: new Int32(1 + (i % 8)), name: `R${i}` }),
      ],
      ["deleteOne", (db, i) => db.collection("t").deleteOne({ k: new Int32(1 + (i % 10)) })],
      [
        "findOneAndUpdate",
        (db, i) => db.collection("t").findOneAndUpdate({ k: new Int32(1 + (i % 8)) }, { $set: { name: `F${i}` } }),
      ],
      ["findOneAndDelete", (db, i) => db.collection("t").findOneAndDelete({ k: new Int32(1 + (i % 10)) })],
      [
        "bulkWrite",
        (db, i) =>
          db
            .collection("t")
            .bulkWrite([
              { updateOne: { filter: { k: new Int32(1 + (i % 8)) }, update: { $set: { name: `B${i}` } } } },
              { deleteOne: { filter: { k: new Int32(2 + (i % 8)) } } },
            ]),
      ],
      [
        "a project's teacher changed",
        (db, i) =>
          db.collection("p").updateOne({ n: new Int32(i % 20) }, { $set: { r: new Int32(1 + ((i * 7) % 11)) } }),
      ],
      [
        "$merge into from",
        async (db, i) => {
          await db.collection("staging").deleteMany({});
          await db
            .collection<Doc>("staging")
            .insertOne({ _id: new Int32(500 + i), k: new Int32(2000 + i), name: `G${i}` } as Doc);
          await db
            .collection("staging")
            .aggregate([{ $merge: { into: "t", on: "_id" } }])
            .toArray();
        },
      ],
      [
        "drop and create",
        async (db, i) => {
          await db.collection("t").drop();
          await db.collection("t").createIndex({ k: 1 }, { unique: true });
          await db
            .collection<Doc>("t")
            .insertOne({ _id: new Int32(1), k: new Int32(1 + (i % 10)), name: `D${i}` } as Doc);
        },
      ],
      [
        "rename",
        async (db, i) => {
          await db.collection("t").rename("t_old");
          await db.collection<Doc>("t_old").updateMany({}, { $set: { name: `O${i}` } });
          await db.collection("t_old").rename("t");
        },
      ],
      [
        "committed transaction",
        async (db, i) => {
          const session = db.client.startSession();
          try {
            await session.withTransaction(async () => {
              await db
                .collection("t")
                .updateOne({ k: new Int32(1 + (i % 8)) }, { $set: { name: `C${i}` } }, { session });
            });
          } finally {
            await session.endSession();
          }
        },
      ],
      [
        "aborted transaction",
        async (db, i) => {
          const session = db.client.startSession();
          try {
            session.startTransaction();
            await db.collection("t").updateOne({ k: new Int32(1 + (i % 8)) }, { $set: { name: `A${i}` } }, { session });
            await session.abortTransaction();
          } finally {
            await session.endSession();
          }
        },
      ],
    ];
    const seen = new Set<string>();
    for (let i = 0; i < 60; i++) {
      const [name, step] = i < steps.length ? steps[i] : steps[pick(steps.length)];
      seen.add(name);
      const answers: Doc[][] = [];
      for (const db of dbs) {
        await step(db, i);
        const got = await db.collection("p").aggregate(PAGE).toArray();
        // Twice: the second from what the first kept.
        expect({ name, again: await db.collection("p").aggregate(PAGE).toArray() }).toEqual({ name, again: got });
        expect({ name, got }).toEqual({ name, got: await expectedPage(db) });
        answers.push(got);
      }
      expect({ name, answer: answers[0] }).toEqual({ name, answer: answers[1] });
    }
    expect(seen.size).toBe(steps.length);
  });

  it("when a transaction changes `from`, then its own joins see the change, and others the committed documents until it commits", async () => {
    const [db] = await seed("transaction");
    const client = clients[0];
    const nameOf = async (session?: mongo.ClientSession) =>
      ((await db.collection("p").aggregate(BY_ID(3), { session }).toArray())[0].m as Doc[])[0].name as string;
    expect(await nameOf()).toBe("T2");
    expect(await nameOf()).toBe("T2"); // kept
    const session = client.startSession();
    try {
      session.startTransaction();
      await db.collection("t").updateOne({ k: new Int32(3) }, { $set: { name: "inside" } }, { session });
      expect(await nameOf(session)).toBe("inside");
      expect(await nameOf()).toBe("T2");
      expect(await nameOf()).toBe("T2");
      await session.commitTransaction();
    } finally {
      await session.endSession();
    }
    expect(await nameOf()).toBe("inside");
  });
});
