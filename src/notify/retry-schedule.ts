/** The first retry comes this long after the first failure: well within the 10 s the contract allows. */
export const FIRST_RETRY_MS = 5_000;

/** Retries back off, doubling, to at most this far apart: one hour. */
export const MAX_RETRY_GAP_MS = 60 * 60_000;

/** An event is retried for this long after it was made, then marked `failed`: 24 hours. */
export const RETRY_FOR_MS = 24 * 60 * 60_000;

/**
 * When to try an event again after its `attempts`-th failed attempt (1 for the first), failing at
 * `now`: 5 s after the first failure, then twice as long after each next one, at most an hour apart;
 * `null` once the next try would fall more than 24 hours after the event was made (it is `failed`).
 *
 * @example
 * retryAt({ createdAt, attempts: 1, now }); // now + 5 s
 */
export function retryAt(options: { createdAt: Date; attempts: number; now: Date }): Date | null {
  const { createdAt, now } = options;
  const attempts = Math.max(1, Math.floor(options.attempts));
  // 2^(attempts - 1) grows past an hour's worth of 5 s steps at the 11th attempt: capped there,
  // before the power could grow without bound.
  const gap = Math.min(MAX_RETRY_GAP_MS, FIRST_RETRY_MS * 2 ** Math.min(attempts - 1, 30));
  const next = now.getTime() + gap;
  return next > createdAt.getTime() + RETRY_FOR_MS ? null : new Date(next);
}
