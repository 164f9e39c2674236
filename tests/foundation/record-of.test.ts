// When a stored document is mapped to its record (every item of every read), then the record is the one the
// reference mapping gives — the document with its declared defaults applied (withStoredDefaults as it was), its record
// fields picked, its timestamps as ISO strings — for documents that hold every field, lack some, hold undefined or
// null, or hold invalid timestamps. A document read with only some fields maps to a record of just those, each as the
// whole record has it.
import { recordMapper, selectedRecordMapper } from "../../src/db/record-of";
import { withStoredDefaults, type StoredFields } from "../../src/db/stored-fields";
import { isoTimestamp } from "../../src/shared/record-guard";

const FIELDS = {
  item_id: { type: Number, required: true },
  name: { type: String, required: true },
  name_key: { type: String, required: true },
  url: { type: String, default: null },
  status: { type: String, default: "active" },
  count: { type: Number, default: 0 },
  flag: { type: Boolean, default: false },
} as const satisfies StoredFields;

/** withStoredDefaults as it was before it was worked out once per declaration. */
function referenceDefaults(fields: StoredFields, doc: Record<string, unknown>): Record<string, unknown> {
  const missing = Object.entries(fields).filter(([name, field]) => "default" in field && doc[name] === undefined);
  if (missing.length === 0) return doc;
  return {
    ...doc,
    ...Object.fromEntries(missing.map(([name, field]) => [name, (field as { default: unknown }).default])),
  };
}

function reference(doc: Record<string, unknown>): Record<string, unknown> {
  const full = referenceDefaults(FIELDS, doc);
  const record: Record<string, unknown> = {};
  for (const name of Object.keys(FIELDS)) if (name !== "name_key") record[name] = full[name];
  record.created_at = isoTimestamp(full.created_at);
  record.updated_at = isoTimestamp(full.updated_at);
  return record;
}

describe("recordMapper", () => {
  it("when documents hold, lack or null their fields, then each record (and withStoredDefaults) equals the reference", () => {
    const map = recordMapper(FIELDS, ["name_key"]);
    const optional = ["url", "status", "count", "flag", "name"] as const;
    const values: Record<string, unknown[]> = {
      url: ["https://example.org", null, undefined],
      status: ["done", "", null, undefined],
      count: [3, 0, null, undefined],
      flag: [true, false, null, undefined],
      name: ["A", undefined],
    };
    const stamps = [new Date("2026-01-02T03:04:05.678Z"), new Date(Number.NaN), "2026-01-02T03:04:05Z", undefined];
    let seed = 11;
    const pick = <T>(list: readonly T[]) => list[(seed = (seed * 48271) % 2147483647) % list.length];
    for (let i = 0; i < 2_000; i++) {
      const doc: Record<string, unknown> = { _id: String(i), item_id: i, name_key: "k" };
      for (const field of optional) {
        const value = pick([...values[field], "absent"]);
        if (value !== "absent") doc[field] = value;
      }
      doc.created_at = pick(stamps);
      doc.updated_at = pick(stamps);
      const record = map(doc as never) as Record<string, unknown>;
      expect(record).toStrictEqual(reference(doc));
      expect(Object.keys(record)).toEqual(Object.keys(reference(doc)));
      const withDefaults = withStoredDefaults(FIELDS, doc as never) as Record<string, unknown>;
      expect(withDefaults).toStrictEqual(referenceDefaults(FIELDS, doc));
      expect(Object.keys(withDefaults)).toEqual(Object.keys(referenceDefaults(FIELDS, doc)));
    }
  });
});

describe("selectedRecordMapper", () => {
  it("when a document is read with some fields, then its record holds those fields only, each as the whole record has it", () => {
    const whole = recordMapper(FIELDS, ["name_key"]);
    const selected = selectedRecordMapper(FIELDS, ["name_key"]);
    const doc = { _id: "1", item_id: 1, name: "A", url: null, count: 0, created_at: new Date(0), updated_at: "bad" };
    const cases = [
      ["item_id"],
      ["item_id", "status", "updated_at"],
      ["name", "url", "count", "created_at"],
      ["flag", "item_id", "name", "url", "status", "count", "created_at", "updated_at"],
    ] as const;
    for (const fields of cases) {
      const record = selected(fields)(doc as never) as Record<string, unknown>;
      const expected = whole(doc as never) as Record<string, unknown>;
      expect(Object.keys(record).sort()).toEqual([...fields].sort());
      for (const field of fields) expect(record[field]).toStrictEqual(expected[field]);
    }
  });
});
