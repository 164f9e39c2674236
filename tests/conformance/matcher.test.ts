// The runner's matching of expected values (the unified format's "Evaluating Matches"): extra fields only at the
// root, numbers by value across BSON types, key order free, arrays of the same length, and the $$ operators.
import { Double, Long, ObjectId } from "mongodb";
import { matchValue, MatchFailure, type MatchContext } from "../../scripts/conformance/matcher";

const context: MatchContext = {
  entityValue: (name) => (name === "saved" ? 42 : undefined),
  sessionLsid: () => ({ id: "lsid" }),
};

function mismatch(expected: unknown, actual: unknown, shape: "root" | "root-elements" | "nested" = "root"): string {
  try {
    matchValue(expected, actual, context, shape);
  } catch (err) {
    if (err instanceof MatchFailure) return err.message;
    throw err;
  }
  return "matched";
}

describe("matching an expected value", () => {
  it("when a root document has more fields, then it matches; a nested one or an outcome document does not", () => {
    expect(mismatch({ x: 1 }, { x: 1, y: 2 })).toBe("matched");
    expect(mismatch({ a: { x: 1 } }, { a: { x: 1, y: 2 } })).toBe('at a: unexpected field(s) y in {"x":1,"y":2}');
    expect(mismatch({ x: 1 }, { x: 1, y: 2 }, "nested")).toBe('unexpected field(s) y in {"x":1,"y":2}');
    expect(mismatch([{ x: 1 }], [{ x: 1, y: 2 }], "root-elements")).toBe("matched");
    expect(mismatch([{ x: 1 }], [{ x: 1, y: 2 }])).toBe('at [0]: unexpected field(s) y in {"x":1,"y":2}');
  });

  it("when numbers are of different BSON types, then they compare by value; key order never matters", () => {
    expect(mismatch({ a: new Long(5), b: new Double(1), c: 2 }, { c: 2.0, b: 1, a: 5 })).toBe("matched");
    expect(mismatch({ a: new Long("9007199254740993") }, { a: new Long("9007199254740992") })).toBe(
      'at a: expected {"$numberLong":"9007199254740993"}, got {"$numberLong":"9007199254740992"}',
    );
    expect(mismatch({ a: 1 }, { a: "1" })).toBe('at a: expected 1, got "1"');
  });

  it("when arrays differ in length, then they do not match", () => {
    expect(mismatch([1, 2, 3], [1, 2, 3, 4])).toBe("expected 3 elements, got 4: [1,2,3,4]");
    expect(mismatch([{ x: 1 }], [], "root-elements")).toBe("expected 1 documents, got 0: []");
  });

  it("when the $$ operators are used, then each asserts what the format says", () => {
    const id = new ObjectId();
    expect(mismatch({ $$unsetOrMatches: { n: 1 } }, undefined)).toBe("matched");
    expect(mismatch({ a: { $$unsetOrMatches: 1 } }, { a: 2 })).toBe("at a: expected 1, got 2");
    expect(mismatch({ a: { $$exists: false } }, { a: null })).toBe("at a: expected no such field, got null");
    expect(mismatch({ a: { $$exists: true } }, { a: null })).toBe("matched");
    expect(mismatch({ a: { $$type: "objectId" }, b: { $$type: ["int", "long"] } }, { a: id, b: 3 })).toBe("matched");
    expect(mismatch({ a: { $$type: "string" } }, { a: 3 })).toBe("at a: expected a value of type string, got 3");
    expect(mismatch({ a: { $$lte: 5 } }, { a: 5.0 })).toBe("matched");
    expect(mismatch({ a: { $$lte: 5 } }, { a: 6 })).toBe("at a: expected a number <= 5, got 6");
    expect(mismatch({ a: { $$matchesEntity: "saved" } }, { a: 42 })).toBe("matched");
    expect(mismatch({ a: { $$sessionLsid: "session0" } }, { a: { id: "other" } })).toBe(
      'at a.id: expected "lsid", got "other"',
    );
  });
});
