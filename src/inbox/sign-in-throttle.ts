/** The longest a failed sign-in makes the next one from the same address wait: 8 seconds. */
const MAX_SIGN_IN_DELAY_MS = 8000;

/**
 * Slows down guessing: each failed sign-in from an address doubles the wait before that address's
 * next attempt is answered (250 ms, 500 ms, ... up to {@link MAX_SIGN_IN_DELAY_MS}); a success clears
 * it. A token has 256 random bits, so this is a courtesy against noisy scripts, not the protection.
 */
export class SignInThrottle {
  readonly #failures = new Map<string, { count: number; at: number }>();
  readonly #inFlight = new Set<string>();
  readonly #now: () => number;

  constructor(options: { now?: () => number } = {}) {
    this.#now = options.now ?? Date.now;
  }

  /** How long to wait before answering an attempt from this address. */
  delayFor(address: string): number {
    const entry = this.#failures.get(address);
    if (entry === undefined) return 0;
    // Forgotten after a quiet minute past the wait, so the map does not grow for ever.
    const delay = Math.min(MAX_SIGN_IN_DELAY_MS, 250 * 2 ** (entry.count - 1));
    if (this.#now() - entry.at > delay + 60_000) {
      this.#failures.delete(address);
      return 0;
    }
    return delay;
  }

  /**
   * Claims the address's one attempt in flight: false while another attempt from it is being answered
   * (that one is refused at once with 429), so guesses sent in parallel are not each answered after
   * the same wait. {@link release} gives it back.
   */
  begin(address: string): boolean {
    if (this.#inFlight.has(address)) return false;
    this.#inFlight.add(address);
    return true;
  }

  /** Ends the address's attempt in flight. */
  release(address: string): void {
    this.#inFlight.delete(address);
  }

  /** Counts a failed attempt from an address. */
  failed(address: string): void {
    const entry = this.#failures.get(address);
    this.#failures.set(address, { count: Math.min((entry?.count ?? 0) + 1, 16), at: this.#now() });
  }

  /** Clears an address after a good sign-in. */
  succeeded(address: string): void {
    this.#failures.delete(address);
  }
}
