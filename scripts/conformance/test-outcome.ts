// What running one unified-format test can end in: passed, failed (with a one-line reason and, for --verbose, the
// details), or skipped (with the reason). A skip never counts as a pass: the runner skips only what it cannot judge.
// The two error classes carry a skip or a failure out of the operation that found it.

export type TestStatus = "passed" | "failed" | "skipped";

export interface TestResult {
  description: string;
  status: TestStatus;
  /** Why it failed or was skipped; absent when it passed. One line. */
  reason?: string;
  /** More about a failure (expected and actual values), for --verbose and the JSON file. */
  details?: string;
  /** Blocks of the test that were not checked because they check what the driver sent (expectEvents…). */
  unchecked?: string[];
}

export interface FileResult {
  /** "crud" or "transactions". */
  folder: string;
  /** The file's name, e.g. "aggregate.json". */
  file: string;
  tests: TestResult[];
}

export interface Counts {
  passed: number;
  failed: number;
  skipped: number;
}

/** Thrown when the runner cannot run or judge a test (an operation it does not know, a requirement not met…). */
export class TestSkipped extends Error {
  constructor(reason: string) {
    super(reason);
    this.name = "TestSkipped";
  }
}

/** Thrown when an assertion of the test does not hold. */
export class TestFailed extends Error {
  constructor(
    reason: string,
    readonly details?: string,
  ) {
    super(reason);
    this.name = "TestFailed";
  }
}

/** Thrown when the run cannot go on (the database stopped answering); the command exits 2. */
export class RunStopped extends Error {
  constructor(reason: string) {
    super(reason);
    this.name = "RunStopped";
  }
}

export function countStatuses(tests: readonly TestResult[]): Counts {
  const counts: Counts = { passed: 0, failed: 0, skipped: 0 };
  for (const test of tests) counts[test.status] += 1;
  return counts;
}

export function addCounts(a: Counts, b: Counts): Counts {
  return { passed: a.passed + b.passed, failed: a.failed + b.failed, skipped: a.skipped + b.skipped };
}
