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
function cutKeysetPage<Doc>(docs: Doc[], window: KeysetWindow): KeysetRead<Doc> {
  const page = docs.slice(0, window.size);
  return { items: window.backward ? page.reverse() : page, more: docs.length > window.size };
}
