// When the embedded FerretDB pushes filters, sorts, skips, limits and counts down to SQLite (tools/ferretdb's patch),
// then every answer is the one FerretDB's own in-memory evaluation gives: thousands of random documents (mixed
// numeric types holding the same numbers, null and missing, strings needing escapes, non-ASCII text, large
// integers, booleans, ObjectIds, and in one collection arrays, dates and documents too) and thousands of random
// queries of the shapes the patch pushes down and of shapes just outside them, run against two FerretDB processes
// built from the same binary: one with the pushdown, one with it switched off (FERRETDB_EMBEDDED_PUSHDOWN=off, where
// FerretDB's handler filters and sorts everything in memory, as FerretDB 1.24 does). Comparing against FerretDB's
// own evaluation (rather than a hand-written matcher) tests the patch against the semantics the service already
// relies on. Results are compared in order; where a sort leaves ties, MongoDB leaves their order open, so tied
// documents are compared as sets (and a page cut inside a tie only by their sort keys).
// The pushing server also answers exact results by its fast read path (tools/ferretdb/readpath.patch: SQLite's JSON
// straight to BSON, no second filter or sort in Go) in its checking mode, where every document it sends that way is
// also encoded by FerretDB's own decoder and conversion and must be equal byte for byte, or the request fails. Half
// of the finds have a projection: inclusions of top-level fields, which the fast path applies itself (also when the
// result is longer than the first batch and FerretDB's own path projects the rest), and shapes it leaves to FerretDB.
// Pages whose filter is an $in on an index's first field, sorted by its next field (alone, or with a range on it),
// are read by the pushing server as a merge: one read per value in index order, merged in FerretDB as rows come.
// Each find's page is also read as an aggregation's first stages ($match, $sort, $skip, $limit), which the pushing
// server cuts in SQLite as it cuts the find (FerretDB's own aggregation sorts and cuts every match in memory).
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { mongo } from "mongoose";
import { startFerretDb } from "../../src/db/ferretdb";
import type { EmbeddedDatabase } from "../../src/db/embedded";
import { seededRandom as rng } from "../helpers/random";

const { Int32, Long, Double, ObjectId, BSON } = mongo;
type Doc = mongo.Document;

// Several small collections rather than one large one: the same number of documents and queries, more seeds, and
// the server without the pushdown (which reads every document for every query) stays quick.
const COLLECTIONS = 5;
const DOCS_PER_COLLECTION = 200;
const QUERIES_PER_COLLECTION = 200;
/**
 * Each random find runs with its aggregation on both servers (the one without the pushdown reads every document for
 * each): about 30 s per test alone here, 45 s under `npm test`, over 60 s when another test run shares the machine.
 */
const RANDOM_QUERIES_TIMEOUT = 180_000;

const OID_A = new ObjectId("65a1b2c3d4e5f60718293a4b");
const OID_B = new ObjectId("000000000000000000000001");

/** Scalars of the types the pushdown models: the same numbers under int32, int64 and double, edge values. */
const SCALARS: unknown[] = [
  new Int32(0),
  new Double(-0),
  new Long(0),
  new Int32(7),
  new Long(7),
  new Double(7),
  new Double(7.5),
  new Int32(-3),
  new Double(-2.75),
  new Int32(2147483647),
  new Long("9007199254740992"),
  new Long("9007199254740993"),
  new Double(9007199254740992),
  new Long("1234567890123456768"),
  new Double(1234567890123456768),
  new Long("9223372036854775807"),
  new Long("-9223372036854775808"),
  new Double(1e21),
  new Double(1e-7),
  new Double(0.1),
  "",
  "a",
  "A",
  "ab",
  "b",
  'quote"d',
  "back\\slash",
  "é",
  "e\u0301",
  "日本",
  "😀",
  "\u0000x",
  "x\u0000",
  "<&>",
  "\u2028",
  "7",
  "null",
  "true",
  OID_A.toHexString(),
  true,
  false,
  null,
  undefined, // missing
  OID_A,
  OID_B,
  // Dates, modelled since sort keys hold them (embedded_pushdown_dates.go): the same instant twice, before the epoch,
  // milliseconds.
  new Date(0),
  new Date(Date.UTC(2024, 0, 1)),
  new Date(Date.UTC(2024, 0, 1)),
  new Date(-86_400_000),
  new Date(Date.UTC(2026, 5, 30, 12, 0, 0, 123)),
];

/** Values the pushdown does not model, for one collection only: documents containing them are left to FerretDB. */
function otherValue(r: () => number): unknown {
  const pick = <T>(xs: T[]) => xs[Math.floor(r() * xs.length)];
  return pick<() => unknown>([
    () => [pick(SCALARS.filter((v) => v !== undefined)), pick(SCALARS.filter((v) => v !== undefined))],
    () => [],
    () => [null],
    () => [new Int32(7)], // (FerretDB 1.24 stores no nested arrays)
    () => ({ x: new Int32(7) }),
    () => new Date(Date.UTC(2024, 0, 1 + Math.floor(r() * 30))),
    () => [new Date(0), "a"],
    // Types only the decoder sees (the pushdown decodes documents in one pass; FerretDB's own decoder runs with it off).
    () => ({}),
    () => ({ n: { deep: [new Double(1.5), { e: '"é\n' }] }, s: "x" }),
    () => new mongo.Binary(Buffer.from([0, 1, 2, 250])),
    () => new mongo.Binary(Buffer.alloc(0), 4),
    () => new mongo.BSONRegExp("^a.b", "i"),
    () => new mongo.Timestamp({ t: 1700000000, i: 7 }),
    () => new Double(-1.7976931348623157e308),
  ])();
}

const FIELDS = ["a", "b", "c", "d"]; // a, b, c are indexed (pushed down); d is not

function makeDocs(r: () => number, count: number, mixed: boolean): Doc[] {
  const pick = <T>(xs: T[]) => xs[Math.floor(r() * xs.length)];
  const docs: Doc[] = [];
  for (let i = 0; i < count; i++) {
    const idKind = r();
    const doc: Doc = {
      _id: idKind < 0.7 ? `id${i}` : idKind < 0.85 ? new ObjectId() : idKind < 0.95 ? new Int32(i) : `${i}\u00e9`,
      u: new Int32(i), // unique: a tie-breaker for sorts
    };
    for (const f of FIELDS) {
      const value = mixed && r() < 0.06 ? otherValue(r) : pick(SCALARS);
      if (value !== undefined) doc[f] = value;
    }
    docs.push(doc);
  }
  return docs;
}

// ---- Random queries.

function makeQueries(r: () => number) {
  const pick = <T>(xs: T[]) => xs[Math.floor(r() * xs.length)];
  const scalar = () => pick(SCALARS.filter((v) => v !== undefined));
  const bound = () => pick(SCALARS.filter((v) => v !== undefined && v !== null && typeof v !== "boolean"));

  function condition(field: string): unknown {
    const x = r();
    if (x < 0.25) return scalar();
    if (x < 0.32) return { $eq: scalar() };
    if (x < 0.47) return { $in: Array.from({ length: Math.floor(r() * 5) }, scalar) };
    if (x < 0.67) {
      const ops = ["$gt", "$gte", "$lt", "$lte"];
      const c: Doc = { [pick(ops)]: bound() };
      if (r() < 0.4) c[pick(ops)] = bound();
      return c;
    }
    // Just outside what is pushed down.
    return pick<() => unknown>([
      () => ({ $ne: scalar() }),
      () => ({ $nin: [scalar(), scalar()] }),
      () => ({ $exists: r() < 0.5 }),
      () => /a/,
      () => ({ $regex: "^a" }),
      () => [scalar()],
      () => ({ $gt: null }),
      () => ({ $gte: true }),
      () => ({ $lt: OID_A }),
      () => ({ $type: "string" }),
      () => ({ $in: [[new Int32(7)]] }),
      () => ({ $in: [/a/, "b"] }),
      () => ({ $eq: { x: new Int32(7) } }),
      () => ({ $not: { $gt: new Int32(0) } }),
      () => ({ $size: 1 }),
      () => ({ $elemMatch: { $gt: new Int32(0) } }),
      () => ({ $gt: new Date(0) }),
      () => ({ $in: [new Date(Date.UTC(2024, 0, 2))] }),
      () => ({ $gte: new Double(Number.NEGATIVE_INFINITY) }),
      () => (field === "_id" ? { $in: [`id${Math.floor(r() * 50)}`, OID_A] } : { $in: [] }),
    ])();
  }

  function filter(): Doc {
    const f: Doc = {};
    const n = Math.floor(r() * 3.2);
    for (let i = 0; i < n; i++) {
      const field = pick([...FIELDS, "a", "b", "u", "_id", "a.x"]);
      if (field === "_id") {
        const y = r();
        f._id =
          y < 0.4
            ? `id${Math.floor(r() * DOCS_PER_COLLECTION)}`
            : y < 0.7
              ? { $in: Array.from({ length: 1 + Math.floor(r() * 6) }, () => `id${Math.floor(r() * 800)}`) }
              : condition("_id");
      } else if (field === "u") {
        f.u = r() < 0.5 ? { $gt: new Int32(Math.floor(r() * 700)) } : { $lte: new Long(Math.floor(r() * 700)) };
      } else {
        f[field] = condition(field);
      }
    }
    const y = r();
    if (y < 0.05) return { $or: [filter(), filter()] };
    if (y < 0.08) return { ...f, $comment: "c" };
    if (y < 0.1) return { $and: [filter()] };
    return f;
  }

  function sort(): [string, 1 | -1][] {
    const y = r();
    const dir = () => (r() < 0.5 ? 1 : -1);
    if (y < 0.3) return [];
    if (y < 0.55) return [[pick(["a", "b", "c", "u", "d"]), dir()]];
    if (y < 0.85) {
      const first = pick(["a", "b", "c"]);
      return [
        [first, dir()],
        [pick(["u", "a", "b", "c"].filter((f) => f !== first)), dir()],
      ];
    }
    return [
      [pick(["a", "b", "c"]), dir()],
      ["u", dir()],
    ];
  }

  return { filter, sort, pick };
}

/**
 * Projections of finds (undefined: none): inclusions of top-level fields, which the fast read path applies itself,
 * with and without _id and with every value that includes; and shapes just outside them, left to FerretDB.
 */
function projectionsOf(r: () => number): () => Doc | undefined {
  const pick = <T>(xs: T[]) => xs[Math.floor(r() * xs.length)];
  const includes = () => pick<unknown>([new Int32(1), true, new Long(2), new Double(1.5), new Double(-1)]);
  return () => {
    const y = r();
    if (y < 0.5) return undefined;
    if (y < 0.85) {
      const p: Doc = {};
      for (const f of [...FIELDS, "u", "missing"]) if (r() < 0.4) p[f] = includes();
      if (Object.keys(p).length === 0) p[pick(FIELDS)] = includes();
      const id = r();
      if (id < 0.25) p._id = pick<unknown>([new Int32(0), false, new Double(0)]);
      else if (id < 0.4) p._id = pick<unknown>([new Int32(1), true]);
      return p;
    }
    return pick<Doc>([
      { a: new Int32(0) },
      { _id: new Int32(0) },
      { _id: new Int32(1) },
      { "a.x": new Int32(1) },
      { "a.$": new Int32(1) },
      { a: new Int32(1), b: new Int32(0) },
      { a: new Int32(1), "": new Int32(1) },
      { $a: new Int32(1) },
      { a: "x" },
      { a: { $slice: new Int32(1) } },
      { a: new Double(Number.NaN) },
      { a: null },
    ]);
  };
}

// ---- Comparing answers.

const ejson = (v: unknown) => BSON.EJSON.stringify(v as Doc, { relaxed: false });

/** A value's place in BSON order as one string, for the types the pushdown orders (ties compare equal). */
function orderKey(v: unknown): string | undefined {
  if (v === undefined || v === null) return "0";
  if (v instanceof Int32) return `1:${BigInt(v.value)}`;
  if (v instanceof Long) return `1:${BigInt(v.toString())}`;
  if (v instanceof Double) {
    const d = v.value;
    return Number.isInteger(d) ? `1:${BigInt(d)}` : `1:d${d}`;
  }
  if (typeof v === "string") return `2:${v}`;
  if (v instanceof ObjectId) return `3:${v.toHexString()}`;
  if (typeof v === "boolean") return `4:${v}`;
  if (v instanceof Date) return `5:${v.getTime()}`;
  return undefined;
}

/**
 * Whether two answers to a sorted query agree: the same sort keys in order; the same documents within every run of
 * equal keys, except runs the page may cut (its first when skipping, its last when full).
 */
function sameSorted(a: Doc[], b: Doc[], sortSpec: [string, number][], cutStart: boolean, cutEnd: boolean): string {
  if (a.length !== b.length) return `lengths ${a.length} and ${b.length}`;
  const keyOf = (d: Doc) => {
    const parts = sortSpec.map(([f]) => orderKey(d[f]));
    return parts.includes(undefined) ? undefined : JSON.stringify(parts);
  };
  const ka = a.map(keyOf);
  const kb = b.map(keyOf);
  if (ka.includes(undefined) || kb.includes(undefined)) return "different order with keys of other types";
  for (let i = 0; i < ka.length; i++) if (ka[i] !== kb[i]) return `sort keys differ at ${i}: ${ka[i]} / ${kb[i]}`;
  for (let start = 0; start < ka.length;) {
    let end = start;
    while (end < ka.length && ka[end] === ka[start]) end++;
    const cut = (cutStart && start === 0) || (cutEnd && end === ka.length);
    if (!cut) {
      const sa = a.slice(start, end).map(ejson).sort();
      const sb = b.slice(start, end).map(ejson).sort();
      if (JSON.stringify(sa) !== JSON.stringify(sb)) return `documents with keys ${ka[start]} differ`;
    }
    start = end;
  }
  return "";
}

async function outcome<T>(run: () => Promise<T>): Promise<{ value?: T; error?: string }> {
  try {
    return { value: await run() };
  } catch (err) {
    return {
      error: String((err as { code?: number }).code ?? (err as Error).message)
        // The server's name in a network error: an address, or the driver's id of a Unix socket.
        .replace(/:\d+|\b[0-9a-f]{32}\b/g, "")
        .replace(/connection \d+/g, "connection"),
    };
  }
}

describe("FerretDB pushdown against FerretDB's own evaluation", () => {
  const dirs: string[] = [];
  let pushed: EmbeddedDatabase;
  let stock: EmbeddedDatabase;
  let clientA: mongo.MongoClient;
  let clientB: mongo.MongoClient;

  beforeAll(async () => {
    for (let i = 0; i < 2; i++) dirs.push(fs.mkdtempSync(path.join(os.tmpdir(), "project-service-pushdown-")));
    [pushed, stock] = await Promise.all([
      startFerretDb(dirs[0], () => undefined, { readpath: "check", crud: false }),
      startFerretDb(dirs[1], () => undefined, { pushdown: false, crud: false }),
    ]);
    clientA = await mongo.MongoClient.connect(pushed.uri, { promoteValues: false });
    clientB = await mongo.MongoClient.connect(stock.uri, { promoteValues: false });
  });
  afterAll(async () => {
    await Promise.all([clientA?.close(), clientB?.close()]);
    await Promise.all([pushed?.stop(), stock?.stop()]);
    for (const dir of dirs) fs.rmSync(dir, { recursive: true, force: true });
  });

  /** Fills the same collection in both servers. */
  async function collections(name: string, docs: Doc[]): Promise<[mongo.Collection, mongo.Collection]> {
    const pair = [clientA, clientB].map((c) => c.db("pushdown").collection(name)) as [
      mongo.Collection,
      mongo.Collection,
    ];
    for (const c of pair) {
      await c.createIndex({ a: 1 });
      await c.createIndex({ b: 1, a: 1 });
      await c.createIndex({ c: -1, u: 1 });
      await c.createIndex({ u: 1 }, { unique: true });
      for (let i = 0; i < docs.length; i += 200) await c.insertMany(docs.slice(i, i + 200));
    }
    return pair;
  }

  async function compareQueries(name: string, seed: number, mixed: boolean) {
    const r = rng(seed);
    const [a, b] = await collections(name, makeDocs(r, DOCS_PER_COLLECTION, mixed));
    const q = makeQueries(r);
    const projectionRng = rng(seed + 7);
    const projections = projectionsOf(projectionRng);
    const failures: string[] = [];
    let aggregatesCut = 0;
    let sortedAndCut = 0;
    let pushedDown = 0;
    let merged = 0;
    let projected = 0;

    for (let i = 0; i < QUERIES_PER_COLLECTION; i++) {
      const filter = q.filter();
      const kind = r();
      const label = `${name} #${i} ${ejson(filter)}`;

      if (kind < 0.7) {
        let sortSpec = q.sort();
        if (r() < 0.15) {
          // The shape of the service's page of several teachers' projects: an $in on an index's first field, sorted
          // by its next field.
          const [field, next] = q.pick([
            ["b", "a"],
            ["c", "u"],
          ]);
          filter[field] = { $in: Array.from({ length: 2 + Math.floor(r() * 4) }, () => q.pick(SCALARS.slice(0, 40))) };
          sortSpec = [[next, r() < 0.5 ? 1 : -1]];
          // Half of them alone (the shape of a page under a row rule), some with a range on the sort key (its keyset
          // page): these are read as a merge of one read per value.
          if (r() < 0.5) {
            for (const key of Object.keys(filter)) if (key !== field) delete filter[key];
            if (r() < 0.4) filter[next] = { [q.pick(["$gt", "$lt"])]: q.pick(SCALARS.slice(0, 20)) };
          }
        }
        const skip = r() < 0.5 ? 0 : Math.floor(r() * 40);
        const limit = r() < 0.3 ? 0 : 1 + Math.floor(r() * 30);
        // From their own generator, so the filters, sorts and pages stay those of the queries without them.
        const projection = projections();
        const batchSize = projectionRng() < 0.2 ? 1 + Math.floor(projectionRng() * 12) : undefined;
        const find = (c: mongo.Collection) =>
          c
            .find(filter, { sort: sortSpec.length ? sortSpec : undefined, skip, limit, projection, batchSize })
            .toArray()
            .then((docs) => docs as Doc[]);
        const [ra, rb] = await Promise.all([outcome(() => find(a)), outcome(() => find(b))]);
        const what =
          `${name} #${i} ${ejson(filter)} sort ${JSON.stringify(sortSpec)} skip ${skip} limit ${limit}` +
          ` projection ${ejson(projection ?? null)} batchSize ${batchSize}`;
        if (projection) projected++;
        if (ra.error !== rb.error) {
          failures.push(`${what}: errors ${ra.error} / ${rb.error}`);
          continue;
        }
        if (ra.error) continue;
        // Equal, or in an order a sort leaves open (ties).
        const differ = (x: Doc[], y: Doc[]) =>
          ejson(x) === ejson(y)
            ? ""
            : sortSpec.length
              ? sameSorted(x, y, sortSpec, skip > 0, limit > 0 && y.length === limit)
              : `${ejson(x)} / ${ejson(y)}`;
        const why = differ(ra.value!, rb.value!);
        if (why) failures.push(`${what}: ${why}`);
        // The same page as an aggregation's first stages ($match, $sort, $skip, $limit): cut alike, as a find is.
        const pipeline = [
          { $match: filter },
          ...(sortSpec.length ? [{ $sort: Object.fromEntries(sortSpec) }] : []),
          ...(skip ? [{ $skip: skip }] : []),
          ...(limit ? [{ $limit: limit }] : []),
        ];
        const [pa, pb] = await Promise.all([
          outcome(() => a.aggregate(pipeline).toArray()),
          outcome(() => b.aggregate(pipeline).toArray()),
        ]);
        const aggregated = `${name} #${i} aggregate ${ejson(pipeline)}`;
        if (pa.error !== pb.error) failures.push(`${aggregated}: errors ${pa.error} / ${pb.error}`);
        else if (!pa.error) {
          const whyAggregated = differ(pa.value!, pb.value!);
          if (whyAggregated) failures.push(`${aggregated}: ${whyAggregated}`);
        }
        if (sortSpec.length && limit > 0) {
          sortedAndCut++;
          const explained = await clientA.db("pushdown").command({
            explain: {
              find: name,
              filter,
              sort: Object.fromEntries(sortSpec),
              skip: new Long(skip),
              limit: new Long(limit),
            },
          });
          if (explained.limitPushdown === true && explained.sortPushdown === true) pushedDown++;
          const explainedPipeline = await clientA
            .db("pushdown")
            .command({ explain: { aggregate: name, pipeline, cursor: {} } });
          if (explainedPipeline.limitPushdown === true && explainedPipeline.sortPushdown === true) aggregatesCut++;
          if (String(explained.queryPlanner?.SQL).startsWith("-- merge of ")) merged++;
        }
      } else if (kind < 0.85) {
        const options =
          r() < 0.5 ? {} : { skip: Math.floor(r() * 20), ...(r() < 0.5 ? { limit: 1 + Math.floor(r() * 20) } : {}) };
        const [ca, cb] = await Promise.all([
          outcome(() => a.countDocuments(filter, options)),
          outcome(() => b.countDocuments(filter, options)),
        ]);
        if (ejson(ca) !== ejson(cb))
          failures.push(
            `${label} countDocuments ${JSON.stringify(options)}: ${ca.value ?? ca.error} / ${cb.value ?? cb.error}`,
          );
      } else if (kind < 0.93) {
        const command = {
          count: name,
          query: filter,
          ...(r() < 0.5 ? { skip: Math.floor(r() * 10), limit: Math.floor(r() * 10) } : {}),
        };
        const [ca, cb] = await Promise.all([
          outcome(() => clientA.db("pushdown").command(command)),
          outcome(() => clientB.db("pushdown").command(command)),
        ]);
        if (ejson(ca) !== ejson(cb)) failures.push(`${label} count command: ${ejson(ca)} / ${ejson(cb)}`);
      } else {
        const group = q.pick([
          { $group: { _id: null, n: { $sum: 1 } } },
          { $group: { _id: "all", total: { $sum: 1 } } },
          { $group: { _id: "$a", n: { $sum: 1 } } },
          { $group: { _id: new Int32(1), n: { $sum: new Int32(2) } } },
        ]);
        const pipeline = [
          { $match: filter },
          ...(r() < 0.3 ? [{ $skip: new Int32(3) }, { $limit: new Int32(5) }] : []),
          group,
        ];
        const [ga, gb] = await Promise.all([
          outcome(() => a.aggregate(pipeline).toArray()),
          outcome(() => b.aggregate(pipeline).toArray()),
        ]);
        if (ejson(ga) !== ejson(gb))
          failures.push(`${label} aggregate ${ejson(pipeline)}: ${ejson(ga)} / ${ejson(gb)}`);
      }
    }
    return { failures, sortedAndCut, pushedDown, aggregatesCut, merged, projected };
  }

  it(
    "when thousands of random queries run on documents of the modelled types, then both servers answer alike, and most sorted pages are cut by SQLite",
    async () => {
      const failures: string[] = [];
      let sortedAndCut = 0;
      let pushedDown = 0;
      let aggregatesCut = 0;
      let merged = 0;
      let projected = 0;
      for (let k = 0; k < COLLECTIONS; k++) {
        const run = await compareQueries(`scalars${k}`, 20260101 + k, false);
        failures.push(...run.failures);
        sortedAndCut += run.sortedAndCut;
        pushedDown += run.pushedDown;
        aggregatesCut += run.aggregatesCut;
        merged += run.merged;
        projected += run.projected;
      }
      expect(failures.slice(0, 10)).toEqual([]);
      // Proof that projections were compared (about half of the finds; the fast path applies most of them).
      expect(projected).toBeGreaterThan(200);
      // Proof that the exact path ran: most sorted, limited finds were cut in SQLite (the others filter on fields
      // or with operators the pushdown leaves to FerretDB).
      expect(sortedAndCut).toBeGreaterThan(100);
      expect(pushedDown / sortedAndCut).toBeGreaterThan(0.4);
      // The same pages as aggregations ($match, $sort, $skip, $limit) were cut in SQLite as often as the finds.
      expect(aggregatesCut).toBe(pushedDown);
      // Proof that pages of an $in were read as a merge of one read per value, and compared.
      expect(merged).toBeGreaterThan(20);
    },
    RANDOM_QUERIES_TIMEOUT,
  );

  it(
    "when some documents hold arrays, dates or documents in the queried fields, then both servers answer alike",
    async () => {
      const failures: string[] = [];
      for (let k = 0; k < COLLECTIONS; k++)
        failures.push(...(await compareQueries(`mixed${k}`, 20260202 + k, true)).failures);
      expect(failures.slice(0, 10)).toEqual([]);
    },
    RANDOM_QUERIES_TIMEOUT,
  );

  it("when indexed fields are named at the edges of what a sort key can name, then both servers answer alike and the pushdown takes the nameable ones", async () => {
    // A sort key names a field inside SQL text when it matches ^[A-Za-z_][A-Za-z0-9_-]{0,62}$ (metadata.SafeField).
    const nameable = ["_", "x-1", "Z9_-", "a".repeat(63)];
    const others = ["1a", "-a", "a b", "é", "a$", "a".repeat(64)];
    const answers: string[][] = [];
    const pushed: boolean[][] = [];
    for (const client of [clientA, clientB]) {
      const c = client.db("pushdown").collection<{ _id: number }>("names");
      await c.drop().catch(() => undefined);
      for (const field of [...nameable, ...others]) await c.createIndex({ [field]: 1 });
      await c.insertMany(
        Array.from({ length: 30 }, (_, i) => ({
          _id: i,
          ...Object.fromEntries([...nameable, ...others].map((f, k) => [f, (i * (k + 3)) % 7])),
        })),
      );
      const seen: string[] = [];
      const explained: boolean[] = [];
      for (const field of [...nameable, ...others]) {
        const filter = { [field]: { $gte: 3 } };
        const found = await c
          .find(filter)
          .sort({ [field]: -1, _id: 1 })
          .limit(5)
          .toArray();
        seen.push(`${field}: ${ejson(found)}`);
        explained.push(((await c.find(filter).explain()) as { filterPushdown?: boolean }).filterPushdown === true);
      }
      answers.push(seen);
      pushed.push(explained);
    }
    expect(answers[0]).toEqual(answers[1]);
    expect(pushed[0]).toEqual([...nameable.map(() => true), ...others.map(() => false)]);
  });

  it("when a queried field gains, then loses, a value of another type, then each read answers as FerretDB's own for the documents stored then", async () => {
    // The check for another type is a column of the read's own statement: its answer must come with every read, not
    // from an earlier one. Each step's reads: an equality alone, a sorted page of it, a page of an $in on the unique
    // field, a range, an equality nothing matches (no row, so no answer from the column), and a page by aggregation.
    type Gains = mongo.Collection<{ _id: number; a?: unknown; u?: unknown }>;
    const steps: [string, (c: Gains) => Promise<unknown>][] = [
      ["ints only", async () => undefined],
      ["an array holding 5 in `a`", (c) => c.insertOne({ _id: 100, a: [new Int32(5), new Int32(9)], u: 100 })],
      // A document sorts after every number: first in the page sorted by `u` descending.
      ["a document in `u`", (c) => c.updateOne({ _id: 5 }, { $set: { u: { n: 5 } } })],
      ["both back to ints", (c) => c.deleteOne({ _id: 100 }).then(() => c.updateOne({ _id: 5 }, { $set: { u: 5 } }))],
    ];
    const reads = (c: Gains) =>
      Promise.all([
        c.find({ a: 5 }).toArray(),
        c.find({ a: 5 }, { sort: { u: -1 }, limit: 3 }).toArray(),
        c.find({ u: { $in: [1, 3, 5, 100] } }, { sort: { u: 1 }, limit: 3 }).toArray(),
        c.find({ a: { $gte: 5 } }, { sort: { a: 1, _id: 1 }, skip: 1, limit: 4 }).toArray(),
        c.find({ a: 12345 }, { sort: { a: 1 }, limit: 2 }).toArray(),
        c.aggregate([{ $match: { a: 5 } }, { $sort: { u: 1 } }, { $limit: 2 }]).toArray(),
      ]);
    const seen: string[][] = [[], []];
    for (const [k, client] of [clientA, clientB].entries()) {
      const c: Gains = client.db("pushdown").collection("gains");
      await c.drop().catch(() => undefined);
      await c.createIndex({ a: 1 });
      await c.createIndex({ u: 1 }, { unique: true });
      await c.insertMany(Array.from({ length: 40 }, (_, i) => ({ _id: i, a: new Int32(i % 8), u: i })));
      for (const [name, step] of steps) {
        await step(c);
        seen[k].push(`${name}: ${ejson(await reads(c))}`);
      }
    }
    expect(seen[0]).toEqual(seen[1]);
    // The array and the document were found by the reads of their steps.
    const array = '"_id":{"$numberInt":"100"}';
    expect(seen[0][1]).toContain(array);
    expect(seen[0][2]).toContain('"u":{"n":');
    expect(seen[0][3]).not.toContain(array);
  });

  it("when random updates and deletes run, then both servers change the same documents", async () => {
    const r = rng(20260303);
    const [a, b] = await collections("writes", makeDocs(r, 400, true));
    const q = makeQueries(r);
    const failures: string[] = [];
    for (let i = 0; i < 150; i++) {
      const filter = q.filter();
      // deleteMany rarely, so that documents remain.
      const op = q.pick([
        "updateMany",
        "updateOne",
        "deleteOne",
        "updateMany",
        "updateOne",
        "deleteOne",
        "findOneAndUpdate",
        "deleteMany",
      ] as const);
      const value = q.pick(SCALARS.filter((v) => v !== undefined));
      const run = (c: mongo.Collection): Promise<unknown> => {
        switch (op) {
          case "updateMany":
            return c.updateMany(filter, { $set: { w: new Int32(i) } });
          case "updateOne":
            return c.updateOne(filter, { $set: { a: value } });
          case "deleteOne":
            return c.deleteOne(filter);
          case "deleteMany":
            return c.deleteMany(filter);
          case "findOneAndUpdate":
            return c.findOneAndUpdate(filter, { $set: { w: new Int32(-i) } }, { returnDocument: "after" });
        }
      };
      const [ra, rb] = await Promise.all([outcome(() => run(a)), outcome(() => run(b))]);
      if (ejson(ra) !== ejson(rb)) failures.push(`${op} ${ejson(filter)}: ${ejson(ra)} / ${ejson(rb)}`);
    }
    const [all, allB] = await Promise.all([a.find().toArray(), b.find().toArray()]);
    expect(failures.slice(0, 10)).toEqual([]);
    expect(ejson(all)).toEqual(ejson(allB));
  });
});
