// npm run db:conformance: MongoDB's unified-format tests run by scripts/conformance. Hand-written fixtures
// (tests/fixtures/conformance, laid out as a checkout of mongodb/specifications) run against the run's database and
// report one of each result: passed, failed with its reason, skipped with its reason. Then the command itself
// starts the embedded FerretDB, runs, writes its JSON, stops it and removes its files; and it exits 2 when it cannot
// run.
import { spawn, execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { MongoClient } from "mongodb";
import { runConformance, type ConformanceReport } from "../../scripts/conformance/conformance-run";
import { fileLines } from "../../scripts/conformance/conformance-report";
import type { TestResult } from "../../scripts/conformance/test-outcome";
import { testMongoUri } from "../helpers/database";

const REPO = path.resolve(__dirname, "../..");
const FIXTURES = path.join(REPO, "tests", "fixtures", "conformance");
/** The database every fixture file works in. */
const FIXTURE_DB = "conformance-fixtures";

async function dropFixtureDatabase(uri: string): Promise<void> {
  const client = new MongoClient(uri);
  try {
    await client.db(FIXTURE_DB).dropDatabase();
  } finally {
    await client.close();
  }
}

describe("the unified-format runner, on the run's database", () => {
  let report: ConformanceReport;
  beforeAll(async () => {
    // killSessions off: the run's database is shared with the other test files.
    report = await runConformance({ checkout: FIXTURES, uri: testMongoUri(), killSessions: false });
  });
  afterAll(() => dropFixtureDatabase(testMongoUri()));

  function result(file: string, description: string): TestResult {
    const found = report.files.find((f) => f.file === file)?.tests.find((t) => t.description === description);
    if (!found) throw new Error(`no result for ${file}: ${description}`);
    return found;
  }

  it("when a test's results and outcome match, then it passes, with numbers of any type and the $$ operators", () => {
    expect(result("runner-cases.json", "passes: insertOne then find")).toEqual({
      description: "passes: insertOne then find",
      status: "passed",
    });
    expect(result("runner-cases.json", "passes: numbers of any type and the matching operators").status).toBe("passed");
  });

  it("when a result differs, then the test fails with the operation, the place and both values", () => {
    expect(result("runner-cases.json", "fails: a wrong result")).toMatchObject({
      status: "failed",
      reason: "operation 1 (countDocuments on collection0): result expected 5, got 1",
    });
    expect(result("runner-cases.json", "fails: a nested document with a field the test does not expect")).toMatchObject(
      {
        status: "failed",
        reason: 'operation 2 (find on collection0): result at [0].sub: unexpected field(s) b in {"a":1,"b":2}',
      },
    );
  });

  it("when the collection's documents after the test differ from its outcome, then it fails naming the document", () => {
    expect(result("runner-cases.json", "fails: the outcome differs")).toMatchObject({
      status: "failed",
      reason: `outcome of ${FIXTURE_DB}.coll0: document 1 at x: expected 99, got 12`,
      details: 'expected [{"_id":1,"x":99}]\nactual [{"_id":1,"x":12}]',
    });
  });

  it("when an expected error comes, then it is matched by code, code name and labels, and a missing label fails", () => {
    expect(
      result("runner-cases.json", "passes: an expected error matched by code, code name and the labels it lacks")
        .status,
    ).toBe("passed");
    const missingLabel = result("runner-cases.json", "fails: an expected label is missing");
    expect(missingLabel.status).toBe("failed");
    expect(missingLabel.reason).toMatch(
      /^operation 1 \(insertOne on collection0\): expected error: the label TransientTransactionError, got no label on .*duplicate key/,
    );
    expect(result("runner-cases.json", "fails: an error was expected")).toMatchObject({
      status: "failed",
      reason: expect.stringMatching(/^operation 1 \(insertOne on collection0\): expected an error, it succeeded with /),
    });
  });

  it("when a test has an expectEvents block, then its operations and outcome decide, and the block is listed unchecked", () => {
    expect(result("runner-cases.json", "passes: the expectEvents block is not checked")).toEqual({
      description: "passes: the expectEvents block is not checked",
      status: "passed",
      unchecked: ["expectEvents"],
    });
  });

  it("when the database does not claim the server version or topology a test needs, then it is skipped, saying why", () => {
    expect(result("runner-cases.json", "skipped: needs a newer server")).toMatchObject({
      status: "skipped",
      reason: expect.stringMatching(/^needs server version >= 99\.0 \(the database claims \d+\.\d+\.\d+\)$/),
    });
    expect(result("runner-cases.json", "skipped: needs a sharded cluster")).toMatchObject({
      status: "skipped",
      reason: expect.stringMatching(/^needs a sharded topology \(the database is (single|replicaset)\)$/),
    });
    const newer = report.files.find((f) => f.file === "newer-server.json")!;
    expect(newer.tests.map((t) => t.status)).toEqual(["skipped", "skipped"]);
    expect(fileLines(newer, false)).toEqual([
      "crud/newer-server.json: 0 passed / 0 failed / 2 skipped",
      expect.stringMatching(/^ {2}skipped all 2: needs server version >= 99\.0 \(the database claims /),
    ]);
  });

  it("when a test needs what the runner cannot do, then it is skipped with that reason, never passed", () => {
    expect(result("runner-cases.json", "skipped: an assertion on command events")).toMatchObject({
      status: "skipped",
      reason:
        "assertSameLsidOnLastTwoCommands: it reads the command events the driver sent, which this runner does not record",
    });
    expect(result("runner-cases.json", "skipped: an operation the runner does not know")).toMatchObject({
      status: "skipped",
      reason: "the collection operation frobnicate is not supported by this runner",
    });
    expect(result("runner-cases.json", "skipped: an argument the runner does not know")).toMatchObject({
      status: "skipped",
      reason: "the argument(s) fastButWrong of countDocuments are not supported by this runner",
    });
    expect(result("runner-cases.json", "skipped: the file says so")).toMatchObject({
      status: "skipped",
      reason: "the test file skips it: a reason of the file's own",
    });
    expect(result("schema-version-2.json", "any")).toMatchObject({
      status: "skipped",
      reason: expect.stringMatching(/^schema version 2\.0 is not supported by this runner/),
    });
  });

  it("when a test uses a session entity, then its writes, its transaction state and the collection are checked", () => {
    expect(result("sessions.json", "passes: a write in a session, outside any transaction").status).toBe("passed");
    expect(result("sessions.json", "skipped: pins a session to a mongos").status).toBe("skipped");
  });

  it("when --only is given, then only the matching tests run", async () => {
    const only = await runConformance({
      checkout: FIXTURES,
      uri: testMongoUri(),
      killSessions: false,
      only: /runner-cases\.json: fails: a wrong/,
    });
    expect(only.files.map((f) => [f.file, f.tests.map((t) => t.description)])).toEqual([
      ["runner-cases.json", ["fails: a wrong result"]],
    ]);
  });
});

function runCommand(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, [path.join(REPO, "dist/scripts/db-conformance.js"), ...args], {
    cwd: REPO,
    env: { PATH: process.env.PATH, HOME: process.env.HOME },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  return new Promise((resolve) => child.on("exit", (code) => resolve({ code, stdout, stderr })));
}

describe("npm run db:conformance", () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "db-conformance-test-"));
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  it("when run without --uri, then it starts the embedded FerretDB for tests, runs, writes --json, and stops it", async () => {
    const json = path.join(dir, "results.json");

    const { code, stdout, stderr } = await runCommand([FIXTURES, "--only", "^transactions/", "--json", json]);

    expect(code).toBe(0);
    // The embedded database is "single" today, a replica set of one once it claims to be one.
    expect(stdout.split("\n")).toEqual([
      "transactions/sessions.json: 1 passed / 0 failed / 1 skipped",
      expect.stringMatching(
        /^ {2}skipped: "skipped: pins a session to a mongos": needs a sharded or load-balanced topology \(the database is (single|replicaset)\)$/,
      ),
      "",
      "crud: 0 passed / 0 failed / 0 skipped (0 tests in 0 files)",
      "transactions: 1 passed / 0 failed / 1 skipped (2 tests in 1 file)",
      "overall: 1 passed / 0 failed / 1 skipped (2 tests)",
      "",
    ]);
    const written = JSON.parse(fs.readFileSync(json, "utf8"));
    expect(written.totals.transactions).toEqual({ passed: 1, failed: 0, skipped: 1, files: 1 });
    expect(written.files[0].tests[1]).toEqual({
      description: "skipped: pins a session to a mongos",
      status: "skipped",
      reason: expect.stringMatching(/^needs a sharded or load-balanced topology/),
    });
    // Its data folder (named in the last line) is gone, and no FerretDB serves it any more.
    const dataDir = /SQLite in (\S+)\)/.exec(stderr)?.[1];
    expect(dataDir).toMatch(/db-conformance-/);
    expect(fs.existsSync(dataDir!)).toBe(false);
    expect(execFileSync("ps", ["-eo", "args"], { encoding: "utf8" })).not.toContain(dataDir);
  });

  it("when the checkout lacks the spec folders, then it exits 2 with one line naming the folder", async () => {
    const { code, stdout, stderr } = await runCommand([dir]);

    expect(code).toBe(2);
    expect(stdout).toBe("");
    expect(stderr).toBe(
      `db:conformance: no such folder: ${path.join(dir, "source/crud/tests/unified")} (give the path of a checkout of mongodb/specifications)\n`,
    );
  });

  it("when an option is wrong, then it exits 2 with the usage", async () => {
    const { code, stderr } = await runCommand([FIXTURES, "--stock", "--uri", "mongodb://127.0.0.1:1/"]);

    expect(code).toBe(2);
    expect(stderr.split("\n")[0]).toBe(
      "db:conformance: --stock starts the embedded FerretDB; it does not go with --uri",
    );
    expect(stderr.split("\n")[1]).toMatch(/^usage: npm run db:conformance -- <checkout of mongodb\/specifications>/);
  });
});
