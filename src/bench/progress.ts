/**
 * Reports a benchmark's progress: `done` of `total` units, and what is running now. The CLI draws a
 * progress bar from it on a TTY and prints plain lines elsewhere; a benchmark never writes to the
 * terminal itself.
 */
export type ProgressCallback = (done: number, total: number, label: string) => void;

/** A progress callback that does nothing: the default. */
export const noProgress: ProgressCallback = () => {};
