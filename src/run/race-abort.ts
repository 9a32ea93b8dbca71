/** What a race against a run's signal gave: the work's own result, or the abort that came first. */
type Raced<T> = { type: "settled"; value: T } | { type: "threw"; error: unknown } | { type: "aborted" };

/** Whether a value is a promise-like, without ever throwing (a revoked Proxy is not). */
function thenable(value: unknown): value is PromiseLike<unknown> {
  if ((typeof value !== "object" && typeof value !== "function") || value === null) return false;
  try {
    return typeof (value as { then?: unknown }).then === "function";
  } catch {
    return false;
  }
}

/**
 * Waits for work or for the signal's abort, whichever comes first. Work that ignores its signal (a
 * planner or a model call that hangs) cannot keep a cancel from ending the run: its late result or
 * error is dropped, never unhandled. Work that answers synchronously costs no race.
 */
export async function raceAbort<T>(work: () => T | PromiseLike<T>, signal: AbortSignal): Promise<Raced<T>> {
  if (signal.aborted) return { type: "aborted" };
  let started: T | PromiseLike<T>;
  try {
    started = work();
  } catch (error) {
    return { type: "threw", error };
  }
  if (!thenable(started)) return { type: "settled", value: started };
  // An abort during the synchronous part of the work came before any listener: it is still an abort.
  if (signal.aborted) {
    Promise.resolve(started).then(undefined, () => undefined);
    return { type: "aborted" };
  }
  const settled = Promise.resolve(started).then(
    (value): Raced<T> => ({ type: "settled", value }),
    (error: unknown): Raced<T> => ({ type: "threw", error }),
  );
  let onAbort: () => void = () => undefined;
  const aborted = new Promise<Raced<T>>((resolve) => {
    onAbort = () => resolve({ type: "aborted" });
    signal.addEventListener("abort", onAbort, { once: true });
  });
  try {
    return await Promise.race([settled, aborted]);
  } finally {
    signal.removeEventListener("abort", onAbort);
  }
}
