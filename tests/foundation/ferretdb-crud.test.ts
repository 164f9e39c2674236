// The embedded FerretDB's crud concern (tools/ferretdb/patches/crud.patch and _added/**/embedded_crud_*.go): the CRUD
// commands answer as MongoDB's do. Each feature is checked on the patched program against MongoDB's documented
// answer, and on the same binary with the concern switched off (FerretDbOptions.crud: false, FERRETDB_EMBEDDED_CRUD=off)
// against FerretDB 1.24's own answer, so each test shows what the patch changed. What the embedded database cannot do
// is refused with NotImplemented (238) naming the option, never answered differently.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import {
  MongoClient,
  type ClientBulkWriteModel,
  type ClientBulkWriteOptions,
  type MongoClientBulkWriteError,
  type MongoServerError,
  type Db,
  type Document,
} from "mongodb";
import { startFerretDb } from "../../src/db/ferretdb";
import type { EmbeddedDatabase } from "../../src/db/embedded";

const NOT_IMPLEMENTED = 238;
const DUPLICATE_KEY = 11000;

const dirs: string[] = [];
const servers: EmbeddedDatabase[] = [];
const clients: MongoClient[] = [];
let patched: Db;
let stock: Db;
let counter = 0;

/** A fresh collection name for one test. */
const fresh = (what: string) => `${what}_${++counter}`;

/** A client bulkWrite of models written as the command's documents are (the driver's types want ObjectId _ids). */
const clientBulkWrite = (client: MongoClient, models: Document[], options?: ClientBulkWriteOptions) =>
  client.bulkWrite(models as ClientBulkWriteModel[], options);

/** The error a promise rejects with (fails when it resolves). */
async function failure(promise: Promise<unknown>): Promise<MongoServerError> {
  try {
    await promise;
  } catch (err) {
    return err as MongoServerError;
  }
  throw new Error("expected an error, got an answer");
}

beforeAll(async () => {
  for (let i = 0; i < 2; i++) dirs.push(fs.mkdtempSync(path.join(os.tmpdir(), "project-service-crud-")));
  servers.push(
    ...(await Promise.all([
      startFerretDb(dirs[0], () => undefined),
      startFerretDb(dirs[1], () => undefined, { crud: false }),
    ])),
  );
  for (const server of servers) clients.push(await MongoClient.connect(server.uri, { maxPoolSize: 1 }));
  patched = clients[0].db("crud");
  stock = clients[1].db("crud");
});

afterAll(async () => {
  await Promise.all(clients.map((c) => c.close()));
  await Promise.all(servers.map((s) => s.stop()));
  for (const dir of dirs) fs.rmSync(dir, { recursive: true, force: true });
});

describe("the embedded FerretDB's crud concern", () => {
  it("when buildInfo is asked, then the patched program says embeddedCrud and the switched-off one does not", async () => {
    expect((await patched.admin().command({ buildInfo: 1 })).embeddedCrud).toBe(true);
    expect((await stock.admin().command({ buildInfo: 1 })).embeddedCrud).toBeUndefined();
  });

  it("when findOneAndUpdate has a projection, then the returned document has only the projected fields", async () => {
    const name = fresh("fields");
    await patched.collection(name).insertOne({ _id: 1, a: 1, b: 2, c: { d: 3, e: 4 } } as Document);

    const before = await patched
      .collection(name)
      .findOneAndUpdate({ _id: 1 } as Document, { $set: { a: 10 } }, { projection: { a: 1, "c.d": 1 } });
    const after = await patched
      .collection(name)
      .findOneAndUpdate(
        { _id: 1 } as Document,
        { $inc: { b: 1 } },
        { projection: { _id: 0, c: 0 }, returnDocument: "after" },
      );

    expect(before).toEqual({ _id: 1, a: 1, c: { d: 3 } });
    expect(after).toEqual({ a: 10, b: 3 });
    expect(await patched.collection(name).findOne({ _id: 1 } as Document)).toEqual({
      _id: 1,
      a: 10,
      b: 3,
      c: { d: 3, e: 4 },
    });
    await stock.collection(name).insertOne({ _id: 1, a: 1 } as Document);
    const refused = await failure(
      stock.collection(name).findOneAndUpdate({ _id: 1 } as Document, { $set: { a: 2 } }, { projection: { a: 1 } }),
    );
    expect(refused.code).toBe(NOT_IMPLEMENTED);
  });

  it("when a write hits a unique index, then the duplicate-key error names the index, its pattern and the key", async () => {
    const name = fresh("dup");
    const coll = patched.collection(name);
    await coll.createIndex({ email: 1 }, { unique: true });
    await coll.insertMany([
      { _id: 1, email: "a@x" },
      { _id: 2, email: "b@x" },
    ] as Document[]);

    const onInsert = await failure(coll.insertOne({ _id: 3, email: "a@x" } as Document));
    const onUpdate = await failure(coll.updateOne({ _id: 2 } as Document, { $set: { email: "a@x" } }));
    const onFindAndModify = await failure(coll.findOneAndUpdate({ _id: 2 } as Document, { $set: { email: "a@x" } }));
    const onId = await failure(coll.insertOne({ _id: 1, email: "c@x" } as Document));

    for (const err of [onInsert, onUpdate, onFindAndModify]) {
      expect(err.code).toBe(DUPLICATE_KEY);
      expect(err.keyPattern).toEqual({ email: 1 });
      expect(err.keyValue).toEqual({ email: "a@x" });
      expect(err.message).toContain("index: email_1 dup key");
    }
    expect(onId.keyPattern).toEqual({ _id: 1 });
    expect(onId.keyValue).toEqual({ _id: 1 });
    expect(await coll.find({}).sort({ _id: 1 }).toArray()).toEqual([
      { _id: 1, email: "a@x" },
      { _id: 2, email: "b@x" },
    ]);

    await stock.collection(name).createIndex({ email: 1 }, { unique: true });
    await stock.collection(name).insertOne({ _id: 1, email: "a@x" } as Document);
    const stockErr = await failure(stock.collection(name).insertOne({ _id: 3, email: "a@x" } as Document));
    expect(stockErr.code).toBe(DUPLICATE_KEY);
    expect(stockErr.keyPattern).toBeUndefined();
  });

  it("when a bulkWrite upserts, then upsertedIds are keyed by the index of the operation in the batch", async () => {
    const name = fresh("upserted");
    const ops = [
      { updateOne: { filter: { _id: 1 }, update: { $set: { x: 1 } } } },
      { updateOne: { filter: { _id: 2 }, update: { $set: { x: 2 } }, upsert: true } },
      { updateOne: { filter: { _id: 1 }, update: { $set: { x: 3 } } } },
      { replaceOne: { filter: { _id: 4 }, replacement: { x: 4 }, upsert: true } },
    ];

    const result = await patched.collection(name).bulkWrite(ops as never);
    const stockResult = await stock.collection(name).bulkWrite(ops as never);

    expect(result.upsertedIds).toEqual({ 1: 2, 3: 4 });
    expect(result.upsertedCount).toBe(2);
    expect(stockResult.upsertedIds).toEqual({ 0: 2, 1: 4 });
  });

  it("when a command's comment is a document, then it runs (FerretDB alone refuses it)", async () => {
    const name = fresh("comment");
    await patched.collection(name).insertOne({ _id: 1 } as Document);
    await stock.collection(name).insertOne({ _id: 1 } as Document);

    expect(
      await patched
        .collection(name)
        .find({}, { comment: { by: "test" } })
        .toArray(),
    ).toEqual([{ _id: 1 }]);
    expect((await patched.collection(name).deleteOne({ _id: 1 } as Document, { comment: { n: 1 } })).deletedCount).toBe(
      1,
    );
    expect(
      (
        await failure(
          stock
            .collection(name)
            .find({}, { comment: { by: "test" } })
            .toArray(),
        )
      ).code,
    ).toBe(14);
  });

  it("when a write is unacknowledged (w: 0), then no reply comes and the next command gets its own answer", async () => {
    const name = fresh("w0");
    const coll = patched.collection(name, { writeConcern: { w: 0 } });

    for (let i = 0; i < 20; i++) {
      await coll.insertOne({ _id: i } as Document);
      // one connection (maxPoolSize 1): a reply to the w:0 insert would be read as this count's answer
      expect(await patched.collection(name).countDocuments({ _id: { $lte: i } } as Document)).toBe(i + 1);
    }
  });

  it("when field names start with '$' or hold '.', then they are stored and read back, except '$' in _id", async () => {
    const name = fresh("dots");
    const doc = { _id: 1, $a: 1, "b.c": 2, d: { $e: 3, "f.g": 4 } };

    await patched.collection(name).insertOne(doc as Document);
    const idErr = await failure(patched.collection(name).insertOne({ _id: { $x: 1 } } as Document));

    expect(await patched.collection(name).findOne({ _id: 1 } as Document)).toEqual(doc);
    expect(idErr.code).toBe(2);
    expect((await failure(stock.collection(name).insertOne(doc as Document))).message).toContain("invalid key");
  });

  it("when an update is a pipeline, then its stages run on each document", async () => {
    const name = fresh("pipeline");
    await patched.collection(name).insertMany([
      { _id: 1, x: 1, t: { u: "a" }, drop: true },
      { _id: 2, x: 2, t: { u: "b" }, drop: true },
    ] as Document[]);

    await patched
      .collection(name)
      .updateMany({}, [{ $set: { y: "$x", "n.m": "$t.u", same: { $eq: ["$x", 1] } } }, { $unset: "drop" }]);
    await patched
      .collection(name)
      .updateOne({ _id: 2 } as Document, [
        { $replaceWith: { $setField: { field: { $literal: "$k" }, value: "$x", input: "$$ROOT" } } },
      ]);
    const unknown = await failure(
      patched.collection(name).updateOne({ _id: 1 } as Document, [{ $set: { z: { $concat: ["a", "b"] } } }]),
    );

    expect(await patched.collection(name).find({}).sort({ _id: 1 }).toArray()).toEqual([
      { _id: 1, x: 1, t: { u: "a" }, y: 1, n: { m: "a" }, same: true },
      { _id: 2, x: 2, t: { u: "b" }, y: 2, n: { m: "b" }, same: false, $k: 2 },
    ]);
    expect(unknown.code).toBe(NOT_IMPLEMENTED);
    expect(unknown.message).toContain("$concat");
    expect((await failure(stock.collection(name).updateOne({}, [{ $set: { y: 1 } }]))).code).toBe(14);
  });

  it("when a command has let, then its variables are the given values in the command's expressions", async () => {
    const name = fresh("let");
    await patched.collection(name).insertMany([
      { _id: 1, v: "a" },
      { _id: 2, v: "b" },
    ] as Document[]);

    const found = await patched
      .collection(name)
      .find({ $expr: { $eq: ["$_id", "$$id"] } }, { let: { id: 2 } })
      .toArray();
    await patched
      .collection(name)
      .updateOne({ $expr: { $eq: ["$v", "$$v"] } }, [{ $set: { w: "$$w" } }], { let: { v: "a", w: "set" } });
    const literal = await patched
      .collection(name)
      .find({ $expr: { $eq: ["$v", "$$v"] } }, { let: { v: { $literal: "$v" } } })
      .toArray();

    expect(found).toEqual([{ _id: 2, v: "b" }]);
    expect(await patched.collection(name).findOne({ _id: 1 } as Document)).toEqual({ _id: 1, v: "a", w: "set" });
    expect(literal).toEqual([]);
    const refused = await failure(
      stock
        .collection(name)
        .find({ _id: 1 } as Document, { let: { id: 2 } })
        .toArray(),
    );
    expect(refused.code).toBe(NOT_IMPLEMENTED);
  });

  it("when an update has arrayFilters, then only the array elements that match are changed", async () => {
    const name = fresh("arrayfilters");
    await patched.collection(name).insertOne({
      _id: 1,
      y: [
        { b: 1, c: [{ d: 1 }, { d: 2 }] },
        { b: 2, c: [{ d: 1 }] },
        { b: 1, c: [] },
      ],
    } as Document);

    await patched.collection(name).updateOne(
      {},
      { $set: { "y.$[i].c.$[j].d": 9 }, $inc: { "y.$[].b": 10 } },
      {
        arrayFilters: [{ "i.b": 1 }, { "j.d": { $gt: 1 } }],
      },
    );
    const unused = await failure(
      patched
        .collection(name)
        .updateOne({}, { $set: { "y.$[i].b": 0 } }, { arrayFilters: [{ "i.b": 1 }, { "k.b": 1 }] }),
    );

    expect(await patched.collection(name).findOne({ _id: 1 } as Document)).toEqual({
      _id: 1,
      y: [
        { b: 11, c: [{ d: 1 }, { d: 9 }] },
        { b: 12, c: [{ d: 1 }] },
        { b: 11, c: [] },
      ],
    });
    expect(unused.code).toBe(9);
    const refused = await failure(
      stock.collection(name).updateOne({}, { $set: { "y.$[i].b": 0 } }, { arrayFilters: [{ "i.b": 1 }] }),
    );
    expect(refused.code).toBe(NOT_IMPLEMENTED);
  });

  describe("collation", () => {
    const strength2 = { locale: "en", strength: 2 };
    const words = ["ping", "PING", "Ping", "píng", "pong", "apple", "Banana", "cherry"];

    async function filled(): Promise<string> {
      const name = fresh("collation");
      await patched.collection(name).createIndex({ w: 1 });
      await patched.collection(name).insertMany(words.map((w, i) => ({ _id: i, w })) as Document[]);
      return name;
    }

    it("when a find has strength 2, then strings equal but for case match, also on an indexed field", async () => {
      const name = await filled();

      const matched = await patched.collection(name).find({ w: "PING" }, { collation: strength2 }).toArray();
      const binary = await patched.collection(name).find({ w: "PING" }).toArray();
      const inRange = await patched
        .collection(name)
        .find({ w: { $gte: "B", $lt: "c" } }, { collation: strength2 })
        .toArray();

      expect(matched.map((d) => d.w as string).sort()).toEqual(["PING", "Ping", "ping"]);
      expect(binary.map((d) => d.w as string)).toEqual(["PING"]);
      expect(inRange.map((d) => d.w as string)).toEqual(["Banana"]);
    });

    it("when strength is 1, then accents are ignored too; when the locale is simple, comparison is binary", async () => {
      const name = await filled();

      const strength1 = await patched
        .collection(name)
        .countDocuments({ w: "ping" }, { collation: { locale: "en", strength: 1 } });
      const simple = await patched.collection(name).countDocuments({ w: "ping" }, { collation: { locale: "simple" } });

      expect(strength1).toBe(4);
      expect(simple).toBe(1);
    });

    it("when a find sorts with a collation, then the locale's order is used", async () => {
      const name = await filled();

      const sorted = await patched
        .collection(name)
        .find({ w: { $in: ["apple", "Banana", "cherry"] } }, { collation: { locale: "en" } })
        .sort({ w: 1 })
        .toArray();
      const binary = await patched
        .collection(name)
        .find({ w: { $in: ["apple", "Banana", "cherry"] } })
        .sort({ w: 1 })
        .toArray();

      expect(sorted.map((d) => d.w as string)).toEqual(["apple", "Banana", "cherry"]);
      expect(binary.map((d) => d.w as string)).toEqual(["Banana", "apple", "cherry"]);
    });

    it("when distinct, delete and update have a collation, then they act on the strings equal under it", async () => {
      const name = await filled();
      const coll = patched.collection(name);

      const distinct = await coll.distinct("w", { w: { $in: ["ping", "PING", "Ping"] } }, { collation: strength2 });
      const updated = await coll.updateMany({ w: "PING" }, { $set: { seen: true } }, { collation: strength2 });
      const deleted = await coll.deleteMany({ w: "Pong" }, { collation: strength2 });

      expect(distinct).toEqual(["PING"]);
      expect(updated.modifiedCount).toBe(3);
      expect(deleted.deletedCount).toBe(1);
    });

    it("when a unique index has strength 2, then a value equal but for case is a duplicate key", async () => {
      const name = fresh("unique_collation");
      const coll = patched.collection(name);
      await coll.createIndex({ name: 1 }, { unique: true, collation: strength2 });
      await coll.insertOne({ _id: 1, name: "Ann" } as Document);

      const onInsert = await failure(coll.insertOne({ _id: 2, name: "ANN" } as Document));
      await coll.insertOne({ _id: 3, name: "Änn" } as Document);
      const onUpdate = await failure(coll.updateOne({ _id: 3 } as Document, { $set: { name: "ann" } }));

      expect(onInsert.code).toBe(DUPLICATE_KEY);
      expect(onInsert.keyPattern).toEqual({ name: 1 });
      expect(onUpdate.keyValue).toEqual({ name: "ann" });
      expect((await coll.indexes()).find((i) => i.name === "name_1")?.collation).toMatchObject(strength2);
      expect(await coll.countDocuments({})).toBe(2);
    });

    it("when a collation option is not implemented, then NotImplemented names it", async () => {
      const name = await filled();

      const strength4 = await failure(
        patched
          .collection(name)
          .find({}, { collation: { locale: "en", strength: 4 } })
          .toArray(),
      );
      const caseFirst = await failure(
        patched
          .collection(name)
          .find({}, { collation: { locale: "en", caseFirst: "upper" } })
          .toArray(),
      );
      const stockRefused = await failure(stock.collection(name).find({}, { collation: strength2 }).toArray());

      expect(strength4.code).toBe(NOT_IMPLEMENTED);
      expect(strength4.message).toContain("strength 4");
      expect(caseFirst.message).toContain("caseFirst");
      expect(stockRefused.code).toBe(NOT_IMPLEMENTED);
    });
  });

  it("when an aggregate ends with $out or $merge, then the target collection gets the result", async () => {
    const source = fresh("source");
    const out = fresh("out");
    const merged = fresh("merged");
    await patched.collection(source).insertMany([
      { _id: 1, x: 1 },
      { _id: 2, x: 2 },
      { _id: 3, x: 3 },
    ] as Document[]);
    await patched.collection(out).insertOne({ _id: 9, old: true } as Document);
    await patched.collection(merged).insertMany([
      { _id: 2, y: "kept" },
      { _id: 5, y: "other" },
    ] as Document[]);

    await patched
      .collection(source)
      .aggregate([{ $match: { x: { $gt: 1 } } }, { $out: out }])
      .toArray();
    await patched
      .collection(source)
      .aggregate([{ $match: { x: { $gt: 1 } } }, { $merge: { into: merged } }])
      .toArray();
    const failed = await failure(
      patched
        .collection(source)
        .aggregate([{ $merge: { into: merged, whenMatched: "fail" } }])
        .toArray(),
    );

    expect(await patched.collection(out).find({}).sort({ _id: 1 }).toArray()).toEqual([
      { _id: 2, x: 2 },
      { _id: 3, x: 3 },
    ]);
    expect(await patched.collection(merged).find({}).sort({ _id: 1 }).toArray()).toEqual([
      { _id: 1, x: 1 },
      { _id: 2, y: "kept", x: 2 },
      { _id: 3, x: 3 },
      { _id: 5, y: "other" },
    ]);
    expect(failed.code).toBe(DUPLICATE_KEY);
    expect(failed.keyPattern).toEqual({ _id: 1 });
    const refused = await failure(
      stock
        .collection(source)
        .aggregate([{ $out: out }])
        .toArray(),
    );
    expect(refused.code).toBe(NOT_IMPLEMENTED);
  });

  it("when a database-level aggregate starts with $documents, then its stages run on those documents", async () => {
    const result = await patched
      .aggregate([
        { $documents: [{ a: 1 }, { a: 2 }, { a: 3 }] },
        { $match: { a: { $gte: 2 } } },
        { $project: { a: 1 } },
      ])
      .toArray();

    expect(result).toEqual([{ a: 2 }, { a: 3 }]);
  });

  it("when a client asks the version, then the patched program claims MongoDB 8.0 (wire 25) and the switched-off one FerretDB's 7.0 (wire 21)", async () => {
    const info = await patched.admin().command({ buildInfo: 1 });
    const hello = await patched.admin().command({ hello: 1 });
    const stockInfo = await stock.admin().command({ buildInfo: 1 });
    const stockHello = await stock.admin().command({ hello: 1 });

    expect([info.version, info.versionArray, hello.maxWireVersion]).toEqual(["8.0.0", [8, 0, 0, 0], 25]);
    expect([stockInfo.version, stockInfo.versionArray, stockHello.maxWireVersion]).toEqual([
      "7.0.42",
      [7, 0, 42, 0],
      21,
    ]);
  });

  it("when a client bulkWrite writes to two databases, then each operation is applied and answered as MongoDB 8.0 answers", async () => {
    const name = fresh("clientbulk");
    const other = clients[0].db("crud_other").collection(name);
    await patched.collection(name).insertMany([
      { _id: 1, x: 1 },
      { _id: 2, x: 2 },
      { _id: 3, x: 3 },
    ] as Document[]);

    const result = await clientBulkWrite(
      clients[0],
      [
        { name: "insertOne", namespace: `crud.${name}`, document: { _id: 4, x: 4 } },
        { name: "insertOne", namespace: `crud_other.${name}`, document: { _id: 1, y: 1 } },
        { name: "updateOne", namespace: `crud.${name}`, filter: { _id: 1 }, update: { $inc: { x: 10 } } },
        {
          name: "updateMany",
          namespace: `crud.${name}`,
          filter: { x: { $lte: 3 } },
          update: { $set: { small: true } },
        },
        { name: "replaceOne", namespace: `crud.${name}`, filter: { _id: 9 }, replacement: { x: 9 }, upsert: true },
        { name: "deleteOne", namespace: `crud.${name}`, filter: { _id: 4 } },
      ],
      { verboseResults: true },
    );

    expect({
      insertedCount: result.insertedCount,
      matchedCount: result.matchedCount,
      modifiedCount: result.modifiedCount,
      upsertedCount: result.upsertedCount,
      deletedCount: result.deletedCount,
    }).toEqual({ insertedCount: 2, matchedCount: 3, modifiedCount: 3, upsertedCount: 1, deletedCount: 1 });
    expect(result.updateResults?.get(4)).toEqual({ matchedCount: 1, modifiedCount: 0, didUpsert: true, upsertedId: 9 });
    expect(result.deleteResults?.get(5)).toEqual({ deletedCount: 1 });
    expect(await patched.collection(name).find({}).sort({ _id: 1 }).toArray()).toEqual([
      { _id: 1, x: 11 },
      { _id: 2, x: 2, small: true },
      { _id: 3, x: 3, small: true },
      { _id: 9, x: 9 },
    ]);
    expect(await other.find({}).toArray()).toEqual([{ _id: 1, y: 1 }]);
    // FerretDB's own has no such command (59)
    const refused = (await failure(
      clientBulkWrite(clients[1], [{ name: "insertOne", namespace: `crud.${name}`, document: { _id: 1 } }]),
    )) as unknown as MongoClientBulkWriteError;
    expect((refused.cause as MongoServerError).code).toBe(59);
  });

  it("when an operation of a client bulkWrite fails, then an ordered one stops there and an unordered one goes on", async () => {
    const name = fresh("clientbulkerr");
    await patched.collection(name).insertOne({ _id: 1 } as Document);
    const models = [
      { name: "insertOne", namespace: `crud.${name}`, document: { _id: 2 } },
      { name: "insertOne", namespace: `crud.${name}`, document: { _id: 1 } },
      { name: "insertOne", namespace: `crud.${name}`, document: { _id: 3 } },
    ];

    const ordered = (await failure(clientBulkWrite(clients[0], models))) as unknown as MongoClientBulkWriteError;
    expect([...ordered.writeErrors.entries()].map(([i, e]) => [i, e.code])).toEqual([[1, DUPLICATE_KEY]]);
    expect(ordered.partialResult?.insertedCount).toBe(1);
    expect(await patched.collection(name).countDocuments()).toBe(2);

    await patched.collection(name).deleteMany({ _id: { $ne: 1 } } as Document);
    const unordered = (await failure(
      clientBulkWrite(clients[0], models, { ordered: false }),
    )) as unknown as MongoClientBulkWriteError;
    expect([...unordered.writeErrors.keys()]).toEqual([1]);
    expect(unordered.partialResult?.insertedCount).toBe(2);
    expect(await patched.collection(name).countDocuments()).toBe(3);
  });

  it("when a client bulkWrite runs in a transaction, then its writes are the transaction's: gone when aborted, kept when committed", async () => {
    const name = fresh("clientbulktxn");
    await patched.createCollection(name);
    const session = clients[0].startSession();
    try {
      session.startTransaction();
      await clientBulkWrite(clients[0], [{ name: "insertOne", namespace: `crud.${name}`, document: { _id: 1 } }], {
        session,
      });
      expect(await patched.collection(name).countDocuments({}, { session })).toBe(1);
      await session.abortTransaction();
      expect(await patched.collection(name).countDocuments()).toBe(0);

      session.startTransaction();
      await clientBulkWrite(
        clients[0],
        [
          { name: "insertOne", namespace: `crud.${name}`, document: { _id: 2 } },
          { name: "updateOne", namespace: `crud.${name}`, filter: { _id: 2 }, update: { $set: { done: true } } },
        ],
        { session },
      );
      await session.commitTransaction();
    } finally {
      await session.endSession();
    }
    expect(await patched.collection(name).find({}).toArray()).toEqual([{ _id: 2, done: true }]);
  });

  it("when updateOne or replaceOne has a sort, then the first matching document in that order is changed", async () => {
    const name = fresh("sort");
    await patched.collection(name).insertMany([
      { _id: 1, x: 1 },
      { _id: 2, x: 2 },
      { _id: 3, x: 3 },
    ] as Document[]);

    const updated = await patched
      .collection(name)
      .updateOne({ x: { $gt: 1 } } as Document, { $set: { y: "first by x desc" } }, { sort: { x: -1 } });
    const replaced = await patched
      .collection(name)
      .replaceOne({ x: { $gt: 1 } } as Document, { x: 20 }, { sort: { x: 1 } });

    expect([updated.matchedCount, updated.modifiedCount, replaced.matchedCount]).toEqual([1, 1, 1]);
    expect(await patched.collection(name).find({}).sort({ _id: 1 }).toArray()).toEqual([
      { _id: 1, x: 1 },
      { _id: 2, x: 20 },
      { _id: 3, x: 3, y: "first by x desc" },
    ]);
    await expect(
      stock.collection(name).updateOne({} as Document, { $set: { y: 1 } }, { sort: { x: -1 } }),
    ).rejects.toThrow();
  });

  it("when distinct has a hint, then it answers as without one (FerretDB's own refuses the field)", async () => {
    const name = fresh("distincthint");
    for (const db of [patched, stock]) {
      await db.collection(name).insertMany([{ x: 1 }, { x: 2 }, { x: 1 }]);
      await db.collection(name).createIndex({ x: 1 });
    }

    expect((await patched.collection(name).distinct("x", {}, { hint: { x: 1 } })).sort()).toEqual([1, 2]);
    expect((await failure(stock.collection(name).distinct("x", {}, { hint: "x_1" }))).code).toBe(9);
  });

  it("when an expression uses a variable no let defines, then it is refused as MongoDB refuses it (17276)", async () => {
    const name = fresh("undefinedvar");
    await patched.collection(name).insertOne({ _id: 1 } as Document);

    const refused = await failure(patched.collection(name).deleteOne({ $expr: { $eq: ["$_id", "$$id2"] } }));

    expect([refused.code, refused.message]).toEqual([17276, "Use of undefined variable: id2"]);
    expect(await patched.collection(name).countDocuments()).toBe(1);
  });
});
