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

// The races waiting on each signal. A signal gets one abort listener, the first time a race waits on
// it, instead of one added and removed per race: EventTarget's listeners cost far more than a Set's
// entries, and a run races its signal several times per step.
const waiting = new WeakMap<AbortSignal, Set<() => void>>();

function waitersOf(signal: AbortSignal): Set<() => void> {
  let waiters = waiting.get(signal);
  if (waiters === undefined) {
    const made = new Set<() => void>();
    waiters = made;
    waiting.set(signal, made);
    signal.addEventListener(
      "abort",
      () => {
        for (const wake of [...made]) wake();
        made.clear();
      },
      { once: true },
    );
  }
  return waiters;
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
  const waiters = waitersOf(signal);
  return new Promise<Raced<T>>((resolve) => {
    let done = false;
    const finish = (raced: Raced<T>): void => {
      if (done) return;
      done = true;
      waiters.delete(onAbort);
      resolve(raced);
    };
    const onAbort = (): void => finish({ type: "aborted" });
    waiters.add(onAbort);
    Promise.resolve(started).then(
      (value) => finish({ type: "settled", value }),
      (error: unknown) => finish({ type: "threw", error }),
    );
  });
}
