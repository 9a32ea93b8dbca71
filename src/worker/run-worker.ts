import { constants } from "node:os";
import { Worker } from "./worker.js";
import type { WorkerOptions } from "./worker-options.js";

/** Options of {@link runWorker}: a worker's, and which signals stop it. */
export interface RunWorkerOptions extends WorkerOptions {
  /** Default `["SIGTERM", "SIGINT"]`. */
  signals?: NodeJS.Signals[];
}

/**
 * Runs a worker in this process until SIGTERM or SIGINT: the first signal stops it cleanly (the run
 * in hand finishes, no new one is taken) and the returned promise resolves; a second signal exits
 * the process at once (exit code 128 + the signal's number), leaving the run in hand to crash
 * recovery. The handlers are removed when the worker stops.
 *
 * @example
 * // worker.ts, run by `node worker.js` under a process manager that sends SIGTERM to stop it:
 * await runWorker({ agent, store: new PostgresStore({ connectionString: process.env.DATABASE_URL ?? "" }) });
 */
export async function runWorker(options: RunWorkerOptions): Promise<void> {
  const { signals = ["SIGTERM", "SIGINT"], ...workerOptions } = options;
  const worker = new Worker(workerOptions);
  const logger = workerOptions.logger;
  let stopping = false;
  const onSignal = (signal: NodeJS.Signals): void => {
    if (stopping) {
      process.exit(128 + (constants.signals[signal] ?? 15));
    }
    stopping = true;
    logger?.info(`Stopping on ${signal}: finishing the run in hand.`, { worker: worker.id, signal });
    void worker.stop();
  };
  for (const signal of signals) process.on(signal, onSignal);
  try {
    await worker.start();
  } finally {
    for (const signal of signals) process.off(signal, onSignal);
  }
}
