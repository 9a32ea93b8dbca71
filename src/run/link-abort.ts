/** Aborts `controller` when `signal` aborts (now or later), with its reason; returns what stops listening. */
export function linkAbort(signal: AbortSignal, controller: AbortController): () => void {
  const onAbort = (): void => controller.abort(signal.reason);
  if (signal.aborted) {
    onAbort();
    return () => undefined;
  }
  signal.addEventListener("abort", onAbort, { once: true });
  return () => signal.removeEventListener("abort", onAbort);
}
