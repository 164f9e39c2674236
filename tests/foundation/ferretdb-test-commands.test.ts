// The embedded FerretDB's test commands: started for tests (FerretDbOptions.testCommands, as mongod with
// enableTestCommands), it accepts configureFailPoint and fails the commands the fail point names; started otherwise
// (as npm start starts it), configureFailPoint does not exist, even with FERRETDB_EMBEDDED_TEST_COMMANDS=on in the
// starting process's environment. A fail point that names an application fails only the commands of the clients that
// gave that name (drivers give it in their first hello, an OP_QUERY). And stockFerretDbOptions() switches every patch off.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { MongoClient } from "mongodb";
import { startFerretDb, stockFerretDbOptions, type FerretDbOptions } from "../../src/db/ferretdb";
import type { EmbeddedDatabase } from "../../src/db/embedded";

/** Runs `use` against a FerretDB started with these options, then stops it. */
async function withFerretDb<T>(options: FerretDbOptions, use: (server: EmbeddedDatabase) => Promise<T>): Promise<T> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "ferretdb-switches-"));
  const server = await startFerretDb(dir, () => undefined, options);
  try {
    return await use(server);
  } finally {
    await server.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/** What configureFailPoint answers (for `find`, once), then what a find answers. */
async function failingFind(options: FerretDbOptions): Promise<{ configured: string; find: string }> {
  return withFerretDb(options, async (server) => {
    const client = await new MongoClient(server.uri, { retryReads: false }).connect();
    try {
      const outcome = (run: Promise<unknown>) =>
        run.then(
          () => "ok",
          (err: { codeName?: string }) => err.codeName ?? "error",
        );
      const configured = await outcome(
        client.db("admin").command({
          configureFailPoint: "failCommand",
          mode: { times: 1 },
          data: { failCommands: ["find"], errorCode: 91 },
        }),
      );
      return { configured, find: await outcome(client.db("t").collection("c").findOne({})) };
    } finally {
      await client.close();
    }
  });
}

describe("the embedded FerretDB's test commands", () => {
  afterEach(() => {
    delete process.env.FERRETDB_EMBEDDED_TEST_COMMANDS;
  });

  it("when it is started for tests, then configureFailPoint is accepted and fails the command it names", async () => {
    expect(await failingFind({ testCommands: true })).toEqual({ configured: "ok", find: "ShutdownInProgress" });
  });

  it("when a fail point names an application, then it fails the commands of the clients that gave that name in their handshake, and only theirs", async () => {
    await withFerretDb({ testCommands: true }, async (server) => {
      const connect = (appName?: string) =>
        // Node's os for the driver: under Jest its own dynamic import of os fails, and it then sends no client metadata.
        new MongoClient(server.uri, {
          retryReads: false,
          runtimeAdapters: { os },
          ...(appName ? { appName } : {}),
        }).connect();
      const [named, other, unnamed] = await Promise.all([connect("the-named-one"), connect("another"), connect()]);
      try {
        await unnamed.db("admin").command({
          configureFailPoint: "failCommand",
          mode: "alwaysOn",
          data: { failCommands: ["find"], errorCode: 91, appName: "the-named-one" },
        });
        const find = (client: MongoClient) =>
          client
            .db("t")
            .collection("c")
            .findOne({})
            .then(
              () => "ok",
              (err: { codeName?: string }) => err.codeName ?? "error",
            );
        expect({ named: await find(named), other: await find(other), unnamed: await find(unnamed) }).toEqual({
          named: "ShutdownInProgress",
          other: "ok",
          unnamed: "ok",
        });
      } finally {
        await Promise.all([named.close(), other.close(), unnamed.close()]);
      }
    });
  });

  it("when it is started otherwise, then configureFailPoint does not exist, whatever the starting process's environment", async () => {
    process.env.FERRETDB_EMBEDDED_TEST_COMMANDS = "on";

    expect(await failingFind({})).toEqual({ configured: "CommandNotFound", find: "ok" });
  });

  it("when started with stockFerretDbOptions(), then every patch is switched off (where it listens, and its socket's folder, are no patch)", async () => {
    const switches = await withFerretDb(stockFerretDbOptions(), async (server) =>
      fs
        .readFileSync(`/proc/${server.pid}/environ`, "utf8")
        .split("\0")
        .filter((entry) => entry.startsWith("FERRETDB_EMBEDDED_") && !entry.startsWith("FERRETDB_EMBEDDED_SOCKET"))
        .sort(),
    );

    expect(switches).toEqual([
      "FERRETDB_EMBEDDED_ATOMIC=off",
      "FERRETDB_EMBEDDED_CRUD=off",
      "FERRETDB_EMBEDDED_ERASE=off",
      "FERRETDB_EMBEDDED_JOIN_CACHE=off",
      "FERRETDB_EMBEDDED_LOOKUP=off",
      "FERRETDB_EMBEDDED_PUSHDOWN=off",
      "FERRETDB_EMBEDDED_PUSHDOWN_DATES=off",
      "FERRETDB_EMBEDDED_PUSHDOWN_NEGATIONS=off",
      "FERRETDB_EMBEDDED_READPATH=off",
      "FERRETDB_EMBEDDED_REPLSET=off",
    ]);
  });
});
