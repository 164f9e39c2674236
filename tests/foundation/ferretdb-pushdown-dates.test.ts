// Dates in the embedded FerretDB's pushdown (part of pushdown.patch's concern, switch FERRETDB_EMBEDDED_PUSHDOWN_DATES):
// a field holding dates (created_at, updated_at) is sorted, ranged and compared in SQLite from its index, with the
// same answers as FerretDB's own evaluation (the pushdown switched off), also beside values of other types in the
// same field (a date range matches only dates); with the switch off, such a field is left to FerretDB as before.
// tests/foundation/ferretdb-pushdown.test.ts compares random queries with dates among its values too.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { mongo } from "mongoose";
import { startFerretDb } from "../../src/db/ferretdb";
import type { EmbeddedDatabase } from "../../src/db/embedded";

const DAY = 86_400_000;

describe("dates in the embedded FerretDB's pushdown", () => {
  const dirs: string[] = [];
  const servers: EmbeddedDatabase[] = [];
  const clients: mongo.MongoClient[] = [];

  beforeAll(async () => {
    for (let i = 0; i < 3; i++) dirs.push(fs.mkdtempSync(path.join(os.tmpdir(), "project-service-dates-")));
    servers.push(
      ...(await Promise.all([
        startFerretDb(dirs[0], () => undefined, { readpath: "check" }),
        startFerretDb(dirs[1], () => undefined, { pushdownDates: false }),
        startFerretDb(dirs[2], () => undefined, { pushdown: false }),
      ])),
    );
    for (const server of servers) clients.push(await mongo.MongoClient.connect(server.uri));
    // 300 documents: dates on 40 days (ties), some before the epoch; every tenth holds another type or nothing.
    const docs = Array.from({ length: 300 }, (_, n) => {
      const at =
        n % 10 === 3
          ? [null, 7, "2024-01-01", true, undefined][n % 5]
          : new Date(Date.UTC(2024, 0, 1) + ((n * 7) % 40) * DAY - (n % 7 === 0 ? 60 * 365 * DAY : 0) + (n % 3));
      return at === undefined ? { _id: n, n } : { _id: n, n, at };
    });
    for (const client of clients) {
      const c = client.db("dates").collection("c");
      await c.createIndex({ at: 1, n: 1 });
      await c.insertMany(docs as never[]);
    }
  });
  afterAll(async () => {
    await Promise.all(clients.map((c) => c.close()));
    await Promise.all(servers.map((s) => s.stop()));
    for (const dir of dirs) fs.rmSync(dir, { recursive: true, force: true });
  });

  const from = new Date(Date.UTC(2024, 0, 10));
  const to = new Date(Date.UTC(2024, 0, 20));
  const QUERIES: [string, mongo.Document, mongo.Document, number, number][] = [
    ["sorted ascending, a page deep", {}, { at: 1, n: 1 }, 120, 20],
    ["sorted descending", {}, { at: -1, n: -1 }, 0, 25],
    ["a range, sorted", { at: { $gte: from, $lt: to } }, { at: 1, n: 1 }, 3, 10],
    ["after a position (a keyset page's range)", { at: { $gt: from } }, { at: -1, n: -1 }, 0, 10],
    ["up to a date: no booleans, strings or numbers", { at: { $lte: to } }, { at: 1, n: 1 }, 0, 100],
    ["an equality and an id range", { at: new Date(Date.UTC(2024, 0, 8) + 1), n: { $gt: 0 } }, { n: 1 }, 0, 10],
    ["an $in of dates", { at: { $in: [from, to, new Date(Date.UTC(2024, 0, 11))] } }, { at: 1, n: 1 }, 0, 50],
  ];

  it.each(QUERIES)(
    "%s: the same answer as FerretDB's own, cut in SQLite from the index",
    async (_name, filter, sort, skip, limit) => {
      const answers = await Promise.all(
        clients.map((client) =>
          client.db("dates").collection("c").find(filter).sort(sort).skip(skip).limit(limit).toArray(),
        ),
      );
      expect(answers[0].length).toBeGreaterThan(0);
      expect(answers[0]).toEqual(answers[2]);
      expect(answers[1]).toEqual(answers[2]);
      const explain = async (client: mongo.MongoClient) =>
        (await client.db("dates").command({
          explain: { find: "c", filter, sort, skip: mongo.Long.fromNumber(skip), limit: mongo.Long.fromNumber(limit) },
        })) as {
          sortPushdown?: boolean;
          limitPushdown?: boolean;
          queryPlanner?: { Plan?: string[] };
        };
      const pushed = await explain(clients[0]);
      expect({ sort: pushed.sortPushdown, limit: pushed.limitPushdown }).toEqual({ sort: true, limit: true });
      expect((pushed.queryPlanner?.Plan ?? []).some((line) => /^SCAN c_\S+$/.test(line))).toBe(false);
      // With dates switched off, a field holding dates is FerretDB's again: nothing of this query is cut in SQL.
      const off = await explain(clients[1]);
      expect({ sort: off.sortPushdown, limit: off.limitPushdown }).toEqual({ sort: false, limit: false });
    },
  );

  it("counts of a date range come from count(*) and equal FerretDB's", async () => {
    const filter = { at: { $gte: from, $lt: to } };
    const counts = await Promise.all(clients.map((c) => c.db("dates").collection("c").countDocuments(filter)));
    expect(counts[0]).toBeGreaterThan(0);
    expect(new Set(counts).size).toBe(1);
  });
});
