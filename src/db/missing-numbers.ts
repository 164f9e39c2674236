// The numbers missing from a unique integer field (a log's positions, a collection's ids) within a range, found with
// counts rather than by reading every document: a range (after, upTo] holds every number exactly when its count is
// its width (the field is unique), so only the ranges that do not are halved, down to a width read whole. With few
// missing numbers that is a few indexed counts, however many documents there are.
import type { Model, QueryFilter } from "mongoose";

/** Ranges this narrow are read whole. */
const SCAN_WIDTH = 256;

export interface NumberField {
  /** How many documents hold a value in (after, upTo]. */
  count(after: number, upTo: number): Promise<number>;
  /** The values held in (after, upTo]. */
  values(after: number, upTo: number): Promise<number[]>;
}

/** The numbers in (after, upTo] that no document holds, in order. */
export async function missingNumbers(field: NumberField, after: number, upTo: number): Promise<number[]> {
  if (upTo <= after) return [];
  if ((await field.count(after, upTo)) === upTo - after) return [];
  if (upTo - after <= SCAN_WIDTH) {
    const held = new Set(await field.values(after, upTo));
    const missing: number[] = [];
    for (let n = after + 1; n <= upTo; n++) if (!held.has(n)) missing.push(n);
    return missing;
  }
  const middle = Math.floor((after + upTo) / 2);
  return [...(await missingNumbers(field, after, middle)), ...(await missingNumbers(field, middle, upTo))];
}

/** A unique integer field of a model's documents, counted and read through its index. */
export function numberFieldOf<D>(model: Model<D>, name: keyof D & string): NumberField {
  const within = (after: number, upTo: number) => ({ [name]: { $gt: after, $lte: upTo } }) as QueryFilter<D>;
  return {
    count: (after, upTo) => model.countDocuments(within(after, upTo)),
    values: async (after, upTo) =>
      (await model.find(within(after, upTo), { [name]: 1 }).lean<Record<string, number>[]>()).map((doc) => doc[name]),
  };
}
