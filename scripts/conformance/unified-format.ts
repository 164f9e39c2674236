// The shapes of MongoDB's unified test format (source/unified-test-format/unified-test-format.md in the
// mongodb/specifications repository), as far as this runner reads them, and the loading of one test file from its
// Extended JSON.
import fs from "node:fs";
import { BSON, Int32 } from "mongodb";

/** A document of a test file, after loading (see loadTestFile for the number types it holds). */
export type Doc = Record<string, unknown>;

export interface RunOnRequirement {
  minServerVersion?: string;
  maxServerVersion?: string;
  topologies?: string[];
  serverless?: "require" | "forbid" | "allow";
  serverParameters?: Doc;
  auth?: boolean;
  authMechanism?: string;
  csfle?: boolean | Doc;
}

/** One entity of createEntities: a single key naming its type (client, database, session…). */
export type EntityDescription = Record<string, Doc & { id: string }>;

export interface CollectionData {
  collectionName: string;
  databaseName: string;
  createOptions?: Doc;
  documents: Doc[];
}

export interface ExpectedError {
  isError?: boolean;
  isClientError?: boolean;
  isTimeoutError?: boolean;
  errorContains?: string;
  errorCode?: number;
  errorCodeName?: string;
  errorLabelsContain?: string[];
  errorLabelsOmit?: string[];
  writeErrors?: Record<string, unknown>;
  writeConcernErrors?: unknown[];
  errorResponse?: Doc;
  expectResult?: unknown;
}

export interface Operation {
  name: string;
  object: string;
  arguments?: Doc;
  ignoreResultAndError?: boolean;
  expectError?: ExpectedError;
  expectResult?: unknown;
  saveResultAsEntity?: string;
}

export interface TestCase {
  description: string;
  runOnRequirements?: RunOnRequirement[];
  skipReason?: string;
  operations: Operation[];
  expectEvents?: unknown[];
  expectLogMessages?: unknown[];
  expectTracingMessages?: unknown;
  outcome?: CollectionData[];
}

export interface TestFile {
  description: string;
  schemaVersion: string;
  runOnRequirements?: RunOnRequirement[];
  createEntities?: EntityDescription[];
  initialData?: CollectionData[];
  tests: TestCase[];
}

/**
 * Reads a test file. Extended JSON in its canonical reading, so numbers keep the BSON type the file gives them
 * ({"$numberLong": "1"} stays a Long, 1.5 a Double, and a driver sends them as such); 32-bit integers become plain
 * numbers again, which the driver sends as 32-bit integers, so options such as batchSize are ordinary numbers.
 */
export function loadTestFile(file: string): TestFile {
  const parsed = BSON.EJSON.parse(fs.readFileSync(file, "utf8"), { relaxed: false }) as unknown;
  return unwrapInt32(parsed) as TestFile;
}

function unwrapInt32(value: unknown): unknown {
  if (value instanceof Int32) return value.value;
  if (Array.isArray(value)) return value.map(unwrapInt32);
  if (isPlainDocument(value)) {
    const out: Doc = {};
    for (const [key, inner] of Object.entries(value)) out[key] = unwrapInt32(inner);
    return out;
  }
  return value;
}

/** A document, as opposed to an array, a BSON value (ObjectId, Long, Binary…) or a driver object. */
export function isPlainDocument(value: unknown): value is Doc {
  if (value === null || typeof value !== "object" || Array.isArray(value)) return false;
  const proto = Object.getPrototypeOf(value) as unknown;
  return proto === Object.prototype || proto === null;
}

/** "4.0.10" → [4, 0, 10]; a missing part is 0 and anything after the patch number is ignored. */
export function versionParts(version: string): [number, number, number] {
  const parts = version.split(/[.-]/).map((part) => Number.parseInt(part, 10));
  return [parts[0] || 0, parts[1] || 0, parts[2] || 0];
}

export function compareVersions(a: readonly number[], b: readonly number[]): number {
  for (let i = 0; i < 3; i += 1) {
    if ((a[i] ?? 0) !== (b[i] ?? 0)) return (a[i] ?? 0) - (b[i] ?? 0);
  }
  return 0;
}
