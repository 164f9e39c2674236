// FerretDbOptions.testCommands: the embedded FerretDB started for tests gets FERRETDB_EMBEDDED_TEST_COMMANDS=on in its
// environment (it then accepts configureFailPoint), and one started otherwise never inherits the variable; and
// stockFerretDbOptions() switches every patch off. Read from the program's environment (Linux's /proc).
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { startFerretDb, stockFerretDbOptions, type FerretDbOptions } from "../../src/db/ferretdb";

/** The FERRETDB_EMBEDDED_* variables of a FerretDB started with these options (and this process's environment). */
async function switchesOf(options: FerretDbOptions): Promise<string[]> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "ferretdb-switches-"));
  const server = await startFerretDb(dir, () => undefined, options);
  try {
    const environ = fs.readFileSync(`/proc/${server.pid}/environ`, "utf8").split("\0");
    return environ.filter((entry) => entry.startsWith("FERRETDB_EMBEDDED_")).sort();
  } finally {
    await server.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

describe("the embedded FerretDB's test commands", () => {
  afterEach(() => {
    delete process.env.FERRETDB_EMBEDDED_TEST_COMMANDS;
  });

  it("when it is started for tests, then FERRETDB_EMBEDDED_TEST_COMMANDS=on is set", async () => {
    expect(await switchesOf({ testCommands: true })).toEqual(["FERRETDB_EMBEDDED_TEST_COMMANDS=on"]);
  });

  it("when it is started otherwise, then the variable is not inherited from this process", async () => {
    process.env.FERRETDB_EMBEDDED_TEST_COMMANDS = "on";

    expect(await switchesOf({})).toEqual([]);
  });

  it("when started with stockFerretDbOptions(), then every patch is switched off", async () => {
    expect(await switchesOf({ ...stockFerretDbOptions(), testCommands: true })).toEqual([
      "FERRETDB_EMBEDDED_ATOMIC=off",
      "FERRETDB_EMBEDDED_CRUD=off",
      "FERRETDB_EMBEDDED_LOOKUP=off",
      "FERRETDB_EMBEDDED_PUSHDOWN=off",
      "FERRETDB_EMBEDDED_READPATH=off",
      "FERRETDB_EMBEDDED_REPLSET=off",
      "FERRETDB_EMBEDDED_TEST_COMMANDS=on",
    ]);
  });
});
