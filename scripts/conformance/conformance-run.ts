// One run of `npm run db:conformance`: the unified-format files of the two folders of a mongodb/specifications
// checkout (crud, then transactions; files in name order, tests in file order, one at a time), against one server.
import fs from "node:fs";
import path from "node:path";
import { MongoClient } from "mongodb";
import { readServerFacts, RequirementChecker, type ServerFacts } from "./server-requirements";
import { TestRunner } from "./test-runner";
import type { FileResult } from "./test-outcome";
import { loadTestFile, type TestCase, type TestFile } from "./unified-format";

/** The folders of the checkout this command runs, by the name it reports them under. */
export const SPEC_FOLDERS = [
  { name: "crud", path: path.join("source", "crud", "tests", "unified") },
  { name: "transactions", path: path.join("source", "transactions", "tests", "unified") },
] as const;

/** The run cannot start: a folder is missing, the server cannot be reached. The command exits 2 with its message. */
export class ConformanceSetupError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "ConformanceSetupError";
  }
}

export interface ConformanceOptions {
  /** The checkout of mongodb/specifications. */
  checkout: string;
  /** The server to run against. */
  uri: string;
  /** Only the tests whose "folder/file" or "file: description" it matches. */
  only?: RegExp;
  /** killAllSessions before the run and after each test with a transaction (default true; off where the server is shared). */
  killSessions?: boolean;
  /** Called with each file's results as soon as it has run. */
  onFile?: (result: FileResult) => void;
}

export interface ConformanceReport {
  server: ServerFacts;
  files: FileResult[];
  durationMs: number;
}

/** The folders' JSON files, checked before anything starts; throws ConformanceSetupError for a missing folder. */
export function listSpecFiles(checkout: string): { folder: string; file: string; fullPath: string }[] {
  const files: { folder: string; file: string; fullPath: string }[] = [];
  for (const folder of SPEC_FOLDERS) {
    const dir = path.join(checkout, folder.path);
    if (!fs.existsSync(dir) || !fs.statSync(dir).isDirectory()) {
      throw new ConformanceSetupError(`no such folder: ${dir} (give the path of a checkout of mongodb/specifications)`);
    }
    for (const file of fs
      .readdirSync(dir)
      .filter((name) => name.endsWith(".json"))
      .sort()) {
      files.push({ folder: folder.name, file, fullPath: path.join(dir, file) });
    }
  }
  return files;
}

export async function runConformance(options: ConformanceOptions): Promise<ConformanceReport> {
  const started = Date.now();
  const specFiles = listSpecFiles(options.checkout);
  const internal = new MongoClient(options.uri, { serverSelectionTimeoutMS: 10_000 });
  try {
    let facts: ServerFacts;
    try {
      await internal.connect();
      facts = await readServerFacts(internal, options.uri);
    } catch (err) {
      throw new ConformanceSetupError(`cannot reach the database at ${options.uri}: ${(err as Error).message}`);
    }
    const runner = new TestRunner(internal, options.uri, new RequirementChecker(facts, internal), {
      killSessions: options.killSessions ?? true,
    });
    const files: FileResult[] = [];
    try {
      await runner.start();
      for (const spec of specFiles) {
        const select = (test: TestCase) =>
          !options.only ||
          options.only.test(`${spec.folder}/${spec.file}`) ||
          options.only.test(`${spec.file}: ${test.description}`);
        let file: TestFile;
        try {
          file = loadTestFile(spec.fullPath);
        } catch (err) {
          if (options.only && !options.only.test(`${spec.folder}/${spec.file}`)) continue;
          const reason = `cannot read the file: ${(err as Error).message}`;
          const result: FileResult = {
            folder: spec.folder,
            file: spec.file,
            tests: [{ description: "(the whole file)", status: "skipped", reason }],
          };
          files.push(result);
          options.onFile?.(result);
          continue;
        }
        const tests = await runner.runFile(file, select);
        if (tests.length === 0) continue;
        const result: FileResult = { folder: spec.folder, file: spec.file, tests };
        files.push(result);
        options.onFile?.(result);
      }
    } finally {
      await runner.close();
    }
    return { server: facts, files, durationMs: Date.now() - started };
  } finally {
    await internal.close().catch(() => undefined);
  }
}
