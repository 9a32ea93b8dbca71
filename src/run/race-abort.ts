/** What a race against a run's signal gave: the work's own result, or the abort that came first. */
export type Raced<T> = { type: "settled"; value: T } | { type: "threw"; error: unknown } | { type: "aborted" };

/**
 * Waits for work or for the signal's abort, whichever comes first. Work that ignores its signal (a
 * planner or a model call that hangs) cannot keep a cancel from ending the run: its late result or
 * error is dropped, never unhandled.
 */
export function raceAbort<T>(work: () => T | Promise<T>, signal: AbortSignal): Promise<Raced<T>> {
  if (signal.aborted) return Promise.resolve({ type: "aborted" });
  const settled = (async (): Promise<Raced<T>> => {
    try {
      return { type: "settled", value: await work() };
    } catch (error) {
      return { type: "threw", error };
    }
  })();
  let onAbort: () => void = () => undefined;
  const aborted = new Promise<Raced<T>>((resolve) => {
    onAbort = () => resolve({ type: "aborted" });
    signal.addEventListener("abort", onAbort, { once: true });
  });
  return Promise.race([settled, aborted]).finally(() => signal.removeEventListener("abort", onAbort));
}
