// The embedded FerretDB's erase concern (tools/ferretdb/patches/erase.patch, _added/.../embedded_erase.go), against the
// patched program itself, no mocks: once a document is deleted and its collection compacted, its text is in none of
// the data folder's files, neither the database file (secure_delete zeroes it in the table's and the indexes' pages)
// nor the write-ahead log (compact checkpoints and truncates it). The same program with the switch off keeps it.
import crypto from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { MongoClient } from "mongodb";
import { startFerretDb, type FerretDbOptions } from "../../src/db/ferretdb";
import { filesHolding } from "../helpers/files";

/** Stores documents, one of them holding `secret` in an indexed and a plain field, deletes it, compacts. */
async function deleteAndCompact(options: FerretDbOptions): Promise<{ dir: string; before: string[]; after: string[] }> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "ferretdb-erase-"));
  const server = await startFerretDb(dir, () => undefined, options);
  const client = await new MongoClient(server.uri, { serverSelectionTimeoutMS: 10_000 }).connect();
  const secret = `erase-me-${crypto.randomBytes(6).toString("hex")}`;
  try {
    const people = client.db("erase").collection<{ _id: string; email: string; name: string }>("people");
    await people.createIndex({ email: 1 }, { unique: true });
    await people.insertMany(
      Array.from({ length: 50 }, (_, i) => ({ _id: `p${i}`, email: `kept-${i}@example.org`, name: `Kept ${i}` })),
    );
    await people.insertOne({ _id: "gone", email: `${secret}@example.org`, name: `Name ${secret}` });
    // A change of the document before its deletion leaves an older version of its page in the log too.
    await people.updateOne({ _id: "gone" }, { $set: { name: `Renamed ${secret}` } });
    const before = filesHolding(dir, secret);

    await people.deleteOne({ _id: "gone" });
    await client.db("erase").command({ compact: "people" });

    expect(await people.countDocuments()).toBe(50);
    return { dir, before, after: filesHolding(dir, secret) };
  } finally {
    await client.close();
    await server.stop();
  }
}

describe("erasure on the embedded FerretDB", () => {
  const dirs: string[] = [];
  afterAll(() => {
    for (const dir of dirs) fs.rmSync(dir, { recursive: true, force: true });
  });

  it("when a document is deleted and its collection compacted, then its text is in none of the data folder's files", async () => {
    const { dir, before, after } = await deleteAndCompact({});
    dirs.push(dir);

    expect(before.length).toBeGreaterThan(0);
    expect(after).toEqual([]);
  }, 300_000);

  it("when the erase switch is off, then the deleted text stays in the files (what the concern changes)", async () => {
    const { dir, after } = await deleteAndCompact({ erase: false });
    dirs.push(dir);

    expect(after.length).toBeGreaterThan(0);
  }, 300_000);
});
