import cliProgress from "cli-progress";
import type { ProgressCallback } from "../src/bench/progress.js";

/**
 * Progress on standard error: a bar on a TTY, and elsewhere (CI, a pipe) one plain line each time
 * the label changes, so that logs stay readable.
 */
export function progressReporter(title: string): { onProgress: ProgressCallback; stop: () => void } {
  if (process.stderr.isTTY) {
    const bar = new cliProgress.SingleBar(
      { format: `${title} [{bar}] {value}/{total} {label}`, stream: process.stderr, clearOnComplete: true, hideCursor: true },
      cliProgress.Presets.shades_classic,
    );
    let started = false;
    return {
      onProgress: (done, total, label) => {
        if (!started) {
          bar.start(total, done, { label });
          started = true;
        } else {
          bar.setTotal(total);
          bar.update(done, { label });
        }
      },
      stop: () => bar.stop(),
    };
  }
  let last = "";
  const startedAt = performance.now();
  return {
    onProgress: (done, total, label) => {
      if (label === last) return;
      last = label;
      const seconds = ((performance.now() - startedAt) / 1000).toFixed(1);
      process.stderr.write(`${title}: ${done}/${total} ${label} (${seconds} s)\n`);
    },
    stop: () => {},
  };
}
