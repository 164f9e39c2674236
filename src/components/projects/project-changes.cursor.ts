// Cursors of the live updates: opaque to clients (base64url of "v1:<seq>", a position of the change log), so the
// encoding can change behind a new version prefix without breaking stored cursors.
const PREFIX = "v1:";

export function encodeCursor(seq: number): string {
  return Buffer.from(`${PREFIX}${seq}`).toString("base64url");
}

/** The log position a cursor names, or undefined when it is not a cursor of this service. */
export function decodeCursor(cursor: string): number | undefined {
  if (cursor.length > 64 || !/^[A-Za-z0-9_-]+$/.test(cursor)) return undefined;
  const text = Buffer.from(cursor, "base64url").toString("utf8");
  if (!text.startsWith(PREFIX)) return undefined;
  const digits = text.slice(PREFIX.length);
  if (!/^[1-9]\d{0,15}$/.test(digits)) return undefined;
  const seq = Number(digits);
  return Number.isSafeInteger(seq) && encodeCursor(seq) === cursor ? seq : undefined;
}
