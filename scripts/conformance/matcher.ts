// Matching an expected value of a test file against what the driver returned, by the format's "Evaluating Matches"
// rules: a root-level document may hold fields the expected one does not name, a nested one may not; arrays have the
// same length; numbers of different BSON types (32-bit, 64-bit, double; not Decimal128) compare as numbers; key
// order does not matter; and the special operators $$exists, $$type, $$unsetOrMatches, $$matchesEntity,
// $$matchesHexBytes, $$sessionLsid, $$lte, $$matchAsDocument and $$matchAsRoot.
import { BSON, Binary } from "mongodb";
import { TestSkipped } from "./test-outcome";
import { isPlainDocument, type Doc } from "./unified-format";

/** What the operators that name an entity read from the test's entity map. */
export interface MatchContext {
  /** The value saved under this name (saveResultAsEntity), for $$matchesEntity. */
  entityValue(name: string): unknown;
  /** The logical session id of this session entity, for $$sessionLsid. */
  sessionLsid(name: string): unknown;
}

/** A mismatch: where (a dotted path into the actual value) and what. */
export class MatchFailure extends Error {
  constructor(
    readonly path: string,
    readonly problem: string,
  ) {
    super(path ? `at ${path}: ${problem}` : problem);
    this.name = "MatchFailure";
  }
}

/** How the top of a value is matched: a root-level document, or an array of root-level documents (find…). */
export type MatchShape = "root" | "root-elements" | "nested";

/** Throws MatchFailure when actual does not match expected. */
export function matchValue(
  expected: unknown,
  actual: unknown,
  context: MatchContext,
  shape: MatchShape = "root",
): void {
  if (shape === "root-elements" && Array.isArray(expected) && Array.isArray(actual)) {
    if (expected.length !== actual.length) {
      throw new MatchFailure("", `expected ${expected.length} documents, got ${actual.length}: ${describe(actual)}`);
    }
    expected.forEach((item, i) => match(item, actual[i], context, true, `[${i}]`));
    return;
  }
  match(expected, actual, context, shape !== "nested", "");
}

/** The special operator of a value: {$$name: argument} as its one key. */
function operatorOf(value: unknown): [string, unknown] | undefined {
  if (!isPlainDocument(value)) return undefined;
  const keys = Object.keys(value);
  if (keys.length !== 1 || !keys[0].startsWith("$$")) return undefined;
  return [keys[0], value[keys[0]]];
}

function join(path: string, key: string): string {
  return path ? `${path}.${key}` : key;
}

function match(expected: unknown, actual: unknown, context: MatchContext, root: boolean, path: string): void {
  const operator = operatorOf(expected);
  if (operator) {
    matchOperator(operator[0], operator[1], actual, context, root, path);
    return;
  }
  if (isPlainDocument(expected)) {
    if (!isDocumentLike(actual)) throw new MatchFailure(path, `expected a document, got ${describe(actual)}`);
    for (const [key, value] of Object.entries(expected)) {
      const present = actual[key] !== undefined;
      const inner = operatorOf(value);
      if (inner?.[0] === "$$exists") {
        if (inner[1] && !present) throw new MatchFailure(join(path, key), "expected the field, it is missing");
        if (!inner[1] && present) {
          throw new MatchFailure(join(path, key), `expected no such field, got ${describe(actual[key])}`);
        }
        continue;
      }
      if (inner?.[0] === "$$unsetOrMatches" && !present) continue;
      if (!present) throw new MatchFailure(join(path, key), `expected ${describe(value)}, the field is missing`);
      match(value, actual[key], context, false, join(path, key));
    }
    if (!root) {
      const extra = Object.keys(actual).filter((key) => actual[key] !== undefined && !(key in expected));
      if (extra.length > 0)
        throw new MatchFailure(path, `unexpected field(s) ${extra.join(", ")} in ${describe(actual)}`);
    }
    return;
  }
  if (Array.isArray(expected)) {
    if (!Array.isArray(actual)) throw new MatchFailure(path, `expected an array, got ${describe(actual)}`);
    if (expected.length !== actual.length) {
      throw new MatchFailure(path, `expected ${expected.length} elements, got ${actual.length}: ${describe(actual)}`);
    }
    expected.forEach((item, i) => match(item, actual[i], context, false, `${path}[${i}]`));
    return;
  }
  if (!valuesEqual(expected, actual)) {
    throw new MatchFailure(path, `expected ${describe(expected)}, got ${describe(actual)}`);
  }
}

function matchOperator(
  name: string,
  argument: unknown,
  actual: unknown,
  context: MatchContext,
  root: boolean,
  path: string,
): void {
  switch (name) {
    case "$$exists":
      if (Boolean(argument) !== (actual !== undefined)) {
        throw new MatchFailure(
          path,
          argument ? "expected a value, there is none" : `expected none, got ${describe(actual)}`,
        );
      }
      return;
    case "$$unsetOrMatches":
      if (actual !== undefined) match(argument, actual, context, root, path);
      return;
    case "$$type": {
      const types = (Array.isArray(argument) ? argument : [argument]) as string[];
      if (actual === undefined || !types.some((type) => hasBsonType(actual, type))) {
        throw new MatchFailure(path, `expected a value of type ${types.join(" or ")}, got ${describe(actual)}`);
      }
      return;
    }
    case "$$matchesEntity":
      match(context.entityValue(String(argument)), actual, context, root, path);
      return;
    case "$$sessionLsid":
      match(context.sessionLsid(String(argument)), actual, context, false, path);
      return;
    case "$$matchesHexBytes": {
      if (typeof argument !== "string" || !/^([0-9a-fA-F]{2})*$/.test(argument)) {
        throw new TestSkipped(
          `the test file is malformed: $$matchesHexBytes needs hex bytes, got ${describe(argument)}`,
        );
      }
      const hex = hexOf(actual);
      if (hex !== argument.toLowerCase()) {
        throw new MatchFailure(path, `expected the bytes ${argument.toLowerCase()}, got ${hex ?? describe(actual)}`);
      }
      return;
    }
    case "$$lte":
      if (!isNumeric(actual) || !isNumeric(argument) || numberOf(actual) > numberOf(argument)) {
        throw new MatchFailure(path, `expected a number <= ${describe(argument)}, got ${describe(actual)}`);
      }
      return;
    case "$$matchAsDocument": {
      if (typeof actual !== "string")
        throw new MatchFailure(path, `expected Extended JSON text, got ${describe(actual)}`);
      let parsed: unknown;
      try {
        parsed = BSON.EJSON.parse(actual);
      } catch {
        throw new MatchFailure(path, `expected Extended JSON text, got ${describe(actual)}`);
      }
      match(argument, parsed, context, false, path);
      return;
    }
    case "$$matchAsRoot":
      match(argument, actual, context, true, path);
      return;
    default:
      throw new TestSkipped(`the matching operator ${name} is not supported by this runner`);
  }
}

/** An object compared field by field: not an array, a BSON value, a date or bytes. */
function isDocumentLike(value: unknown): value is Doc {
  if (value === null || typeof value !== "object" || Array.isArray(value)) return false;
  if (bsonTypeOf(value) !== undefined) return false;
  return !(value instanceof Date || value instanceof Uint8Array || value instanceof RegExp || value instanceof Map);
}

function bsonTypeOf(value: unknown): string | undefined {
  if (value === null || typeof value !== "object") return undefined;
  const type = (value as { _bsontype?: unknown })._bsontype;
  return typeof type === "string" ? type : undefined;
}

const NUMERIC_BSON_TYPES = new Set(["Int32", "Double", "Long"]);

export function isNumeric(value: unknown): boolean {
  return typeof value === "number" || typeof value === "bigint" || NUMERIC_BSON_TYPES.has(bsonTypeOf(value) ?? "");
}

function numberOf(value: unknown): number {
  if (typeof value === "number") return value;
  if (typeof value === "bigint") return Number(value);
  const bson = value as { toNumber?: () => number; valueOf: () => unknown };
  return typeof bson.toNumber === "function" ? bson.toNumber() : Number(bson.valueOf());
}

/** Exact integer comparison where both are integers (a 64-bit value may pass 2^53), else as doubles. */
function numbersEqual(a: unknown, b: unknown): boolean {
  const integerText = (value: unknown): string | undefined => {
    if (typeof value === "bigint") return value.toString();
    if (bsonTypeOf(value) === "Long") return (value as { toString(): string }).toString();
    if (typeof value === "number" && Number.isSafeInteger(value)) return String(value);
    if (bsonTypeOf(value) === "Int32") return String(numberOf(value));
    return undefined;
  };
  const [x, y] = [integerText(a), integerText(b)];
  if (x !== undefined && y !== undefined) return x === y;
  const [p, q] = [numberOf(a), numberOf(b)];
  return p === q || (Number.isNaN(p) && Number.isNaN(q));
}

/** Equality of two values that are neither documents nor arrays (numbers flexibly). */
export function valuesEqual(expected: unknown, actual: unknown): boolean {
  if (isNumeric(expected) || isNumeric(actual))
    return isNumeric(expected) && isNumeric(actual) && numbersEqual(expected, actual);
  if (expected === null || actual === null || typeof expected !== "object" || typeof actual !== "object") {
    return expected === actual;
  }
  if (expected instanceof Date || actual instanceof Date) {
    return expected instanceof Date && actual instanceof Date && expected.getTime() === actual.getTime();
  }
  const [p, q] = [canonical(expected), canonical(actual)];
  return p !== undefined && p === q;
}

/** Canonical Extended JSON of a BSON value, with nested documents' keys sorted (order never matters). */
function canonical(value: unknown): string | undefined {
  try {
    return JSON.stringify(sortKeys(BSON.EJSON.serialize({ v: value }, { relaxed: false })));
  } catch {
    return undefined;
  }
}

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (value !== null && typeof value === "object") {
    const out: Doc = {};
    for (const key of Object.keys(value).sort()) out[key] = sortKeys((value as Doc)[key]);
    return out;
  }
  return value;
}

function hexOf(value: unknown): string | undefined {
  if (typeof value === "string") return Buffer.from(value, "latin1").toString("hex");
  if (value instanceof Binary) return Buffer.from(value.buffer).toString("hex");
  if (value instanceof Uint8Array) return Buffer.from(value).toString("hex");
  return undefined;
}

/**
 * $$type with the $type query operator's names. The driver answers 32-bit, 64-bit and double numbers alike as
 * JavaScript numbers, so a number matches "double" and, when it is an integer, "int" (within 32 bits) and "long".
 */
function hasBsonType(value: unknown, type: string): boolean {
  const bson = bsonTypeOf(value);
  switch (type) {
    case "double":
      return typeof value === "number" || bson === "Double";
    case "int":
      return (typeof value === "number" && Number.isInteger(value) && Math.abs(value) <= 2 ** 31) || bson === "Int32";
    case "long":
      return (typeof value === "number" && Number.isInteger(value)) || typeof value === "bigint" || bson === "Long";
    case "decimal":
      return bson === "Decimal128";
    case "number":
      return isNumeric(value) || bson === "Decimal128";
    case "string":
      return typeof value === "string";
    case "object":
      return isDocumentLike(value);
    case "array":
      return Array.isArray(value);
    case "binData":
      return bson === "Binary" || value instanceof Uint8Array;
    case "undefined":
      return false;
    case "objectId":
      return bson === "ObjectId";
    case "bool":
      return typeof value === "boolean";
    case "date":
      return value instanceof Date;
    case "null":
      return value === null;
    case "regex":
      return bson === "BSONRegExp" || value instanceof RegExp;
    case "javascript":
      return bson === "Code" && (value as { scope?: unknown }).scope == null;
    case "javascriptWithScope":
      return bson === "Code" && (value as { scope?: unknown }).scope != null;
    case "timestamp":
      return bson === "Timestamp";
    case "minKey":
      return bson === "MinKey";
    case "maxKey":
      return bson === "MaxKey";
    case "symbol":
      return bson === "BSONSymbol";
    case "dbPointer":
      return bson === "DBRef";
    default:
      throw new TestSkipped(`the test file is malformed: unknown $$type ${type}`);
  }
}

/** A value in one line of relaxed Extended JSON, cut at about 200 characters. */
export function describe(value: unknown, limit = 200): string {
  if (value === undefined) return "nothing";
  let text: string;
  try {
    text = BSON.EJSON.stringify(exactLongs(value) as Doc, { relaxed: true });
  } catch {
    text = String(value);
  }
  return text.length > limit ? `${text.slice(0, limit)}…` : text;
}

/** Relaxed Extended JSON writes a 64-bit integer as a double: one past 2^53 keeps its canonical form instead. */
function exactLongs(value: unknown): unknown {
  if (bsonTypeOf(value) === "Long") {
    const text = (value as { toString(): string }).toString();
    return Number.isSafeInteger(Number(text)) ? value : { $numberLong: text };
  }
  if (Array.isArray(value)) return value.map(exactLongs);
  if (isPlainDocument(value)) return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, exactLongs(v)]));
  return value;
}
