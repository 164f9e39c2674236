// Offset pagination shared by every list: bounded page sizes and a stable order (by id). Lists read `limit + 1`
// items to learn has_more, and count the total only when the caller asks for it (a count walks every matching
// index entry).
import { badRequest, FieldErrorReason } from "./errors";

export const PAGE_DEFAULT_LIMIT = 20;
export const PAGE_MAX_LIMIT = 100;
export const PAGE_MAX_OFFSET = 1_000_000;

export interface PageRequest {
  offset?: number | null;
  limit?: number | null;
}

export interface Page<T> {
  items: T[];
  total: number;
  offset: number;
  limit: number;
  has_more: boolean;
}

/** Checks a page request; a limit over the maximum is BAD_REQUEST, not silently clamped. */
export function pageBounds(page: PageRequest | undefined): { offset: number; limit: number } {
  const offset = page?.offset ?? 0;
  const limit = page?.limit ?? PAGE_DEFAULT_LIMIT;
  if (!Number.isInteger(offset) || offset < 0 || offset > PAGE_MAX_OFFSET) {
    throw badRequest(
      `offset must be a whole number from 0 to ${PAGE_MAX_OFFSET}`,
      "offset",
      FieldErrorReason.OUT_OF_RANGE,
    );
  }
  if (!Number.isInteger(limit) || limit < 1 || limit > PAGE_MAX_LIMIT) {
    throw badRequest(
      `limit must be a whole number from 1 to ${PAGE_MAX_LIMIT}`,
      "limit",
      FieldErrorReason.OUT_OF_RANGE,
    );
  }
  return { offset, limit };
}

/**
 * A page from its items, whether more follow, and the total when it was counted. Uncounted, `total` is the least
 * total the page proves (offset + items, + 1 when more follow): only for callers that did not ask for it.
 */
export function toPage<T>(
  items: T[],
  bounds: { offset: number; limit: number },
  has_more: boolean,
  total?: number,
): Page<T> {
  return { items, total: total ?? bounds.offset + items.length + (has_more ? 1 : 0), ...bounds, has_more };
}
