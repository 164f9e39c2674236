// What the read path (tools/ferretdb/readpath.patch) changed besides the documents themselves, which the pushdown
// differential test covers (ferretdb-pushdown.test.ts):
// - A NaN is refused as by FerretDB 1.24 itself, now that replies are no longer decoded again to look for one
//   (requests are checked where they are read). The same requests go to the patched program and to the same binary
//   with FERRETDB_EMBEDDED_READPATH=off (FerretDB's own check, in the wire package, of requests and replies): both
//   refuse each one alike, store nothing, and keep serving.
// - Reads run through statements prepared once per SQL text: after the collection or its database is dropped and
//   made again, or an index is added, a repeated read answers from what is stored now.
// - Commands' parameters are read through struct tags parsed once per type: commands with unknown, missing,
//   ignored, unimplemented and mistyped parameters get the answer FerretDB's own reading gives, field by field.
// - An aggregation of the form $match, $sort, $skip and $limit, $project, $lookup (a project with its teacher, a page
//   of projects with theirs) is answered from storage as BSON when its reads are proved exact: its answers, byte for
//   byte in field order and types, are those of FerretDB's own stages, on documents whose local values match one,
//   several or no documents, or are refused, and on pages whose documents share local values.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { BSON, Double, Int32, Long, MongoClient, MongoServerError, type Collection } from "mongodb";
import { startFerretDb } from "../../src/db/ferretdb";
import type { EmbeddedDatabase } from "../../src/db/embedded";

interface Doc {
  _id: number;
  x?: unknown;
  tags?: unknown;
}

const programs: { name: string; server?: EmbeddedDatabase; client?: MongoClient; dir: string }[] = [
  { name: "patched", dir: "" },
  { name: "FerretDB's own check", dir: "" },
];

beforeAll(async () => {
  await Promise.all(
    programs.map(async (program, i) => {
      program.dir = fs.mkdtempSync(path.join(os.tmpdir(), "ferretdb-nan-"));
      program.server = await startFerretDb(program.dir, () => undefined, i === 0 ? {} : { readpath: "off" });
      // No retries: a refused request closes the connection, which a retry would only repeat.
      program.client = await new MongoClient(program.server.uri, {
        retryWrites: false,
        retryReads: false,
        serverSelectionTimeoutMS: 10_000,
      }).connect();
    }),
  );
}, 300_000);

afterAll(async () => {
  await Promise.all(programs.map((p) => p.client?.close()));
  await Promise.all(programs.map((p) => p.server?.stop()));
  for (const p of programs) if (p.dir) fs.rmSync(p.dir, { recursive: true, force: true });
});

function collection(program: (typeof programs)[number], name: string): Collection<Doc> {
  return program.client!.db("nan").collection<Doc>(name);
}

const refused: Record<string, (coll: Collection<Doc>) => Promise<unknown>> = {
  "an insert of a NaN": (coll) => coll.insertOne({ _id: 2, x: new Double(Number.NaN) }),
  "an insert of a NaN in a nested array": (coll) => coll.insertOne({ _id: 3, tags: [1, { y: [new Double(NaN)] }] }),
  "an update setting a NaN": (coll) => coll.updateOne({ _id: 1 }, { $set: { x: new Double(NaN) } }),
  "a find whose filter holds a NaN": (coll) => coll.find({ x: new Double(NaN) }).toArray(),
};

/** The refusal as a client sees it: the error's class and message, without the server's address. */
async function refusal(run: () => Promise<unknown>): Promise<string> {
  try {
    await run();
  } catch (error) {
    const e = error as Error;
    return `${e.name}: ${e.message.replace(/\d+\.\d+\.\d+\.\d+:\d+|\b[0-9a-f]{32}\b/g, "<server>").replace(/connection \d+/g, "connection")}`;
  }
  return "not refused";
}

describe("the embedded FerretDB and FerretDB's own check", () => {
  it.each(Object.keys(refused))("refuse %s alike, store nothing, and answer the next request", async (what) => {
    const seen: string[] = [];
    for (const program of programs) {
      const coll = collection(program, `c${Object.keys(refused).indexOf(what)}`);
      await coll.deleteMany({});
      await coll.insertOne({ _id: 1, x: 1.5 });

      seen.push(await refusal(() => refused[what](coll)));

      expect(await coll.find({}).sort({ _id: 1 }).toArray()).toEqual([{ _id: 1, x: 1.5 }]);
    }
    expect(seen[0]).not.toBe("not refused");
    expect(seen[0]).toBe(seen[1]);
  });

  it("answer documents holding doubles, nested too, as stored", async () => {
    for (const program of programs) {
      const coll = collection(program, "doubles");
      await coll.deleteMany({});
      const docs = [
        { _id: 1, x: 1e300 },
        { _id: 2, x: -0.5 },
        { _id: 3, x: [1.25, { y: 5e-324 }] },
      ];
      await coll.insertMany(docs);
      expect(await coll.find({}).sort({ _id: 1 }).toArray()).toEqual(docs);
    }
  });
});

/** A document of the join's collections: a number as _id, any fields. */
type JoinDoc = { _id: number } & Record<string, unknown>;

/** Stored values of a join's local and foreign fields: one number in three types, strings, null, documents, arrays. */
function joinValue(i: number): unknown {
  const n = 1 + (i % 5);
  return [new Int32(n), new Long(n), new Double(n), new Double(n + 0.5), String(n), null, { a: n }, [n, 7]][i % 8];
}

/**
 * Pipelines of the forms the read path answers from storage ($match, $sort, $skip and $limit, $project, $lookup), and
 * near ones.
 */
function joinPipelines(): Record<string, unknown>[][] {
  const matches = [
    { _id: 2 },
    { _id: 3 },
    { _id: { $in: [1, 4, 9, 200] } },
    { r: new Int32(2) },
    { r: "3" },
    {},
    { "s.r": 2 },
  ];
  const projections = [undefined, { r: 1 }, { s: 1, m: 1 }, { _id: 1, r: 1, m: 1 }, { r: 1, _id: 0 }, { m: 0 }];
  const lookups = [
    { from: "f", localField: "r", foreignField: "k", as: "m" },
    { from: "f", localField: "r", foreignField: "k", as: "joined" },
    { from: "f", localField: "s.r", foreignField: "k", as: "j" },
    { from: "f", localField: "r", foreignField: "n.k", as: "j" },
    { from: "none", localField: "r", foreignField: "k", as: "j" },
    // g holds scalars only: a page's values are read there in one $in, and handed out by value.
    { from: "g", localField: "r", foreignField: "k", as: "m" },
    { from: "g", localField: "t", foreignField: "k", as: "j" },
    // A pipeline of one $project reads the matches' fields it keeps from storage (in one $in when it keeps the key);
    // other pipelines are FerretDB's own stages.
    { from: "g", localField: "r", foreignField: "k", pipeline: [{ $project: { _id: 0, k: 1 } }], as: "m" },
    { from: "f", localField: "r", foreignField: "k", pipeline: [{ $project: { p: 1 } }], as: "j" },
    { from: "f", localField: "r", foreignField: "k", pipeline: [{ $sort: { _id: -1 } }, { $limit: 1 }], as: "j" },
  ];
  const pipelines: Record<string, unknown>[][] = [];
  matches.forEach((match, i) =>
    [1, 3, 100].forEach((limit, j) =>
      lookups.forEach((lookup, k) => {
        const projection = projections[(i + j + k) % projections.length];
        pipelines.push([
          { $match: match },
          { $limit: limit },
          ...(projection ? [{ $project: projection }] : []),
          { $lookup: lookup },
        ]);
      }),
    ),
  );
  // Pages, as the service reads projects with their teachers: sorted, skipped and limited (in either order), their
  // documents sharing local values; a sort on mixed types; a page that ends past the last document.
  const pages = [
    [{ $sort: { t: -1 } }, { $skip: 1 }, { $limit: 3 }],
    [{ $sort: { _id: 1 } }, { $limit: 100 }],
    [{ $sort: { r: 1, _id: 1 } }, { $limit: 10 }, { $skip: 2 }],
    [{ $sort: { t: 1 } }, { $skip: 35 }, { $limit: 100 }],
    [{ $skip: 2 }, { $limit: 5 }],
  ];
  matches.forEach((match, i) =>
    pages.forEach((page, j) =>
      lookups.forEach((lookup, k) => {
        const projection = projections[(i + j + k) % projections.length];
        pipelines.push([
          { $match: match },
          ...page,
          ...(projection ? [{ $project: projection }] : []),
          { $lookup: lookup },
        ]);
      }),
    ),
  );
  return pipelines;
}

describe("a join answered from storage ($match, $sort, $skip, $limit, $project, $lookup, as the service reads a project with its teacher and a page with theirs)", () => {
  it("when documents are matched, sorted, cut, projected and looked up, then the answer is FerretDB's own path's, field order and types included", async () => {
    const answers: string[][] = [];
    for (const program of programs) {
      const db = program.client!.db("join");
      await db.dropDatabase();
      await db.collection("f").createIndex({ k: 1 });
      await db.collection<JoinDoc>("f").insertMany(
        Array.from({ length: 60 }, (_, i) => ({
          _id: i + 1,
          k: joinValue(i),
          n: { k: joinValue(i + 3) },
          p: `f${i}`,
        })),
      );
      await db.collection<JoinDoc>("l").insertMany(
        Array.from({ length: 40 }, (_, i) => ({
          _id: i + 1,
          r: joinValue(i * 3),
          s: i % 4 === 0 ? "not a document" : { r: joinValue(i) },
          m: "replaced by the lookup",
          t: i,
        })),
      );
      // Scalars of four types, each value held by five documents (their order in each match counts).
      await db.collection("g").createIndex({ k: 1 });
      await db.collection<JoinDoc>("g").insertMany(
        Array.from({ length: 30 }, (_, i) => {
          const n = 1 + (i % 6);
          return {
            _id: i + 1,
            k: [new Int32(n), new Long(n), new Double(n), new Double(n + 0.5), String(n), true][i % 6],
          };
        }),
      );
      // The batched read's condition: an $in of g's values is answered exactly by SQLite.
      const batched = await db
        .collection("g")
        .find({ k: { $in: [new Int32(1), "2", new Double(2.5), true] } })
        .explain();
      expect(batched.filterPushdown).toBe(true);
      const seen: string[] = [];
      for (const pipeline of joinPipelines()) {
        try {
          const got = await db.collection("l").aggregate(pipeline, { promoteValues: false }).toArray();
          seen.push(`${JSON.stringify(pipeline)} -> ${BSON.EJSON.stringify(got, { relaxed: false })}`);
        } catch (error) {
          if (!(error instanceof MongoServerError)) throw error;
          seen.push(`${JSON.stringify(pipeline)} -> error ${error.code}: ${error.message}`);
        }
      }
      answers.push(seen);
    }
    expect(answers[0]).toEqual(answers[1]);
    // Documents with matches, with none, replaced and added fields, and refusals (a local value in an array) are there.
    expect(answers[0].filter((a) => /"m":\[\{/.test(a)).length).toBeGreaterThan(5);
    expect(answers[0].filter((a) => /"j":\[\]/.test(a)).length).toBeGreaterThan(5);
    expect(answers[0].filter((a) => /"joined":\[\{/.test(a)).length).toBeGreaterThan(5);
    // Pages whose documents found several of g's documents each (a value held by five).
    expect(answers[0].filter((a) => a.includes('"from":"g"') && /"j":\[\{[^\]]*\},\{/.test(a)).length).toBeGreaterThan(
      2,
    );
    expect(answers[0].filter((a) => a.includes("-> error 238")).length).toBeGreaterThan(0);
    // Matches kept to the fields of the lookup's $project, and passed through its other stages.
    expect(
      answers[0].filter((a) => a.includes('"pipeline":[{"$project"') && /"m":\[\{"k"/.test(a)).length,
    ).toBeGreaterThan(2);
    expect(answers[0].filter((a) => a.includes('"$limit":1}]') && /"j":\[\{[^\]]*\}\]/.test(a)).length).toBeGreaterThan(
      2,
    );
  });
});

/** Commands whose parameters FerretDB reads through its struct tags, well formed and not. */
const COMMANDS: Record<string, unknown>[] = [
  { find: "p", filter: { x: 1 }, projection: { x: 1 }, sort: { _id: 1 }, limit: 2, batchSize: 1, singleBatch: true },
  { find: "p", unknownField: 1 },
  { find: "p", filter: 5 },
  { find: "p", limit: -1 },
  { find: "p", skip: "x" },
  { find: "p", tailable: true },
  { find: "p", returnKey: true },
  { find: "p", showRecordId: true, noCursorTimeout: true },
  { find: "p", hint: { _id: 1 }, comment: "c", maxTimeMS: 1000, allowDiskUse: true },
  { find: "p", collation: { locale: "fr" } },
  { find: "p", min: { _id: 1 } },
  { count: "p", query: { x: 1 }, limit: 1, skip: 1 },
  { count: "p", query: 1 },
  { count: "p", bogus: true },
  { insert: "p", documents: [{ _id: 1, x: 1 }], ordered: true },
  { insert: "p" },
  { insert: "p", documents: [{ _id: 2 }], bypassDocumentValidation: true },
  { update: "p", updates: [{ q: { _id: 1 }, u: { $set: { x: 2 } }, upsert: false, multi: false }] },
  { update: "p", updates: [{ q: { _id: 1 }, u: { $set: { x: 3 } }, collation: { locale: "fr" } }] },
  { update: "p", updates: [{ q: { _id: 1 } }] },
  { update: "p", updates: [{ u: { $set: { x: 4 } }, extra: 1 }] },
  { delete: "p", deletes: [{ q: { _id: 9 }, limit: 1 }] },
  { delete: "p", deletes: [{ q: { _id: 9 } }] },
  { delete: "p", deletes: [{ q: { _id: 9 }, limit: 1, hint: "x" }] },
  { findAndModify: "p", query: { _id: 1 }, update: { $inc: { x: 1 } }, new: true },
  { findAndModify: "p", query: { _id: 1 }, remove: "yes" },
  { findAndModify: "p", query: { _id: 1 }, update: { $inc: { x: 1 } }, writeConcern: { w: 1 }, arrayFilters: [] },
  { aggregate: "p", pipeline: [{ $match: { x: { $gt: 0 } } }], cursor: {} },
  { aggregate: "p", pipeline: [] },
  { aggregate: "p", pipeline: [], cursor: {}, explain: true },
  { distinct: "p", key: "x" },
  { distinct: "p" },
  { listCollections: 1, filter: { name: "p" }, nameOnly: true, authorizedCollections: false },
  { listIndexes: "p" },
  { createIndexes: "p", indexes: [{ key: { x: 1 }, name: "x_1" }] },
  { createIndexes: "p", indexes: [{ key: { x: 1 } }] },
  { dropIndexes: "p", index: "x_1" },
  { dropIndexes: "p" },
];

/** A command's answer as a client sees it (its error's code and message, without numbers that vary). */
async function answer(program: (typeof programs)[number], command: Record<string, unknown>): Promise<string> {
  try {
    const reply = await program.client!.db("params").command(command);
    return `ok ${JSON.stringify({ ...reply, cursor: reply.cursor ? { ...reply.cursor, id: "<id>" } : undefined })}`;
  } catch (error) {
    const e = error as { code?: number; message: string };
    return `error ${e.code}: ${e.message}`;
  }
}

describe("command parameters read through tags parsed once per type", () => {
  it("when commands with good, unknown, missing, ignored, unimplemented and mistyped parameters run, then each answer is FerretDB's own", async () => {
    const answers: string[][] = [];
    for (const program of programs) {
      await program.client!.db("params").dropDatabase();
      const seen: string[] = [];
      for (const command of COMMANDS) seen.push(await answer(program, command));
      answers.push(seen);
    }
    expect(answers[0]).toEqual(answers[1]);
    // Both kinds are there: commands answered and commands refused for their parameters.
    expect(answers[0].filter((a) => a.startsWith("ok")).length).toBeGreaterThan(10);
    expect(answers[0].filter((a) => a.startsWith("error")).length).toBeGreaterThan(10);
  });
});

describe("statements prepared once per text", () => {
  it("when a collection is dropped and made again, its database dropped, or an index added, then the same reads answer what is stored now", async () => {
    const program = programs[0];
    const db = () => program.client!.db("prepared");
    const coll = () => db().collection<Doc>("things");
    const read = async () => ({
      byField: await coll().find({ x: 2 }).toArray(),
      sorted: await coll().find({}).sort({ x: -1 }).limit(2).toArray(),
    });

    await coll().insertMany([
      { _id: 1, x: 1 },
      { _id: 2, x: 2 },
      { _id: 3, x: 3 },
    ]);
    expect(await read()).toEqual({
      byField: [{ _id: 2, x: 2 }],
      sorted: [
        { _id: 3, x: 3 },
        { _id: 2, x: 2 },
      ],
    });

    await coll().drop();
    await coll().insertMany([
      { _id: 10, x: 2 },
      { _id: 11, x: 5 },
    ]);
    expect(await read()).toEqual({
      byField: [{ _id: 10, x: 2 }],
      sorted: [
        { _id: 11, x: 5 },
        { _id: 10, x: 2 },
      ],
    });

    await coll().createIndex({ x: 1 });
    await coll().insertOne({ _id: 12, x: 9 });
    expect(await read()).toEqual({
      byField: [{ _id: 10, x: 2 }],
      sorted: [
        { _id: 12, x: 9 },
        { _id: 11, x: 5 },
      ],
    });

    await db().dropDatabase();
    await coll().insertOne({ _id: 20, x: 2 });
    expect(await read()).toEqual({ byField: [{ _id: 20, x: 2 }], sorted: [{ _id: 20, x: 2 }] });

    // A value of another type in the field: the sort is then FerretDB's own, and still right.
    await coll().insertOne({ _id: 21, x: "two" } as Doc);
    expect((await read()).sorted).toEqual([
      { _id: 21, x: "two" },
      { _id: 20, x: 2 },
    ]);
  });
});

describe("a command converted once, a collection looked up by name alone, a missing field's error formatted when read", () => {
  it("when commands read capped, missing and present collections, carry comments and hit a unique index, then each answer is FerretDB's own", async () => {
    const answers: string[][] = [];
    for (const program of programs) {
      const db = program.client!.db("once");
      await db.dropDatabase();
      await db.createCollection("ring", { capped: true, size: 4096, max: 3 });
      await db.collection<Doc>("ring").insertMany([4, 1, 3, 2].map((x) => ({ _id: x, x })));
      await db.collection<Doc>("plain").insertMany([3, 1, 2].map((x) => ({ _id: x, x })));
      await db.collection("plain").createIndex({ x: 1 }, { unique: true });
      // Without a $sort, a capped collection answers in insertion order (FerretDB's own path reads it).
      const lookup = (from: string, sort: Record<string, 1>[] = [{ _id: 1 }]) => [
        { $match: {} },
        ...sort.map(($sort) => ({ $sort })),
        { $limit: 5 },
        { $lookup: { from, localField: "x", foreignField: "_id", as: "j" } },
      ];
      const seen: string[] = [];
      for (const [database, command] of [
        ["once", { aggregate: "ring", pipeline: lookup("plain", []), cursor: {} }],
        ["once", { aggregate: "plain", pipeline: lookup("ring"), cursor: {}, comment: "a comment" }],
        ["once", { aggregate: "missing", pipeline: lookup("plain"), cursor: {} }],
        ["no-such-db", { aggregate: "plain", pipeline: lookup("plain"), cursor: {} }],
        ["once", { find: "ring", filter: {}, tailable: true, comment: { by: "test" } }],
        ["once", { find: "plain", filter: {}, tailable: true }],
        ["once", { find: "missing", filter: {}, tailable: true }],
        ["once", { insert: "plain", documents: [{ _id: 9, x: 1 }], comment: "duplicate x" }],
        ["once", { update: "plain", updates: [{ q: { _id: 2 }, u: { $set: { x: 3 } } }] }],
        ["once", { find: "plain", filter: { x: { $gt: 0 } }, sort: { x: 1 }, readConcern: { level: "local" } }],
        ["once", { count: "ring", query: {}, comment: 7 }],
      ] as const) {
        try {
          const reply = await program.client!.db(database).command(command);
          const cursor = reply.cursor ? { ...reply.cursor, id: "<id>" } : undefined;
          seen.push(
            `${JSON.stringify(command)} -> ok ${BSON.EJSON.stringify({ ...reply, cursor }, { relaxed: false })}`,
          );
        } catch (error) {
          if (!(error instanceof MongoServerError)) throw error;
          seen.push(`${JSON.stringify(command)} -> error ${error.code}: ${error.message}`);
        }
      }
      const stats = await db.command({ collStats: "ring" });
      seen.push(`collStats ring: capped ${stats.capped}, ${stats.count} documents`);
      answers.push(seen);
    }
    expect(answers[0]).toEqual(answers[1]);
    // The capped collection is read in insertion order and joined; a tailable find of the others is refused.
    expect(answers[0][0]).toContain('"firstBatch":[{"_id":{"$numberInt":"4"},"x":{"$numberInt":"4"},"j":[]}');
    expect(answers[0][0]).toContain('"j":[{"_id":{"$numberInt":"1"}');
    expect(answers[0].filter((a) => a.includes("-> error 2: tailable cursor")).length).toBe(2);
    expect(answers[0].filter((a) => a.includes('"code":{"$numberInt":"11000"}')).length).toBe(2);
    expect(answers[0].at(-1)).toMatch(/^collStats ring: capped true, [34] documents$/);
  });
});
