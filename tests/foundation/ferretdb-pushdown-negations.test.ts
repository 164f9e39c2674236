// $ne and $nin in the embedded FerretDB's pushdown (part of pushdown.patch's concern, switch
// FERRETDB_EMBEDDED_PUSHDOWN_NEGATIONS): "what is still open" (project_status $ne "done") and "none of these" are exact
// in SQLite on a checked field, null and missing fields matching as MongoDB's $ne and $nin match them, so a sorted page
// is cut in SQL and a count subtracts an index search from another; with the switch off they are FerretDB's again.
// tests/foundation/ferretdb-pushdown.test.ts compares random $ne and $nin filters with FerretDB's own answers too.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { mongo } from "mongoose";
import { startFerretDb } from "../../src/db/ferretdb";
import type { EmbeddedDatabase } from "../../src/db/embedded";

describe("$ne and $nin in the embedded FerretDB's pushdown", () => {
  const dirs: string[] = [];
  const servers: EmbeddedDatabase[] = [];
  const clients: mongo.MongoClient[] = [];

  beforeAll(async () => {
    for (let i = 0; i < 3; i++) dirs.push(fs.mkdtempSync(path.join(os.tmpdir(), "project-service-negations-")));
    servers.push(
      ...(await Promise.all([
        startFerretDb(dirs[0], () => undefined, { readpath: "check" }),
        startFerretDb(dirs[1], () => undefined, { pushdownNegations: false }),
        startFerretDb(dirs[2], () => undefined, { pushdown: false }),
      ])),
    );
    for (const server of servers) clients.push(await mongo.MongoClient.connect(server.uri));
    const statuses = ["done", "active", "review", null, undefined, 7, "done"];
    const docs = Array.from({ length: 240 }, (_, n) => {
      const s = statuses[n % statuses.length];
      return s === undefined ? { _id: n, n, due: n % 17 } : { _id: n, n, due: n % 17, s };
    });
    for (const client of clients) {
      const c = client.db("negations").collection("c");
      await c.createIndex({ s: 1, n: 1 });
      await c.createIndex({ due: 1, n: 1 });
      await c.insertMany(docs as never[]);
    }
  });
  afterAll(async () => {
    await Promise.all(clients.map((c) => c.close()));
    await Promise.all(servers.map((s) => s.stop()));
    for (const dir of dirs) fs.rmSync(dir, { recursive: true, force: true });
  });

  const QUERIES: [string, mongo.Document, mongo.Document][] = [
    ["still open, by deadline", { s: { $ne: "done" } }, { due: 1, n: 1 }],
    ["set", { s: { $ne: null } }, { n: -1 }],
    ["none of two statuses", { s: { $nin: ["done", "review"] } }, { due: -1, n: -1 }],
    ["none of a status and null", { s: { $nin: ["active", null] } }, { n: 1 }],
    ["not a number, beside a range", { s: { $ne: 7 }, due: { $gte: 3, $lt: 9 } }, { due: 1, n: 1 }],
  ];

  it.each(QUERIES)("%s: the same page and count as FerretDB's own, cut in SQLite", async (_name, filter, sort) => {
    const pages = await Promise.all(
      clients.map((client) =>
        client.db("negations").collection("c").find(filter).sort(sort).skip(5).limit(20).toArray(),
      ),
    );
    expect(pages[0].length).toBe(20);
    expect(pages[0]).toEqual(pages[2]);
    expect(pages[1]).toEqual(pages[2]);
    const counts = await Promise.all(
      clients.map((client) => client.db("negations").collection("c").countDocuments(filter)),
    );
    expect(counts[0]).toBe(counts[2]);
    expect(counts[1]).toBe(counts[2]);
    const explain = async (client: mongo.MongoClient) =>
      (await client.db("negations").command({
        explain: { find: "c", filter, sort, skip: mongo.Long.fromNumber(5), limit: mongo.Long.fromNumber(20) },
      })) as { filterPushdown?: boolean; limitPushdown?: boolean };
    const pushed = await explain(clients[0]);
    expect({ filter: pushed.filterPushdown, limit: pushed.limitPushdown }).toEqual({ filter: true, limit: true });
    const off = await explain(clients[1]);
    expect(off.limitPushdown).toBe(false);
  });
});
