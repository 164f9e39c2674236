// What `npm run db:conformance` prints (per file passed / failed / skipped, each failure and skip with its reason,
// then totals per folder and overall) and the machine-readable results it writes with --json.
import { SPEC_FOLDERS, type ConformanceReport } from "./conformance-run";
import { addCounts, countStatuses, type Counts, type FileResult } from "./test-outcome";

function counts(c: Counts): string {
  return `${c.passed} passed / ${c.failed} failed / ${c.skipped} skipped`;
}

/** The lines of one file: its counts, then each failure and skip with its reason (details too when verbose). */
export function fileLines(result: FileResult, verbose: boolean): string[] {
  const lines = [`${result.folder}/${result.file}: ${counts(countStatuses(result.tests))}`];
  const skipped = result.tests.filter((test) => test.status === "skipped");
  const sameSkip =
    skipped.length > 1 && skipped.length === result.tests.length && new Set(skipped.map((t) => t.reason)).size === 1;
  if (sameSkip) {
    lines.push(`  skipped all ${skipped.length}: ${skipped[0].reason}`);
    return lines;
  }
  for (const test of result.tests) {
    if (test.status === "passed") continue;
    lines.push(`  ${test.status}: "${test.description}": ${test.reason}`);
    if (verbose && test.details) lines.push(...test.details.split("\n").map((line) => `      ${line}`));
  }
  return lines;
}

export interface Totals {
  folders: Record<string, Counts & { files: number }>;
  all: Counts;
  /** Tests with an expectEvents (or expectLogMessages…) block, which was not checked. */
  uncheckedBlocks: number;
}

export function totalsOf(files: readonly FileResult[]): Totals {
  const folders: Totals["folders"] = {};
  for (const folder of SPEC_FOLDERS) folders[folder.name] = { passed: 0, failed: 0, skipped: 0, files: 0 };
  let all: Counts = { passed: 0, failed: 0, skipped: 0 };
  let uncheckedBlocks = 0;
  for (const file of files) {
    const c = countStatuses(file.tests);
    const folder = (folders[file.folder] ??= { passed: 0, failed: 0, skipped: 0, files: 0 });
    Object.assign(folder, addCounts(folder, c), { files: folder.files + 1 });
    all = addCounts(all, c);
    uncheckedBlocks += file.tests.filter((test) => test.status !== "skipped" && test.unchecked).length;
  }
  return { folders, all, uncheckedBlocks };
}

export function totalLines(report: ConformanceReport): string[] {
  const totals = totalsOf(report.files);
  const lines = [""];
  for (const [name, c] of Object.entries(totals.folders)) {
    lines.push(
      `${name}: ${counts(c)} (${c.passed + c.failed + c.skipped} tests in ${c.files} file${c.files === 1 ? "" : "s"})`,
    );
  }
  const all = totals.all;
  lines.push(`overall: ${counts(all)} (${all.passed + all.failed + all.skipped} tests)`);
  if (totals.uncheckedBlocks > 0) {
    lines.push(
      `${totals.uncheckedBlocks} of the tests run have an expectEvents or expectLogMessages block, not checked (it checks what the driver sent)`,
    );
  }
  return lines;
}

/** The --json file: the server, the totals, and per file, per test, its status and reason. */
export function jsonReport(report: ConformanceReport, checkout: string): unknown {
  const totals = totalsOf(report.files);
  return {
    checkout,
    server: report.server,
    durationMs: report.durationMs,
    totals: { ...totals.folders, overall: totals.all, uncheckedBlocks: totals.uncheckedBlocks },
    files: report.files.map((file) => ({
      folder: file.folder,
      file: file.file,
      ...countStatuses(file.tests),
      tests: file.tests,
    })),
  };
}
