// The `orderBy` of a list and the cursors of its connection in that order (contract, sixth revision, "Order" and
// "Cursors"), shared by every component: a list is ordered by one field, then by its id in the same direction, so every
// order is total; a cursor names a position in its order (the field's value and the id).
//
// Cursors stay opaque: base64url of "v1:<Kind>:<id>" for the id order ascending (the cursors every connection
// handed out before orders existed, still handed out and read for it), and of "v2:<Kind>:<FIELD>:<DIRECTION>:<[value,
// id] as JSON>" for every other order. A cursor names a position, not a record, so it is valid with any where of its
// order; with another order it is BAD_REQUEST (INVALID_FORMAT) naming after or before; one this service did not hand
// out (or of another kind of list) is INVALID_CURSOR, as before.
import { badRequest, FieldErrorReason } from "./errors";
import {
  cursorOf,
  keysetWindow,
  positionOf,
  type ConnectionRequest,
  type CursorKind,
  type KeysetWindow,
} from "./keyset-pagination";

export type OrderDirection = "ASC" | "DESC";

/** What an order field's values are: numbers, texts (names folded), dates as YYYY-MM-DD texts, instants. */
export type OrderKind = "number" | "text" | "instant";

export interface OrderField<Record> {
  /** The stored field the list is sorted by (a name's folded copy for names). */
  stored: string;
  kind: OrderKind;
  /** The record fields its value is computed from (read with the page, so each item's cursor can be made). */
  reads: readonly (keyof Record & string)[];
  /** The value a record sorts by, as stored (an instant as its ISO text). */
  valueOf(record: Record): string | number;
}

/** The orders of one kind of list, by their API names, and its id. */
export interface OrderFields<Record> {
  kind: CursorKind;
  /** The API name of the id order (PROJECT_ID): ascending, it is the order of the cursors of before (v1). */
  idOrder: string;
  /** The stored id field, every order's tie breaker. */
  id: keyof Record & string;
  fields: Readonly<{ [name: string]: OrderField<Record> }>;
}

/** An order as a client sends it. */
export interface OrderInput {
  field: string;
  direction?: OrderDirection | null;
}

/** A checked order. */
export interface ListOrder<Record> {
  name: string;
  direction: OrderDirection;
  field: OrderField<Record>;
  /** The id order ascending (the default, and the order of v1 cursors). */
  byIdAscending: boolean;
}

/** A position in an order: the field's value (as stored: an instant as a Date) and the id. */
export interface OrderPosition {
  value: unknown;
  id: number;
}

/** A keyset window in an order: positions strictly between `after` and `before`, `size` from one end. */
export interface OrderedWindow {
  after?: OrderPosition;
  before?: OrderPosition;
  size: number;
  backward: boolean;
}

/** The checked order of `input` (undefined or null: the id order ascending). */
export function listOrder<R>(orders: OrderFields<R>, input: OrderInput | null | undefined): ListOrder<R> {
  const name = input?.field ?? orders.idOrder;
  const field = orders.fields[name];
  if (!field) {
    throw badRequest(
      `orderBy.field must be one of ${Object.keys(orders.fields).join(", ")}`,
      "orderBy.field",
      FieldErrorReason.UNKNOWN_FIELD,
    );
  }
  const direction = input?.direction ?? "ASC";
  if (direction !== "ASC" && direction !== "DESC") {
    throw badRequest("orderBy.direction must be ASC or DESC", "orderBy.direction", FieldErrorReason.INVALID_FORMAT);
  }
  return { name, direction, field, byIdAscending: name === orders.idOrder && direction === "ASC" };
}

/** The sort of a list in this order: the field, then the id, in the same direction. */
export function sortOf<R>(orders: OrderFields<R>, order: ListOrder<R>): Record<string, 1 | -1> {
  const dir = order.direction === "ASC" ? 1 : -1;
  return order.field.stored === orders.id ? { [orders.id]: dir } : { [order.field.stored]: dir, [orders.id]: dir };
}

/** The order as the database sorts a keyset page in it (db/keyset.ts's StoredOrder): stored field, id, direction. */
export function storedOrderOf<R>(
  orders: OrderFields<R>,
  order: ListOrder<R>,
): { field: string; id: string; direction: 1 | -1 } {
  return { field: order.field.stored, id: orders.id, direction: order.direction === "ASC" ? 1 : -1 };
}

const V2_TEXT = /^v2:(Project|Teacher|Student):([A-Z_]+):(ASC|DESC):(.*)$/s;

const encode = (text: string) => Buffer.from(text, "utf8").toString("base64url");

/** The cursor of a record's position in this order. */
export function orderedCursorOf<R>(orders: OrderFields<R>, order: ListOrder<R>, record: R): string {
  const id = record[orders.id] as number;
  if (order.byIdAscending) return cursorOf(orders.kind, id);
  return encode(
    `v2:${orders.kind}:${order.name}:${order.direction}:${JSON.stringify([order.field.valueOf(record), id])}`,
  );
}

function wrongOrder(field: "after" | "before", order: string): never {
  throw badRequest(
    `${field} is a cursor of another orderBy than ${order}; page with the orderBy its cursor came from, or start again without ${field}`,
    field,
    FieldErrorReason.INVALID_FORMAT,
  );
}

function notOurs(field: "after" | "before"): never {
  throw badRequest(
    `${field} is not a cursor this service handed out; use a cursor from pageInfo or edges`,
    field,
    FieldErrorReason.INVALID_CURSOR,
  );
}

/** The position a cursor names in `order`; BAD_REQUEST naming `field` for a cursor of another list or order. */
function orderedPositionOf<R>(
  orders: OrderFields<R>,
  order: ListOrder<R>,
  cursor: string,
  field: "after" | "before",
): OrderPosition {
  const text = Buffer.from(cursor, "base64url").toString("utf8");
  const match = V2_TEXT.exec(text);
  if (!match) {
    // A v1 cursor (or none this service made: positionOf says which): the id order ascending.
    const id = positionOf(orders.kind, cursor, field);
    if (!order.byIdAscending) wrongOrder(field, `${order.name} ${order.direction}`);
    return { value: id, id };
  }
  if (encode(text) !== cursor) notOurs(field);
  if (match[1] !== orders.kind) {
    throw badRequest(
      `${field} is a cursor of a list of ${match[1]} items, not of ${orders.kind} items`,
      field,
      FieldErrorReason.INVALID_CURSOR,
    );
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(match[4]);
  } catch {
    notOurs(field);
  }
  const known = orders.fields[match[2]];
  if (!Array.isArray(parsed) || parsed.length !== 2 || !known) notOurs(field);
  const [value, id] = parsed as [unknown, unknown];
  if (!Number.isSafeInteger(id)) notOurs(field);
  const fits =
    known.kind === "number"
      ? Number.isSafeInteger(value)
      : typeof value === "string" && (known.kind === "text" || !Number.isNaN(Date.parse(value)));
  if (!fits) notOurs(field);
  if (match[2] !== order.name || match[3] !== order.direction) wrongOrder(field, `${order.name} ${order.direction}`);
  return { value: known.kind === "instant" ? new Date(value as string) : value, id: id as number };
}

/** Checks a connection's arguments in an order and decodes its cursors (as keysetWindow does for the id order). */
export function orderedWindow<R>(
  orders: OrderFields<R>,
  order: ListOrder<R>,
  request: ConnectionRequest,
): OrderedWindow {
  // The page's size and direction, checked as for every connection (the cursors are decoded below).
  const { size, backward }: KeysetWindow = keysetWindow(orders.kind, { first: request.first, last: request.last });
  const window: OrderedWindow = { size, backward };
  if (request.after != null) window.after = orderedPositionOf(orders, order, request.after, "after");
  if (request.before != null) window.before = orderedPositionOf(orders, order, request.before, "before");
  return window;
}
