// When the database is a FerretDB 1.x without the project's atomic writes (here the embedded program with its patch
// switched off, which answers buildInfo as a stock FerretDB does: ferretdbVersion, no embeddedAtomicWrites), without
// its $lookup (FERRETDB_EMBEDDED_LOOKUP=off: no embeddedLookup), without its replica set (FERRETDB_EMBEDDED_REPLSET=off:
// a standalone server), or without any of them (a stock FerretDB), then opening it fails at start with one line naming
// each thing it lacks; the patched program and MongoDB (a replica set) are accepted. A MongoDB before 5.0 (the
// answers of hello and buildInfo such a server gives) is refused with one line naming the version needed.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { openDatabase } from "../../src/persistence";
import { unfitServerMessage } from "../../src/db/database";
import type { EmbeddedDatabase } from "../../src/db/embedded";
import { startFerretDb, stockFerretDbOptions, type FerretDbOptions } from "../../src/db/ferretdb";

describe("a FerretDB without atomic conditional writes", () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "stock-ferretdb-"));
  let stock: EmbeddedDatabase;
  beforeAll(async () => {
    stock = await startFerretDb(dir, () => undefined, { atomic: false });
  }, 300_000);
  afterAll(async () => {
    await stock?.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it("when the service opens it, then start-up fails with one line naming what it lacks", async () => {
    const opening = openDatabase(stock.uri, { dbName: "refused" });

    await expect(opening).rejects.toThrow(/^the database is FerretDB \S+ without atomic conditional updates/);
    const message = await opening.catch((err: Error) => err.message);
    expect(message).not.toContain("\n");
  });

  it("when the service opens the run's database (the patched program, or MongoDB), then it is accepted", async () => {
    const db = await openDatabase(process.env.TEST_MONGODB_URI!, { dbName: `accepted_${process.pid}` });
    await db.connection.dropDatabase();
    await db.close();
  });
});

describe("a FerretDB without the aggregation stage $lookup", () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "no-lookup-ferretdb-"));
  let noLookup: EmbeddedDatabase;
  beforeAll(async () => {
    noLookup = await startFerretDb(dir, () => undefined, { lookup: false });
  }, 300_000);
  afterAll(async () => {
    await noLookup?.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it("when the service opens it, then start-up fails with one line naming $lookup", async () => {
    const opening = openDatabase(noLookup.uri, { dbName: "refused" });

    await expect(opening).rejects.toThrow(
      /^the database is FerretDB \S+ without the aggregation stage \$lookup, which/,
    );
  });
});

describe("a FerretDB without its replica set, or without every part of the patch (a stock FerretDB)", () => {
  const dirs: string[] = [];
  const servers: EmbeddedDatabase[] = [];
  async function start(options: FerretDbOptions): Promise<EmbeddedDatabase> {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "stock-ferretdb-"));
    dirs.push(dir);
    const server = await startFerretDb(dir, () => undefined, options);
    servers.push(server);
    return server;
  }
  afterAll(async () => {
    for (const server of servers) await server.stop();
    for (const dir of dirs) fs.rmSync(dir, { recursive: true, force: true });
  });

  it("when the service opens a standalone FerretDB, then start-up fails with one line naming the replica set", async () => {
    const standalone = await start({ replset: false });

    await expect(openDatabase(standalone.uri, { dbName: "refused" })).rejects.toThrow(
      /^the database is FerretDB \S+ without a replica set \(multi-document transactions\), which this service needs/,
    );
  }, 300_000);

  it("when the service opens a stock FerretDB, then one line names everything it lacks", async () => {
    const stock = await start(stockFerretDbOptions());

    const message = await openDatabase(stock.uri, { dbName: "refused" }).then(
      () => "opened",
      (err: Error) => err.message,
    );

    expect(message).toMatch(
      /^the database is FerretDB \S+ without a replica set \(multi-document transactions\), nor atomic conditional updates, \$inc and findAndModify, nor the aggregation stage \$lookup, which this service needs: /,
    );
    expect(message).not.toContain("\n");
  }, 300_000);
});

describe("a MongoDB before 5.0", () => {
  // No MongoDB runs here: these are the answers of hello and buildInfo that a replica set member of each version gives.
  const primary = { isWritablePrimary: true, setName: "rs0" };
  const buildInfo = (version: string) => ({ version, versionArray: [...version.split(".").map(Number), 0], ok: 1 });

  it("when the server is MongoDB 4.4, then start-up fails with one line naming the version it needs", () => {
    const message = unfitServerMessage(primary, buildInfo("4.4.29"));

    expect(message).toMatch(/^the database is MongoDB 4\.4\.29, and this service needs MongoDB 5\.0 or later \(/);
    expect(message).not.toContain("\n");
  });

  it("when the server is MongoDB 5.0 or later, then it is accepted", () => {
    expect(unfitServerMessage(primary, buildInfo("5.0.0"))).toBeUndefined();
    expect(unfitServerMessage(primary, buildInfo("8.0.4"))).toBeUndefined();
  });
});
