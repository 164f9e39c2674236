// When a date is checked by isCalendarDate (every date a read answers, and every date a write takes), then the
// answer is the one of the regular expression and Date check it replaced (kept here as the reference), on every
// day of sample years (leap and not, the years 0-99 that check refused, the last year), on days and months just
// outside the calendar, and on malformed strings.
import { GraphQLLocalDate } from "graphql-scalars";
import { LocalDate } from "../../src/graphql/scalars";
import { isCalendarDate } from "../../src/shared/validation";

/** The check isCalendarDate replaced, as it was. */
function reference(value: unknown): boolean {
  const match = typeof value === "string" ? /^(\d{4})-(\d{2})-(\d{2})$/.exec(value) : null;
  if (!match) return false;
  const [y, m, d] = [Number(match[1]), Number(match[2]), Number(match[3])];
  const date = new Date(Date.UTC(y, m - 1, d));
  return date.getUTCFullYear() === y && date.getUTCMonth() === m - 1 && date.getUTCDate() === d;
}

const pad = (n: number, width: number) => String(n).padStart(width, "0");

describe("isCalendarDate", () => {
  it("when every day of sample years is checked, with days and months just outside, then it answers as the reference", () => {
    const years = [0, 1, 4, 99, 100, 101, 400, 1582, 1900, 1999, 2000, 2024, 2025, 2100, 2400, 9999];
    let valid = 0;
    for (const y of years) {
      for (let m = 0; m <= 13; m++) {
        for (let d = 0; d <= 32; d++) {
          const value = `${pad(y, 4)}-${pad(m, 2)}-${pad(d, 2)}`;
          expect([value, isCalendarDate(value)]).toEqual([value, reference(value)]);
          if (reference(value)) valid++;
        }
      }
    }
    // 12 of the 16 years are 100 or later; 4 of those are leap years (400, 2000, 2024, 2400).
    expect(valid).toBe(12 * 365 + 4);
  });

  it("when a value is not a date written YYYY-MM-DD, then it answers as the reference (false)", () => {
    const values: unknown[] = [
      "2025-02-3",
      "2025-2-03",
      "02025-02-03",
      "2025-02-03\n",
      " 2025-02-03",
      "2025/02/03",
      "2025-02-0a",
      "2025-0x-03",
      "２０２５-02-03",
      "2025-02-03T00:00:00Z",
      "+002025-02-03",
      "-2025-02-03",
      "",
      "2025-02",
      20250203,
      null,
      undefined,
      new Date("2025-02-03"),
      ["2025-02-03"],
    ];
    for (const value of values) expect([value, isCalendarDate(value)]).toEqual([value, reference(value)]);
  });

  it("when random 10-character strings over digits and dashes are checked, then it answers as the reference", () => {
    let seed = 7;
    const next = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    const alphabet = "0123456789-";
    for (let i = 0; i < 20_000; i++) {
      const chars = Array.from({ length: 10 }, () => alphabet[Math.floor(next() * alphabet.length)]);
      if (next() < 0.7) [chars[4], chars[7]] = ["-", "-"];
      const value = chars.join("");
      expect([value, isCalendarDate(value)]).toEqual([value, reference(value)]);
    }
  });
});

/** What a serialize answers or throws, for comparing two of them. */
function outcome(serialize: (value: unknown) => unknown, value: unknown): unknown {
  try {
    return { answered: serialize(value) };
  } catch (error) {
    return { refused: (error as Error).message };
  }
}

describe("the schema's LocalDate scalar", () => {
  it("when dates, near-dates and other values are answered, then each answer or refusal is graphql-scalars' own", () => {
    const values: unknown[] = ["0050-01-01", "0099-12-31", "0100-02-29", "2024-02-29", "2025-02-29", "9999-12-31"];
    for (const y of [0, 99, 100, 2000, 2025])
      for (let m = 0; m <= 13; m++)
        for (let d = 0; d <= 32; d += 1) values.push(`${pad(y, 4)}-${pad(m, 2)}-${pad(d, 2)}`);
    values.push("2025-02-3", "2025-02-03T00:00:00Z", "", 20250203, null, new Date("2025-02-03"), ["2025-02-03"]);
    const ours = LocalDate.serialize.bind(LocalDate);
    const theirs = GraphQLLocalDate.serialize.bind(GraphQLLocalDate);
    let answered = 0;
    for (const value of values) {
      const expected = outcome(theirs, value);
      expect([value, outcome(ours, value)]).toEqual([value, expected]);
      if ((expected as { answered?: unknown }).answered !== undefined) answered++;
    }
    // Years 0000-0099 too: graphql-scalars answers them, through its own serialize here.
    expect(answered).toBeGreaterThan(5 * 365);
  });
});
