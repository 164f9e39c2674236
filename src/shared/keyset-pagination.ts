// Cursor pagination shared by every connection (Relay's cursor connections: first/after forward, last/before
// backward): the checked request, the opaque cursors and the page a service hands out. Pages are keyset pages: a
// cursor holds the position (the id the list is ordered by), so a page after a cursor is "ids beyond it, sorted,
// limit size + 1" — a page deep in a list costs what the first page costs (db/keyset.ts runs it), unlike an offset.
//
// Cursors are opaque to clients: base64url of "v1:<Kind>:<id>". The version lets a later format be told apart;
// the kind lets a cursor of another list (a teacher's in a list of projects) be refused instead of read as a
// position. A cursor names a position, not a record: it stays valid when its record leaves the list (a filter no
// longer matching), and the same project has the same cursor in every list of projects (all ordered by project_id).
import { badRequest, FieldErrorReason } from "./errors";
import { PAGE_DEFAULT_LIMIT, PAGE_MAX_LIMIT } from "./pagination";

/** A connection's arguments as a client sends them (GraphQL's first/after/last/before). */
export interface ConnectionRequest {
  first?: number | null;
  after?: string | null;
  last?: number | null;
  before?: string | null;
}

/** What a keyset page reads: ids strictly between `after` and `before` (each optional), `size` from one end. */
export interface KeysetWindow {
  after?: number;
  before?: number;
  size: number;
  /** From the end of the window (`last`): the highest ids, handed out in ascending order all the same. */
  backward: boolean;
}

/** The items a keyset read found, in ascending order, and whether more lie beyond them in the read's direction. */
export interface KeysetRead<T> {
  items: T[];
  more: boolean;
}

export interface PageInfo {
  hasNextPage: boolean;
  hasPreviousPage: boolean;
  startCursor: string | null;
  endCursor: string | null;
}

export interface Edge<T> {
  cursor: string;
  node: T;
}

/** One page of a connection. `totalCount` is undefined unless it was asked for (a count reads every match). */
export interface Connection<T> {
  edges: Edge<T>[];
  nodes: T[];
  pageInfo: PageInfo;
  totalCount?: number;
}

/** The lists that hand out cursors; each list's cursors name positions of its own kind only. */
export type CursorKind = "Project" | "Teacher" | "Student";

const CURSOR_VERSION = "v1";
const CURSOR_TEXT = /^v1:(Project|Teacher|Student):(0|-?[1-9][0-9]{0,15})$/;

/** The opaque cursor of the position of id `id` in a list of `kind`. */
export function cursorOf(kind: CursorKind, id: number): string {
  return Buffer.from(`${CURSOR_VERSION}:${kind}:${id}`, "utf8").toString("base64url");
}

/** The position a cursor names; BAD_REQUEST naming `field` for anything this list did not hand out. */
export function positionOf(kind: CursorKind, cursor: string, field: "after" | "before"): number {
  const text = Buffer.from(cursor, "base64url").toString("utf8");
  const match = CURSOR_TEXT.exec(text);
  // Only the canonical spelling: one cursor per position, so clients may compare cursors as strings.
  const id = match ? Number(match[2]) : NaN;
  if (!match || !Number.isSafeInteger(id) || cursorOf(match[1] as CursorKind, id) !== cursor) {
    throw badRequest(
      `${field} is not a cursor this service handed out; use a cursor from pageInfo or edges`,
      field,
      FieldErrorReason.INVALID_CURSOR,
    );
  }
  if (match[1] !== kind) {
    throw badRequest(
      `${field} is a cursor of a list of ${match[1]} items, not of ${kind} items`,
      field,
      FieldErrorReason.INVALID_CURSOR,
    );
  }
  return id;
}

/**
 * Checks a connection's arguments and decodes its cursors. `first` and `last` are 0 to PAGE_MAX_LIMIT; with neither,
 * the first PAGE_DEFAULT_LIMIT items. Both at once (which the Relay specification allows but discourages) is
 * BAD_REQUEST: no client helper sends it, and refusing says so plainly instead of answering a surprising slice.
 */
export function keysetWindow(kind: CursorKind, request: ConnectionRequest): KeysetWindow {
  const { first, last, after, before } = request;
  if (first != null && last != null) {
    throw badRequest(
      "pass first (to page forward) or last (to page backward), not both",
      "last",
      FieldErrorReason.NOT_SUPPORTED,
    );
  }
  for (const [field, value] of [
    ["first", first],
    ["last", last],
  ] as const) {
    if (value != null && (!Number.isInteger(value) || value < 0 || value > PAGE_MAX_LIMIT)) {
      throw badRequest(
        `${field} must be a whole number from 0 to ${PAGE_MAX_LIMIT}`,
        field,
        FieldErrorReason.OUT_OF_RANGE,
      );
    }
  }
  const window: KeysetWindow = {
    size: first ?? last ?? PAGE_DEFAULT_LIMIT,
    backward: last != null,
  };
  if (after != null) window.after = positionOf(kind, after, "after");
  if (before != null) window.before = positionOf(kind, before, "before");
  return window;
}

/**
 * The connection of a keyset read: edges with their cursors and pageInfo per the Relay specification. The extra
 * item read beyond the page makes hasNextPage (forward) and hasPreviousPage (backward) exact; the other direction
 * is false, as the specification allows when the server cannot tell cheaply ("elements before `after`" would cost
 * another query): clients page in one direction and keep the other flag from their first page.
 */
export function toConnection<T>(
  kind: CursorKind,
  keyOf: (item: T) => number,
  window: KeysetWindow,
  read: KeysetRead<T>,
  totalCount?: number,
): Connection<T> {
  return connectionOf((node) => cursorOf(kind, keyOf(node)), window, read, totalCount);
}

/** The connection of a keyset read whose cursors `cursorFor` makes (a list in another order: shared/list-order.ts). */
export function connectionOf<T>(
  cursorFor: (item: T) => string,
  window: { backward: boolean },
  read: KeysetRead<T>,
  totalCount?: number,
): Connection<T> {
  const edges = read.items.map((node) => ({ cursor: cursorFor(node), node }));
  return {
    edges,
    nodes: read.items,
    pageInfo: {
      hasNextPage: !window.backward && read.more,
      hasPreviousPage: window.backward && read.more,
      startCursor: edges[0]?.cursor ?? null,
      endCursor: edges.at(-1)?.cursor ?? null,
    },
    totalCount,
  };
}
