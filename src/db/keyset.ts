// Keyset reads of a collection ordered by its numeric id: what every connection page runs (shared/keyset-pagination.ts
// checks the request). One query of the same shape at any depth of the list:
//
//   forward:  find({ ...filter, <key>: { $gt: after, $lt: before } }).sort({ <key>: 1 }).limit(size + 1)
//   backward: find({ ...filter, <key>: { $gt: after, $lt: before } }).sort({ <key>: -1 }).limit(size + 1), reversed
//
// (each bound only when given; with a join, the same page as an aggregation: db/page-read.ts). On MongoDB the
// collection's `{<filter field>: 1, <key>: 1}` indexes serve it as an index range read of size + 1 entries; on stock
// FerretDB 1.24 the range, sort and limit run in memory over a scan, which is correct, as slow as the first page, and
// what a pushdown of such ranges into SQLite speeds up.
import type { Model } from "mongoose";
import type { KeysetRead, KeysetWindow } from "../shared/keyset-pagination";
import type { OrderedWindow } from "../shared/list-order";
import { allOf } from "../shared/list-where";
import { readPage, type LookupStage } from "./page-read";

/** Conditions on a collection's fields (a list's filter): equality, or `$in`. */
export type Conditions = Record<string, unknown>;

/**
 * The filter of a window's range of `key` added to `filter`. A condition the filter already puts on `key` (a row
 * rule naming the key: equality or `$in`) is kept beside the range.
 */
function keysetFilter(filter: Conditions, key: string, window: KeysetWindow): Conditions {
  const range: { $gt?: number; $lt?: number } = {};
  if (window.after !== undefined) range.$gt = window.after;
  if (window.before !== undefined) range.$lt = window.before;
  if (Object.keys(range).length === 0) return filter;
  const own = filter[key];
  if (own === undefined) return { ...filter, [key]: range };
  const operators = own !== null && typeof own === "object" && !Array.isArray(own) ? own : { $eq: own };
  return { ...filter, [key]: { ...operators, ...range } };
}

/**
 * One keyset page of the documents matching `filter`, in ascending `key` order; with `projection`, only those fields;
 * with `join` (another collection's $lookup stage), what each document refers to in it too, in the same command
 * (db/page-read.ts).
 */
export async function readKeysetPage<Doc>(
  model: Model<Doc>,
  filter: Conditions,
  key: string,
  window: KeysetWindow,
  projection?: Record<string, 0 | 1>,
  join?: LookupStage,
): Promise<KeysetRead<Doc & Record<string, unknown>>> {
  const docs = await readPage(model, {
    filter: keysetFilter(filter, key, window),
    sort: { [key]: window.backward ? -1 : 1 },
    limit: window.size + 1,
    projection,
    join,
  });
  return cutKeysetPage(docs, window);
}

/** A page from documents read in the window's direction (at most size + 1 of them matter), in ascending order. */
function cutKeysetPage<Doc>(docs: Doc[], window: { size: number; backward: boolean }): KeysetRead<Doc> {
  const page = docs.slice(0, window.size);
  return { items: window.backward ? page.reverse() : page, more: docs.length > window.size };
}

/** An order as the database sorts it: a stored field and a direction, ties broken by the id field in the same direction. */
export interface StoredOrder {
  field: string;
  id: string;
  direction: 1 | -1;
}

/** The order of two positions' values as both databases order them (numbers, texts by code point, instants). */
function compareValues(a: unknown, b: unknown): number {
  const x = a instanceof Date ? a.getTime() : a;
  const y = b instanceof Date ? b.getTime() : b;
  if (typeof x === "string" && typeof y === "string") {
    // By code point (as UTF-8 bytes compare), not by UTF-16 unit.
    const p = [...x];
    const q = [...y];
    for (let i = 0; i < Math.min(p.length, q.length); i++) {
      const d = p[i].codePointAt(0)! - q[i].codePointAt(0)!;
      if (d !== 0) return d;
    }
    return p.length - q.length;
  }
  return (x as number) < (y as number) ? -1 : (x as number) > (y as number) ? 1 : 0;
}

/**
 * The parts of a window in an order, each one index range read in the order: the rest of the `after` position's
 * value (ids beyond its id), the values strictly between the two positions, and the start of the `before` position's
 * value. (One range for the id order itself.) Each is a top-level condition on an indexed field, which both
 * MongoDB's planner and the embedded FerretDB's pushdown answer from the (field, id) index, cut to the page: a
 * tuple comparison would need an `$or`, which FerretDB's pushdown does not take.
 */
function windowParts(order: StoredOrder, window: OrderedWindow): Conditions[] {
  const [gt, lt] = order.direction === 1 ? ["$gt", "$lt"] : ["$lt", "$gt"];
  const { after, before } = window;
  if (order.field === order.id) {
    const range: Conditions = {};
    if (after) range[gt] = after.id;
    if (before) range[lt] = before.id;
    return [Object.keys(range).length > 0 ? { [order.id]: range } : {}];
  }
  if (after && before) {
    const sign = compareValues(after.value, before.value) * order.direction;
    if (sign > 0 || (sign === 0 && (after.id - before.id) * order.direction >= 0)) return [];
    if (sign === 0) return [{ [order.field]: after.value, [order.id]: { [gt]: after.id, [lt]: before.id } }];
  }
  const parts: Conditions[] = [];
  if (after) parts.push({ [order.field]: after.value, [order.id]: { [gt]: after.id } });
  const between: Conditions = {};
  if (after) between[gt] = after.value;
  if (before) between[lt] = before.value;
  parts.push(Object.keys(between).length > 0 ? { [order.field]: between } : {});
  if (before) parts.push({ [order.field]: before.value, [order.id]: { [lt]: before.id } });
  return parts;
}

/**
 * One keyset page of the documents matching `filter` in `order` (a field, then the id): the window's parts are read
 * in turn, each cut to what the page still needs (size + 1 in all, to learn whether more follow), until it is full.
 * A page costs at most three bounded index reads at any depth of the list, usually two (the first part holds the
 * documents tied with the cursor's). Items come in the order's sequence; with `join`, each holds what it refers to.
 */
export async function readOrderedPage<Doc>(
  model: Model<Doc>,
  filter: Conditions,
  order: StoredOrder,
  window: OrderedWindow,
  projection?: Record<string, 0 | 1>,
  join?: LookupStage,
): Promise<KeysetRead<Doc & Record<string, unknown>>> {
  const parts = windowParts(order, window);
  const dir = window.backward ? -order.direction : order.direction;
  const sort: Record<string, 1 | -1> =
    order.field === order.id
      ? { [order.id]: dir as 1 | -1 }
      : { [order.field]: dir as 1 | -1, [order.id]: dir as 1 | -1 };
  const docs: (Doc & Record<string, unknown>)[] = [];
  for (const part of window.backward ? [...parts].reverse() : parts) {
    const need = window.size + 1 - docs.length;
    if (need <= 0) break;
    docs.push(...(await readPage(model, { filter: allOf(filter, part), sort, limit: need, projection, join })));
  }
  return cutKeysetPage(docs, window);
}
