import cliProgress from "cli-progress";

/** Progress of a long command, shown on stderr so that stdout keeps only the result. */
interface ProgressReporter {
  /** The benchmark's callback: `done` of `total`, and what runs now. */
  onProgress: (done: number, total: number, label: string) => void;
  /** Ends the display. */
  stop: () => void;
}

/** A bar redrawn in place: only on a terminal, where it can be. */
function barReporter(name: string): ProgressReporter {
  const bar = new cliProgress.SingleBar(
    {
      format: `${name} [{bar}] {value}/{total} {label}`,
      stream: process.stderr,
      hideCursor: true,
      clearOnComplete: true,
    },
    cliProgress.Presets.shades_classic,
  );
  let started = false;
  return {
    onProgress: (done, total, label) => {
      if (!started) {
        bar.start(total, done, { label });
        started = true;
      } else {
        if (bar.getTotal() !== total) bar.setTotal(total);
        bar.update(done, { label });
      }
    },
    stop: () => {
      if (started) bar.stop();
    },
  };
}

/**
 * Plain lines for a log or a pipe, where a redrawn bar would be a mess of carriage returns: one
 * line at each tenth of the way, and at the end.
 */
function lineReporter(name: string): ProgressReporter {
  let lastTenth = -1;
  let ended = false;
  return {
    onProgress: (done, total, label) => {
      const tenth = total <= 0 ? 10 : Math.floor((done * 10) / total);
      const end = done >= total;
      if (tenth === lastTenth && (!end || ended)) return;
      lastTenth = tenth;
      ended = end;
      process.stderr.write(`${name}: ${done}/${total} ${label}\n`);
    },
    stop: () => undefined,
  };
}

/** The progress display for a command: a bar when stderr is a terminal, plain lines elsewhere. */
export function progressReporter(name: string): ProgressReporter {
  return process.stderr.isTTY === true ? barReporter(name) : lineReporter(name);
}
