// The timestamps every record answers are written by isoOfMillis (src/shared/iso-time.ts) instead of
// Date.toISOString(): the text must be the same, on every edge of the calendar and on random times.
import { isoOfMillis } from "../../src/shared/iso-time";

const iso = (ms: number) => new Date(ms).toISOString();

describe("isoOfMillis", () => {
  it("when times at the calendar's edges are written, then the text is toISOString's", () => {
    const edges = [
      0,
      -1,
      1,
      999,
      1000,
      86_399_999,
      86_400_000,
      -86_400_000,
      Date.UTC(1969, 11, 31, 23, 59, 59, 999),
      Date.UTC(2000, 1, 29, 12),
      Date.UTC(2000, 2, 1),
      Date.UTC(1900, 1, 28),
      Date.UTC(1900, 2, 1),
      Date.UTC(2100, 1, 28, 23, 59, 59, 999),
      Date.UTC(2024, 1, 29),
      Date.UTC(2026, 10, 26, 10, 33, 46, 7),
      -62_167_219_200_000,
      -62_167_219_200_001,
      253_402_300_799_999,
      253_402_300_800_000,
      8.64e15,
      -8.64e15,
    ];
    for (let y = 0; y <= 9999; y += 97) {
      for (const m of [0, 1, 2, 11]) {
        const first = new Date(0);
        first.setUTCFullYear(y, m, 1);
        first.setUTCHours(0, 0, 0, 0);
        edges.push(first.getTime(), first.getTime() - 1);
      }
    }
    for (const ms of edges) expect([ms, isoOfMillis(ms)]).toEqual([ms, iso(ms)]);
  });

  it("when random times of years 0000-9999 and beyond are written, then the text is toISOString's", () => {
    let seed = 11;
    const next = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    for (let i = 0; i < 50_000; i++) {
      const ms = Math.floor((next() * 2 - 1) * 3e14);
      expect([ms, isoOfMillis(ms)]).toEqual([ms, iso(ms)]);
    }
  });
});
