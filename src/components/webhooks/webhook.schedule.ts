// When a delivery is tried again: the retry schedule (at once, then 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 24 h: eight
// attempts over 41.5 hours), each wait with ±20 % jitter so receivers coming back are not hit all at once, scaled by
// WEBHOOKS_RETRY_SCALE (1 in service; the tests shrink it). A Retry-After the receiver sent is honoured (the wait is
// at least that, at most 24 hours), unscaled.
const MINUTE = 60_000;
const HOUR = 60 * MINUTE;

/** The wait after attempt n (index n - 1); as many attempts as waits plus one. */
export const RETRY_WAITS_MS: readonly number[] = [
  5_000,
  5 * MINUTE,
  30 * MINUTE,
  2 * HOUR,
  5 * HOUR,
  10 * HOUR,
  24 * HOUR,
];
export const MAX_ATTEMPTS = RETRY_WAITS_MS.length + 1;
const MAX_RETRY_AFTER_MS = 24 * HOUR;

/** Milliseconds a Retry-After header asks for (seconds, or an HTTP date); undefined when it says nothing usable. */
export function retryAfterMs(header: string | undefined, now: Date): number | undefined {
  if (header === undefined) return undefined;
  const text = header.trim();
  if (/^\d+$/.test(text)) return Math.min(Number(text) * 1000, MAX_RETRY_AFTER_MS);
  const at = Date.parse(text);
  if (Number.isNaN(at)) return undefined;
  return Math.min(Math.max(0, at - now.getTime()), MAX_RETRY_AFTER_MS);
}

/**
 * When the attempt after `attempt` attempts of this round is due, or null when the round is over (mark it failed).
 * `random` in [0, 1) gives the jitter.
 */
export function nextAttemptAt(
  attempt: number,
  now: Date,
  options: { scale: number; retryAfter?: number; random?: () => number },
): Date | null {
  if (attempt >= MAX_ATTEMPTS) return null;
  const base = RETRY_WAITS_MS[attempt - 1] * options.scale;
  const jitter = 0.8 + 0.4 * (options.random ?? Math.random)();
  const wait = Math.max(base * jitter, options.retryAfter ?? 0);
  return new Date(now.getTime() + wait);
}
