// npm run db:conformance -- <checkout of mongodb/specifications> [--uri U | --stock] [--only RE] [--json F] [--verbose]:
// runs MongoDB's unified-format tests of source/crud/tests/unified and source/transactions/tests/unified against the
// embedded FerretDB, started here for tests in a temporary folder and stopped at the end (--stock: with every patch
// switched off), or against the server --uri names. Prints per file passed / failed / skipped with the reasons, then
// totals. Exits 0 when it ran (failures are results), 2 when it could not run.
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { startFerretDb, stockFerretDbOptions } from "../src/db/ferretdb";
import type { EmbeddedDatabase } from "../src/db/embedded-server";
import { parseCommandLine, USAGE } from "./conformance/cli-options";
import { fileLines, jsonReport, totalLines } from "./conformance/conformance-report";
import { ConformanceSetupError, listSpecFiles, runConformance } from "./conformance/conformance-run";
import { RunStopped } from "./conformance/test-outcome";

async function main(): Promise<number> {
  const say = (line: string) => process.stdout.write(`${line}\n`);
  const note = (line: string) => process.stderr.write(`${line}\n`);
  const line = parseCommandLine(process.argv.slice(2));
  if (typeof line === "string") {
    note(`db:conformance: ${line}`);
    note(USAGE);
    return 2;
  }
  // npm runs the script in the package's folder; paths the user typed are relative to where they typed them.
  const typedIn = process.env.INIT_CWD ?? process.cwd();
  const checkout = path.resolve(typedIn, line.checkout);
  const jsonFile = line.json && path.resolve(typedIn, line.json);
  let database: EmbeddedDatabase | undefined;
  let dataDir: string | undefined;
  try {
    listSpecFiles(checkout);
    let uri = line.uri;
    let description = line.uri ? `the server at ${line.uri}` : "";
    if (!uri) {
      dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "db-conformance-"));
      try {
        database = await startFerretDb(dataDir, note, {
          ...(line.stock ? stockFerretDbOptions() : {}),
          testCommands: true,
        });
      } catch (err) {
        throw new ConformanceSetupError(`the embedded FerretDB did not start: ${(err as Error).message}`);
      }
      uri = database.uri;
      description = `${database.description}${line.stock ? ", every patch switched off" : ""}`;
    }
    const report = await runConformance({
      checkout,
      uri,
      only: line.only,
      onFile: (result) => fileLines(result, line.verbose).forEach(say),
    });
    totalLines(report).forEach(say);
    note(
      `Ran against ${description} (version ${report.server.version}, ${report.server.topology}) in ` +
        `${(report.durationMs / 1000).toFixed(1)} s`,
    );
    if (jsonFile) {
      fs.writeFileSync(jsonFile, `${JSON.stringify(jsonReport(report, checkout), null, 2)}\n`);
      note(`Results written to ${jsonFile}`);
    }
    return 0;
  } catch (err) {
    const known = err instanceof ConformanceSetupError || err instanceof RunStopped;
    note(`db:conformance: ${known ? err.message : (err as Error).stack}`);
    return 2;
  } finally {
    await database?.stop().catch(() => undefined);
    if (dataDir) fs.rmSync(dataDir, { recursive: true, force: true });
  }
}

void main().then((code) => {
  process.exitCode = code;
});
