/** The first retry comes this long after the first failure: well within the 10 s the contract allows. */
export const FIRST_RETRY_MS = 5_000;

/** Retries back off, doubling, to at most this far apart: one hour. */
export const MAX_RETRY_GAP_MS = 60 * 60_000;

/**
 * An event is retried for this long from its first attempt, then marked `failed`: 24 hours of the
 * schedule. Counted by attempts, not from when the event was made, so that an event sent late (a run
 * that still waits when a deliverer first starts, or after a long outage) gets its whole day of retries.
 */
export const RETRY_FOR_MS = 24 * 60 * 60_000;

/** The gap after the `attempts`-th failed attempt (1 for the first): 5 s, doubling, at most an hour. */
function gapAfter(attempts: number): number {
  // 2^(attempts - 1) grows past an hour's worth of 5 s steps at the 11th attempt: capped there,
  // before the power could grow without bound.
  return Math.min(MAX_RETRY_GAP_MS, FIRST_RETRY_MS * 2 ** Math.min(attempts - 1, 30));
}

/** How far after the first attempt the schedule puts the next try, after `attempts` failed ones. */
function scheduledSpan(attempts: number): number {
  let span = 0;
  for (let attempt = 1; attempt <= attempts; attempt++) {
    span += gapAfter(attempt);
    // Past the window the sum need not grow: this bounds the loop for any attempt count.
    if (span > RETRY_FOR_MS) return span;
  }
  return span;
}

/**
 * When to try an event again after its `attempts`-th failed attempt (1 for the first), failing at
 * `now`: 5 s after the first failure, then twice as long after each next one, at most an hour apart;
 * `null` once the schedule would take the next try more than 24 hours past the first attempt (the
 * event is `failed`).
 *
 * @example
 * retryAt({ attempts: 1, now }); // now + 5 s
 */
export function retryAt(options: { attempts: number; now: Date }): Date | null {
  const attempts = Math.max(1, Math.floor(options.attempts));
  if (scheduledSpan(attempts) > RETRY_FOR_MS) return null;
  return new Date(options.now.getTime() + gapAfter(attempts));
}
