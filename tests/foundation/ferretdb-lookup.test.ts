// The embedded FerretDB's $lookup (tools/ferretdb/lookup.patch and _added/internal/handler/embedded_lookup.go), which
// FerretDB 1.24 lacks: each document gets, in `as`, exactly the documents a find of `from` with the filter
// {foreignField: {$eq: localValue}} returns, in the same order (MongoDB's equality match, with a missing local value
// matching as null). Checked on random documents (the same numbers as int, long and double, strings, booleans, null,
// missing, documents, arrays in the foreign collection, dotted paths on both sides), on the program with the pushdown
// and on the same binary without it (FerretDB's own filtering), whose answers must be equal too. A `pipeline` runs over
// each document's matches, as an aggregation of `from` matched by the value would; without localField and
// foreignField, over all of `from`; a page looked up with a pipeline of one $project reads `from` once, as without it.
// The lookup's read of the foreign collection uses its index (SQLite's plan of the statements it ran). What is not
// implemented is refused with NotImplemented, never answered differently; FERRETDB_EMBEDDED_LOOKUP=off gives
// FerretDB's own refusal and a buildInfo without `embeddedLookup`.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { mongo } from "mongoose";
import { explainSqlLog, startFerretDb } from "../../src/db/ferretdb";
import type { EmbeddedDatabase } from "../../src/db/embedded";
import { seededRandom as rng } from "../helpers/random";

const { Int32, Long, Double } = mongo;
type Doc = mongo.Document;

const MISSING = Symbol("missing");

/** A scalar (or document) value: the same numbers in three types, strings, booleans, null, missing, documents. */
function scalar(r: () => number): unknown {
  const n = 1 + Math.floor(r() * 4);
  const pick = Math.floor(r() * 10);
  switch (pick) {
    case 0:
      return new Int32(n);
    case 1:
      return Long.fromNumber(n);
    case 2:
      return new Double(n);
    case 3:
      return new Double(n + 0.5);
    case 4:
      return String(n);
    case 5:
      return r() < 0.5;
    case 6:
      return null;
    case 7:
      return MISSING;
    case 8:
      return { a: new Int32(n) };
    default:
      return new Int32(n);
  }
}

function withValue(doc: Doc, key: string, value: unknown): Doc {
  if (value !== MISSING) doc[key] = value;
  return doc;
}

function foreignDocs(r: () => number, count: number): Doc[] {
  return Array.from({ length: count }, (_, i) => {
    const doc: Doc = { _id: new Int32(i + 1) };
    // A quarter hold an array: one equal element matches.
    withValue(doc, "k", r() < 0.25 ? [scalar(r), scalar(r)].filter((v) => v !== MISSING) : scalar(r));
    withValue(doc, "n", r() < 0.8 ? withValue({}, "k", scalar(r)) : MISSING);
    doc.payload = `foreign ${i}`;
    return doc;
  });
}

function localDocs(r: () => number, count: number): Doc[] {
  return Array.from({ length: count }, (_, i) => {
    const doc: Doc = { _id: new Int32(i + 1) };
    withValue(doc, "r", scalar(r));
    withValue(doc, "s", r() < 0.8 ? withValue({}, "r", scalar(r)) : r() < 0.5 ? MISSING : "not a document");
    doc.m = "replaced by the lookup";
    return doc;
  });
}

/** The local value at a dotted path as $lookup reads it: null when missing, or below a non-document. */
function localValue(doc: Doc, localField: string): unknown {
  let value: unknown = doc;
  for (const part of localField.split(".")) {
    const isDocument = value !== null && typeof value === "object" && !Array.isArray(value) && !("_bsontype" in value);
    if (!isDocument || !(part in (value as Doc))) return null;
    value = (value as Doc)[part];
  }
  return value;
}

async function failure(run: () => Promise<unknown>): Promise<{ code?: number; message: string } | "answered"> {
  try {
    await run();
    return "answered";
  } catch (err) {
    // promoteValues: false leaves the error's code an Int32 too.
    const e = err as { code?: number | mongo.Int32; message: string };
    return { code: e.code === undefined ? undefined : Number(e.code), message: e.message };
  }
}

/**
 * Whether a statement of the SQL log reads documents of the table whose name starts with `table`: a SELECT from it,
 * not the search for another type that may come before the read (`SELECT EXISTS (…)`, when the read cannot carry it
 * as a column of its own).
 */
function isRead(sql: string, table: string): boolean {
  return sql.startsWith("SELECT ") && !sql.startsWith("SELECT EXISTS") && sql.includes(` FROM "${table}`);
}

describe("the embedded FerretDB's $lookup", () => {
  const dirs: string[] = [];
  let sqlLog: string;
  const servers: EmbeddedDatabase[] = [];
  const clients: mongo.MongoClient[] = [];

  beforeAll(async () => {
    for (let i = 0; i < 3; i++) dirs.push(fs.mkdtempSync(path.join(os.tmpdir(), "project-service-lookup-")));
    sqlLog = path.join(dirs[0], "sql.log");
    servers.push(
      ...(await Promise.all([
        startFerretDb(dirs[0], () => undefined, { sqlLog }),
        startFerretDb(dirs[1], () => undefined, { pushdown: false }),
        startFerretDb(dirs[2], () => undefined, { lookup: false }),
      ])),
    );
    for (const server of servers) clients.push(await mongo.MongoClient.connect(server.uri, { promoteValues: false }));
  });
  afterAll(async () => {
    await Promise.all(clients.map((c) => c.close()));
    await Promise.all(servers.map((s) => s.stop()));
    for (const dir of dirs) fs.rmSync(dir, { recursive: true, force: true });
  });

  const withLookup = () => clients.slice(0, 2).map((c) => c.db("lookup"));

  beforeAll(async () => {
    const r = rng(20261126);
    const foreign = foreignDocs(r, 120);
    const local = localDocs(r, 150);
    for (const db of clients.map((c) => c.db("lookup"))) {
      await db.collection("f").createIndex({ k: 1 });
      await db.collection("f").insertMany(foreign);
      await db.collection("l").insertMany(local);
    }
  });

  /** Each local document with `as` set to what a find of `from` gives for its value. */
  async function expected(db: mongo.Db, localField: string, foreignField: string, from = "f"): Promise<Doc[]> {
    const local = await db.collection("l").find({}).sort({ _id: 1 }).toArray();
    const out: Doc[] = [];
    for (const doc of local) {
      const value = localValue(doc, localField);
      const found = await db
        .collection(from)
        .find({ [foreignField]: { $eq: value } })
        .toArray();
      out.push({ ...doc, m: found });
    }
    return out;
  }

  it.each([
    ["top-level fields", "r", "k"],
    ["a dotted localField", "s.r", "k"],
    ["a dotted foreignField", "r", "n.k"],
    ["dotted fields on both sides", "s.r", "n.k"],
  ])(
    "when every document is looked up by %s, then each gets exactly what a find by its value gives",
    async (_, localField, foreignField) => {
      const answers: Doc[][] = [];
      for (const db of withLookup()) {
        const want = await expected(db, localField, foreignField);
        const got = await db
          .collection("l")
          .aggregate([{ $sort: { _id: 1 } }, { $lookup: { from: "f", localField, foreignField, as: "m" } }])
          .toArray();
        expect(got).toEqual(want);
        // Sanity: the documents get different numbers of matches, one and several among them.
        const sizes = got.map((doc) => (doc.m as Doc[]).length);
        expect(new Set(sizes).size).toBeGreaterThan(3);
        expect(sizes).toContain(1);
        answers.push(got);
      }
      expect(answers[0]).toEqual(answers[1]);
    },
  );

  it("when a document by _id is projected, then looked up (the service's read of a project with its teacher), then it answers that document and its matches", async () => {
    for (const db of withLookup()) {
      for (const id of [1, 2, 3, 50, 150]) {
        const [doc] = await db
          .collection("l")
          .find({ _id: new Int32(id) })
          .toArray();
        const found = await db
          .collection("f")
          .find({ k: { $eq: localValue(doc, "r") } })
          .toArray();
        const got = await db
          .collection("l")
          .aggregate([
            { $match: { _id: new Int32(id) } },
            { $limit: 1 },
            { $project: { r: 1 } },
            { $lookup: { from: "f", localField: "r", foreignField: "k", as: "joined" } },
          ])
          .toArray();
        expect(got).toEqual([{ _id: doc._id, ...("r" in doc ? { r: doc.r } : {}), joined: found }]);
      }
      expect(
        await db
          .collection("l")
          .aggregate([
            { $match: { _id: new Int32(999) } },
            { $lookup: { from: "f", localField: "r", foreignField: "k", as: "m" } },
          ])
          .toArray(),
      ).toEqual([]);
    }
  });

  it("when `from` does not exist, then each document gets an empty array", async () => {
    for (const db of withLookup()) {
      const got = await db
        .collection("l")
        .aggregate([
          { $sort: { _id: 1 } },
          { $limit: 5 },
          { $lookup: { from: "nothing", localField: "r", foreignField: "k", as: "m" } },
        ])
        .toArray();
      expect(got.map((doc) => doc.m)).toEqual([[], [], [], [], []]);
    }
  });

  it.each([
    ["a $project of the foreign field", [{ $project: { k: 1, _id: 0 } }]],
    ["a $project without the foreign field", [{ $project: { payload: 1 } }]],
    [
      "a $match, a $sort and a $limit",
      [{ $match: { payload: { $ne: "foreign 3" } } }, { $sort: { _id: -1 } }, { $limit: 2 }],
    ],
    ["no stage", []],
  ])(
    "when a pipeline of %s follows the equality match, then each document gets its matches passed through it",
    async (_, pipeline) => {
      const answers: Doc[][] = [];
      for (const db of withLookup()) {
        const local = await db.collection("l").find({}).sort({ _id: 1 }).limit(60).toArray();
        const want: Doc[] = [];
        for (const doc of local) {
          const found = await db
            .collection("f")
            .aggregate([{ $match: { k: { $eq: localValue(doc, "r") } } }, ...pipeline])
            .toArray();
          want.push({ ...doc, m: found });
        }
        const got = await db
          .collection("l")
          .aggregate([
            { $sort: { _id: 1 } },
            { $limit: 60 },
            { $lookup: { from: "f", localField: "r", foreignField: "k", pipeline, as: "m" } },
          ])
          .toArray();
        expect(got).toEqual(want);
        expect(got.filter((doc) => (doc.m as Doc[]).length > 0).length).toBeGreaterThan(10);
        answers.push(got);
      }
      expect(answers[0]).toEqual(answers[1]);
    },
  );

  it("when a pipeline comes without localField and foreignField, then every document gets what it makes of all of `from`", async () => {
    for (const db of withLookup()) {
      const all = await db
        .collection("f")
        .aggregate([{ $sort: { _id: -1 } }, { $limit: 3 }, { $project: { payload: 1 } }])
        .toArray();
      expect(all).toHaveLength(3);
      const got = await db
        .collection("l")
        .aggregate([
          { $sort: { _id: 1 } },
          { $limit: 4 },
          { $project: { _id: 1 } },
          {
            $lookup: {
              from: "f",
              pipeline: [{ $sort: { _id: -1 } }, { $limit: 3 }, { $project: { payload: 1 } }],
              as: "m",
            },
          },
        ])
        .toArray();
      expect(got).toEqual([1, 2, 3, 4].map((id) => ({ _id: new Int32(id), m: all })));
    }
  });

  it("when a page is looked up with a pipeline of one $project, then it reads `from` as often as without it (its values in one read)", async () => {
    const db = clients[0].db("lookup");
    await db.collection("h").createIndex({ k: 1 }, { unique: true });
    await db
      .collection<Doc>("h")
      .insertMany(Array.from({ length: 4 }, (_, i) => ({ _id: new Int32(i + 1), k: new Int32(i + 1), p: i }) as Doc));
    // A page of 30 in the order of an index (cut by SQLite), whose local values are ints, each held by several.
    await db.collection("p").createIndex({ n: 1 }, { unique: true });
    await db
      .collection<Doc>("p")
      .insertMany(
        Array.from(
          { length: 40 },
          (_, i) => ({ _id: new Int32(i + 1), n: new Int32(i), r: new Int32(1 + (i % 5)) }) as Doc,
        ),
      );
    const readsOfH = async (pipeline?: Doc[]): Promise<{ reads: number; got: Doc[] }> => {
      const before = fs.readFileSync(sqlLog, "utf8").length;
      const got = await db
        .collection("p")
        .aggregate([
          { $match: {} },
          { $sort: { n: 1 } },
          { $limit: 30 },
          { $lookup: { from: "h", localField: "r", foreignField: "k", ...(pipeline ? { pipeline } : {}), as: "m" } },
        ])
        .toArray();
      const lines = fs.readFileSync(sqlLog, "utf8").slice(before).split("\n").filter(Boolean);
      const reads = lines.map((l) => JSON.parse(l) as { sql: string }).filter((s) => isRead(s.sql, "h_"));
      return { reads: reads.length, got };
    };
    const plain = await readsOfH();
    const projected = await readsOfH([{ $project: { _id: 0, k: 1 } }]);
    // One read of the page's values, not one per value or per document; the same with the pipeline.
    expect(plain.got).toHaveLength(30);
    expect(plain.got.filter((doc) => (doc.m as Doc[]).length === 1)).toHaveLength(24);
    expect(plain.reads).toBe(1);
    expect(projected.reads).toBe(1);
    expect(projected.got).toEqual(plain.got.map((doc) => ({ ...doc, m: (doc.m as Doc[]).map((h) => ({ k: h.k })) })));
  });

  it("when documents are looked up in a collection of unique numbers (as projects' teachers), then SQLite searches its index for each", async () => {
    const db = clients[0].db("lookup");
    await db.collection("g").createIndex({ k: 1 }, { unique: true });
    await db
      .collection<Doc>("g")
      .insertMany(Array.from({ length: 50 }, (_, i) => ({ _id: new Int32(i + 1), k: new Int32(i + 1) }) as Doc));
    const got = await db
      .collection("l")
      .aggregate([
        { $match: { _id: new Int32(3) } },
        { $lookup: { from: "g", localField: "n", foreignField: "k", as: "m" } },
      ])
      .toArray();
    expect(got).toHaveLength(1);
    for (const id of [1, 7, 50, 51]) {
      const [doc] = await db
        .collection("l")
        .aggregate([
          { $match: { _id: new Int32(3) } },
          { $set: { n: new Int32(id) } },
          { $lookup: { from: "g", localField: "n", foreignField: "k", as: "m" } },
        ])
        .toArray();
      expect((doc.m as Doc[]).map((g) => Number(g.k))).toEqual(id <= 50 ? [id] : []);
    }
    const statements = await explainSqlLog(dirs[0], sqlLog, "lookup");
    const reads = statements.filter((s) => isRead(s.sql, "g_"));
    expect(reads.length).toBeGreaterThan(0);
    for (const statement of reads) {
      expect(statement.error).toBeUndefined();
      expect({ sql: statement.sql, scans: statement.plan!.filter((line) => /^SCAN /.test(line)) }).toEqual({
        sql: statement.sql,
        scans: [],
      });
    }
  });

  const lookup = (spec: unknown) => [{ $lookup: spec }];
  it.each([
    ["a local value that is an array", lookup({ from: "f", localField: "k", foreignField: "k", as: "m" }), 238, "f"],
    ["a local value below an array", lookup({ from: "f", localField: "k.a", foreignField: "k", as: "m" }), 238, "f"],
    [
      "a pipeline that is not an array",
      lookup({ from: "f", localField: "r", foreignField: "k", pipeline: {}, as: "m" }),
      9,
      "l",
    ],
    [
      "a pipeline holding a number",
      lookup({ from: "f", localField: "r", foreignField: "k", pipeline: [1], as: "m" }),
      14,
      "l",
    ],
    ["a pipeline with $collStats", lookup({ from: "f", pipeline: [{ $collStats: {} }], as: "m" }), 238, "l"],
    ["a pipeline with $out", lookup({ from: "f", pipeline: [{ $out: "o" }], as: "m" }), 238, "l"],
    [
      "a pipeline with a stage FerretDB lacks",
      lookup({ from: "f", pipeline: [{ $sample: { size: 1 } }], as: "m" }),
      238,
      "l",
    ],
    ["localField alone with a pipeline", lookup({ from: "f", localField: "r", pipeline: [], as: "m" }), 9, "l"],
    ["let", lookup({ from: "f", localField: "r", foreignField: "k", let: {}, as: "m" }), 238, "l"],
    ["a dotted `as`", lookup({ from: "f", localField: "r", foreignField: "k", as: "m.n" }), 238, "l"],
    ["no `as`", lookup({ from: "f", localField: "r", foreignField: "k" }), 9, "l"],
    ["no foreignField", lookup({ from: "f", localField: "r", as: "m" }), 9, "l"],
    ["an unknown argument", lookup({ from: "f", localField: "r", foreignField: "k", as: "m", x: 1 }), 9, "l"],
    ["a `from` that is not a string", lookup({ from: 1, localField: "r", foreignField: "k", as: "m" }), 9, "l"],
    ["a specification that is not a document", lookup("f"), 9, "l"],
    ["a path starting with $", lookup({ from: "f", localField: "$r", foreignField: "k", as: "m" }), 9, "l"],
  ])("when it is given %s, then it is refused with code %s", async (_, pipeline, code, collection) => {
    for (const db of withLookup()) {
      // f's documents hold arrays at k; l's do not, so only the specification is refused there.
      const refused = await failure(() => db.collection(collection).aggregate(pipeline).toArray());
      expect(refused).toMatchObject({ code });
    }
  });

  it("when it is switched off, then FerretDB's own refusal answers and buildInfo does not announce it", async () => {
    const [withIt, without] = [clients[0], clients[2]];
    const pipeline = lookup({ from: "f", localField: "r", foreignField: "k", as: "m" });
    expect(await failure(() => without.db("lookup").collection("l").aggregate(pipeline).toArray())).toMatchObject({
      code: 238,
      message: expect.stringContaining("is not implemented yet"),
    });
    expect((await without.db("admin").command({ buildInfo: 1 })).embeddedLookup).toBeUndefined();
    expect((await withIt.db("admin").command({ buildInfo: 1 })).embeddedLookup).toBe(true);
  });
});
