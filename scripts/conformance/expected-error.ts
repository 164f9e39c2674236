// Checking an operation's error against the test's expectError: whether it came from the server or the client, its
// message, code, code name and labels, the server's response, and the partial result and write errors of a bulk
// write. A bulk write's error gathers several server errors: any of them satisfies errorContains, errorCode and
// errorCodeName, as the format says.
import {
  MongoBulkWriteError,
  MongoClientBulkWriteError,
  MongoError,
  MongoOperationTimeoutError,
  MongoServerError,
} from "mongodb";
import { bulkWriteResultDocument, clientBulkWriteResultDocument } from "./driver-values";
import { describe, matchValue, MatchFailure, type MatchContext } from "./matcher";
import { TestFailed, TestSkipped } from "./test-outcome";
import { isPlainDocument, type Doc, type ExpectedError } from "./unified-format";

const EXPECTED_ERROR_FIELDS = new Set([
  "isError",
  "isClientError",
  "isTimeoutError",
  "errorContains",
  "errorCode",
  "errorCodeName",
  "errorLabelsContain",
  "errorLabelsOmit",
  "writeErrors",
  "writeConcernErrors",
  "errorResponse",
  "expectResult",
]);

/**
 * Server error codes by name, for the errors that carry a code without its name (a bulk write's write errors): the
 * names the two folders assert and a few common ones (MongoDB's src/mongo/base/error_codes.yml).
 */
const ERROR_CODES: Record<string, number> = {
  BadValue: 2,
  FailedToParse: 9,
  TypeMismatch: 14,
  InvalidOptions: 72,
  IllegalOperation: 20,
  NamespaceNotFound: 26,
  WriteConcernFailed: 64,
  DocumentValidationFailure: 121,
  WriteConflict: 112,
  NotImplemented: 238,
  NoSuchTransaction: 251,
  OperationNotSupportedInTransaction: 263,
  Interrupted: 11601,
  DuplicateKey: 11000,
  UnknownError: 8,
};

/** Why the runner cannot check this expectError, or undefined. */
export function unsupportedExpectedError(expected: ExpectedError): string | undefined {
  const unknown = Object.keys(expected).filter((key) => !EXPECTED_ERROR_FIELDS.has(key));
  return unknown.length > 0
    ? `the expectError field(s) ${unknown.join(", ")} are not supported by this runner`
    : undefined;
}

/** One line naming an error: its code name and code when it has them, and its message. */
export function describeError(error: unknown): string {
  if (!(error instanceof Error)) return `a thrown ${describe(error)}`;
  const server = error as MongoServerError;
  const code = typeof server.code === "number" || typeof server.code === "string" ? server.code : undefined;
  const label = server.codeName ? `${server.codeName} (${code})` : code !== undefined ? `code ${code}` : error.name;
  const message = error.message.replace(/\s+/g, " ").trim();
  return `${label}: ${message.length > 240 ? `${message.slice(0, 240)}…` : message}`;
}

/** The server errors a bulk write gathered, besides the error itself. */
function innerErrors(error: unknown): Doc[] {
  const inner: Doc[] = [];
  if (error instanceof MongoBulkWriteError) {
    const writeErrors = Array.isArray(error.writeErrors) ? error.writeErrors : [error.writeErrors];
    for (const writeError of writeErrors) {
      inner.push({ ...(writeError.err as unknown as Doc), code: writeError.code, errmsg: writeError.errmsg });
    }
  }
  if (error instanceof MongoClientBulkWriteError) {
    // its top-level error (the format's `error` field, the Node driver's cause) answers errorCode and errorContains
    if (error.cause instanceof MongoServerError) {
      inner.push({ code: error.cause.code, codeName: error.cause.codeName, errmsg: error.cause.message });
    }
    for (const writeError of error.writeErrors.values())
      inner.push({ code: writeError.code, errmsg: writeError.message });
    for (const concernError of error.writeConcernErrors) inner.push(concernError);
  }
  const concern = (error as MongoServerError | undefined)?.writeConcernError;
  if (isPlainDocument(concern)) inner.push(concern);
  return inner;
}

function fail(reason: string, details?: string): never {
  throw new TestFailed(`expected error: ${reason}`, details);
}

/** Throws TestFailed when the error is not the one expected. */
export function checkExpectedError(expected: ExpectedError, error: unknown, context: MatchContext): void {
  const unsupported = unsupportedExpectedError(expected);
  if (unsupported) throw new TestSkipped(unsupported);
  const got = describeError(error);
  const fromServer = error instanceof MongoServerError;
  const inner = innerErrors(error);

  if (expected.isClientError !== undefined && expected.isClientError === fromServer) {
    fail(
      expected.isClientError
        ? `a client error, got a server error ${got}`
        : `a server error, got the client error ${got}`,
    );
  }
  if (
    expected.isTimeoutError !== undefined &&
    expected.isTimeoutError !== error instanceof MongoOperationTimeoutError
  ) {
    fail(expected.isTimeoutError ? `a timeout error, got ${got}` : `no timeout error, got ${got}`);
  }
  if (expected.errorContains !== undefined) {
    const wanted = expected.errorContains.toLowerCase();
    const messages = [
      error instanceof Error ? error.message : String(error),
      ...inner.map((e) => String(e.errmsg ?? "")),
    ];
    if (!messages.some((message) => message.toLowerCase().includes(wanted))) {
      fail(`a message containing "${expected.errorContains}", got ${got}`);
    }
  }
  if (expected.errorCode !== undefined) {
    const codes = [fromServer ? (error as MongoServerError).code : undefined, ...inner.map((e) => e.code)];
    if (!codes.some((code) => code !== undefined && Number(code) === expected.errorCode)) {
      fail(`code ${expected.errorCode}, got ${got}`);
    }
  }
  if (expected.errorCodeName !== undefined) {
    const wanted = expected.errorCodeName.toLowerCase();
    const server = fromServer ? (error as MongoServerError) : undefined;
    // The error itself and the errors it gathered, each a code with its name when the driver kept it.
    const described = [...(server ? [{ code: server.code, codeName: server.codeName }] : []), ...inner];
    const byName = described.some((e) => typeof e.codeName === "string" && e.codeName.toLowerCase() === wanted);
    const codeOfName = Object.entries(ERROR_CODES).find(([name]) => name.toLowerCase() === wanted)?.[1];
    const codesWithoutName = described
      .filter((e) => typeof e.codeName !== "string" && e.code !== undefined)
      .map((e) => Number(e.code));
    if (!byName) {
      if (codesWithoutName.length > 0 && codeOfName === undefined) {
        throw new TestSkipped(`cannot check the code name ${expected.errorCodeName}: the error carries codes only`);
      }
      if (codeOfName === undefined || !codesWithoutName.includes(codeOfName)) {
        fail(`code name ${expected.errorCodeName}, got ${got}`);
      }
    }
  }
  const labels = error instanceof MongoError ? error.errorLabels : [];
  for (const label of expected.errorLabelsContain ?? []) {
    if (!(error instanceof MongoError && error.hasErrorLabel(label))) {
      fail(`the label ${label}, got ${labels.length > 0 ? `the labels ${labels.join(", ")}` : "no label"} on ${got}`);
    }
  }
  for (const label of expected.errorLabelsOmit ?? []) {
    if (error instanceof MongoError && error.hasErrorLabel(label)) fail(`no label ${label}, it has it on ${got}`);
  }
  if (expected.errorResponse !== undefined) {
    const topLevel = error instanceof MongoClientBulkWriteError ? error.cause : error;
    const response = topLevel instanceof MongoServerError ? topLevel.errorResponse : undefined;
    if (!response) fail(`a server response, got ${got}`);
    matchPart("errorResponse", expected.errorResponse, response, context);
  }
  if (expected.expectResult !== undefined) {
    let result: Doc | undefined;
    if (error instanceof MongoBulkWriteError) result = bulkWriteResultDocument(error.result);
    if (error instanceof MongoClientBulkWriteError && error.partialResult) {
      result = clientBulkWriteResultDocument(error.partialResult);
    }
    matchPart("its result", expected.expectResult, result, context);
  }
  if (expected.writeErrors !== undefined) {
    if (!(error instanceof MongoClientBulkWriteError)) fail(`write errors of a client bulk write, got ${got}`);
    const actual: Doc = {};
    for (const [index, writeError] of error.writeErrors) actual[String(index)] = { ...writeError };
    const extra = Object.keys(actual).filter((index) => !(index in expected.writeErrors!));
    if (extra.length > 0) fail(`no write error at ${extra.join(", ")}, got ${describe(actual)}`);
    for (const [index, value] of Object.entries(expected.writeErrors)) {
      if (!(index in actual)) fail(`a write error at ${index}, got ${describe(actual)}`);
      matchPart(`write error ${index}`, value, actual[index], context);
    }
  }
  if (expected.writeConcernErrors !== undefined) {
    if (!(error instanceof MongoClientBulkWriteError)) fail(`write concern errors of a client bulk write, got ${got}`);
    matchPart("writeConcernErrors", expected.writeConcernErrors, error.writeConcernErrors, context, "root-elements");
  }
}

function matchPart(
  what: string,
  expected: unknown,
  actual: unknown,
  context: MatchContext,
  shape: "root" | "root-elements" = "root",
): void {
  try {
    matchValue(expected, actual, context, shape);
  } catch (err) {
    if (err instanceof MatchFailure) {
      throw new TestFailed(
        `expected error: ${what} ${err.message}`,
        `expected ${describe(expected, 4000)}\nactual ${describe(actual, 4000)}`,
      );
    }
    throw err;
  }
}
