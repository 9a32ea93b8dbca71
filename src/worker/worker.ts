import { isLeashError, messageOf } from "../errors/index.js";
import type { ErrorCode } from "../errors/index.js";
import type { RunState } from "../state/run-state.js";
import { listSummaries } from "../stores/list-summaries.js";
import { isLeasingStore } from "./leasing-store.js";
import { GrantChanges } from "./grant-changes.js";
import type { LeasingStore } from "./leasing-store.js";
import { startNotifier } from "../notify/deliverer.js";
import type { Notifier } from "../notify/deliverer.js";
import { resolveWorkerOptions } from "./worker-options.js";
import type { ResolvedWorkerOptions, WorkerOptions } from "./worker-options.js";

/**
 * Refusals that mean another process got to the run first: the worker moves on. Anything else is a
 * problem with the run itself, logged as an error and not retried until the run changes.
 */
const LOST_RACE: ReadonlySet<ErrorCode> = new Set<ErrorCode>([
  "stale_state",
  "run_ended",
  "already_resumed",
  "run_not_found",
]);

/** How many summaries of runs awaiting approval a pass reads at a time. */
const CLAIM_PAGE_LIMIT = 100;

/** Whether a load failed because the stored state cannot be read (not because the store is away). */
function isUnreadable(error: unknown): error is Error {
  return (
    isLeashError(error, "invalid_state") || isLeashError(error, "unsupported_version") || error instanceof RangeError
  );
}

/**
 * Whether a run waits on a worker: paused for approval with an answer recorded out of process. A
 * gate's session never does: its app's loop takes its calls on, through `gate.session`.
 */
function needsApproval(state: RunState, grantsChanged = false): boolean {
  if (state.gate === true || state.status !== "awaiting_approval") return false;
  // With no answer, only a standing grant given (or freed) since can move it.
  return state.answers.length > 0 || grantsChanged;
}

/** What became of one run a worker took. */
type Attempt = "resumed" | "lost" | "failed";

/**
 * Resumes runs from a shared store: runs awaiting approval whose answer was recorded out of process
 * (`store.answer`, e.g. `leash approve` on another machine), and on a leasing store (PostgreSQL)
 * runs a crashed worker left running. Exactly one worker resumes a run: on a leasing store each run
 * is leased to one worker (`FOR UPDATE SKIP LOCKED`, a lease that runs out if the worker dies);
 * on any other store the compare-and-set claim inside `agent.resume` decides, and a worker that loses
 * gets a `StateError`, logs it and moves on. A worker never stops on a run's error.
 *
 * @example
 * const worker = new Worker({ agent, store });
 * process.once("SIGTERM", () => void worker.stop());
 * await worker.start();   // resolves once stopped
 */
export class Worker {
  readonly #options: ResolvedWorkerOptions;
  readonly #leasing: LeasingStore | undefined;
  /** Runs whose resume failed, with the revision that failed: not tried again until it changes. */
  readonly #failed = new Map<string, number>();
  /** Runs whose stored state cannot be read, already logged. */
  readonly #unreadable = new Set<string>();
  #stopping = false;
  #loop: Promise<void> | undefined;
  #pass: Promise<number> | undefined;
  #wake: (() => void) | undefined;
  readonly #grants = new GrantChanges();
  #notifier: Notifier | undefined;
  /** The last reason the notifier could not start, logged once rather than at every pass. */
  #notifierFailure: string | undefined;

  constructor(options: WorkerOptions) {
    this.#options = resolveWorkerOptions(options);
    this.#leasing = isLeasingStore(this.#options.store) ? this.#options.store : undefined;
    this.#options.signal?.addEventListener("abort", () => void this.stop(), { once: true });
    if (this.#options.signal?.aborted === true) this.#stopping = true;
  }

  /** The worker's name in leases and logs. */
  get id(): string {
    return this.#options.workerId;
  }

  /**
   * Polls the store and resumes what it finds until `stop()` is called or the signal aborts.
   * Resolves once stopped; a failing pass (the database away) is logged and tried again later.
   */
  start(): Promise<void> {
    this.#loop ??= (async () => {
      while (!this.#stopping) {
        await this.#startNotifier();
        try {
          await this.runOnce();
        } catch (error) {
          this.#options.logger.error(`A pass failed; trying again in ${this.#options.pollMs} ms: ${messageOf(error)}`, {
            worker: this.id,
            error,
          });
        }
        await this.#sleep();
      }
    })();
    return this.#loop;
  }

  /** Stops taking runs, lets the run in hand finish, and resolves when the worker is idle. A stopped worker stays stopped. */
  async stop(): Promise<void> {
    this.#stopping = true;
    this.#wake?.();
    await this.#loop;
    await this.#pass?.catch(() => undefined);
    await this.#notifier?.stop();
  }

  /**
   * Starts delivering the outbox (`notify`) once: a start that fails (the database away) is logged and
   * tried again at the next pass. The notifier runs on its own timer, so a run never waits on it.
   */
  async #startNotifier(): Promise<void> {
    const notify = this.#options.notify;
    if (notify === undefined || this.#notifier !== undefined) return;
    try {
      const notifier = await startNotifier(this.#options.store, { ...notify, logger: this.#options.logger });
      // A stop that came while it started: it stops with the worker, not after.
      if (this.#stopping) await notifier.stop();
      else this.#notifier = notifier;
    } catch (error) {
      if (this.#notifierFailure === messageOf(error)) return;
      this.#notifierFailure = messageOf(error);
      this.#options.logger.error(`Could not start delivering webhooks; trying again: ${messageOf(error)}`, {
        worker: this.id,
        error,
      });
    }
  }

  /**
   * One pass: resumes every run that needs a worker now, one after another, and returns how many it
   * resumed (runs lost to another process or that failed do not count). For tests and cron jobs.
   */
  runOnce(): Promise<number> {
    if (this.#stopping) return Promise.resolve(0);
    const pass = (async () => {
      const grantsChanged = await this.#grants.changed(this.#options.store).catch((error: unknown) => {
        // The answered runs do not wait on the grants: a listing that failed skips only the grant sweep.
        this.#options.logger.warn(`Could not read the store's standing grants: ${messageOf(error)}`, {
          worker: this.id,
        });
        return false;
      });
      if (this.#leasing === undefined) return this.#passByClaim(grantsChanged);
      const leased = await this.#passByLease(this.#leasing);
      // Paused runs with no answer are not leased: when grants changed, their resumes' own
      // compare-and-set claims decide which worker takes each, as on a store without leases.
      return grantsChanged ? leased + (await this.#passByClaim(true)) : leased;
    })();
    this.#pass = pass;
    return pass;
  }

  async #passByLease(store: LeasingStore): Promise<number> {
    const { workerId: worker, leaseMs: ttlMs, recover } = this.#options;
    // The pass's cursor: the last run it tried. Leases come in the order runs were created, so each
    // lease asks for the next run after it, and the pass ends at the end of the backlog, having
    // tried each run once, with one parameter per query however long the backlog is.
    let after: string | undefined;
    let resumed = 0;
    while (!this.#stopping) {
      // One at a time: a run leased is a run this worker is about to work on, so idle workers
      // elsewhere get the rest.
      const [runId] = await store.lease({
        worker,
        limit: 1,
        ttlMs,
        recover,
        ...(after === undefined ? {} : { after }),
      });
      // A store that ignored the cursor would hand back the run just tried: the pass ends there.
      if (runId === undefined || runId === after) break;
      after = runId;
      const outcome = await this.#withLease(store, runId, async (lease) => {
        let state: RunState | null;
        try {
          state = await store.load(runId);
        } catch (error) {
          if (!isUnreadable(error)) throw error;
          // Its lease is left to run out, so the run is not taken again at once.
          this.#skipUnreadable(runId, error);
          return "failed";
        }
        // The lease was taken on what the row said a moment ago; the state itself decides.
        if (state === null || state.gate === true) return "lost";
        if (!(needsApproval(state) || (recover && state.status === "running"))) return "lost";
        return this.#attempt(state, lease);
      });
      if (outcome === "resumed") resumed++;
    }
    return resumed;
  }

  /**
   * A pass on a store without leases: pages through the summaries of the runs awaiting approval and
   * loads only those that have an answer recorded (the summary says so), one at a time, so a pass
   * holds one page and one run, however long the backlog.
   */
  async #passByClaim(grantsChanged: boolean): Promise<number> {
    const { store } = this.#options;
    let resumed = 0;
    let cursor: string | undefined;
    do {
      const page = await listSummaries(store, {
        status: "awaiting_approval",
        limit: CLAIM_PAGE_LIMIT,
        ...(cursor === undefined ? {} : { cursor }),
        onUnreadable: ({ runId, error }) => this.#skipUnreadable(runId, error),
      });
      for (const run of page.runs) {
        if (this.#stopping) return resumed;
        if ((run.answers === 0 && !grantsChanged) || this.#failed.get(run.runId) === run.revision) continue;
        let state: RunState | null;
        try {
          state = await store.load(run.runId);
        } catch (error) {
          if (!isUnreadable(error)) throw error;
          this.#skipUnreadable(run.runId, error);
          continue;
        }
        // The summary was read a moment ago; the state itself decides.
        if (state === null || !needsApproval(state, grantsChanged) || this.#failed.get(state.runId) === state.revision)
          continue;
        const outcome = await this.#attempt(state);
        if (outcome === "resumed") resumed++;
        if (outcome === "failed") this.#failed.set(state.runId, state.revision);
      }
      cursor = page.next;
    } while (cursor !== undefined && !this.#stopping);
    return resumed;
  }

  /** Leaves out a run whose stored state cannot be read, and says so once per run, not at every pass. */
  #skipUnreadable(runId: string, error: Error): void {
    if (this.#unreadable.has(runId)) return;
    this.#unreadable.add(runId);
    this.#options.logger.error(
      `Run \`${runId}\` cannot be read from the store, so it is skipped: ${messageOf(error)}`,
      { worker: this.id, runId, error },
    );
  }

  /**
   * Holds the lease while `body` runs, renewing it; gives it back unless the run failed (then it runs
   * out, as a back-off). A lease lost (a renewal that fails, or finds another holder) aborts the
   * signal `body` is given: the resume then stops the run, and nothing more is written for it here.
   */
  async #withLease(
    store: LeasingStore,
    runId: string,
    body: (lease: AbortSignal) => Promise<Attempt>,
  ): Promise<Attempt> {
    const { workerId: worker, leaseMs: ttlMs, logger } = this.#options;
    const lease = new AbortController();
    const lose = (why: string): void => {
      if (lease.signal.aborted) return;
      clearInterval(heartbeat);
      logger.warn(`Lost the lease on run \`${runId}\` (${why}); stopping the run, and writing nothing more for it.`, {
        worker,
        runId,
      });
      lease.abort();
    };
    // Safety first: a renewal that fails leaves it unknown whether the lease still holds, so the run
    // is let go at once rather than driven on by a worker that may no longer hold it.
    const heartbeat = setInterval(
      () => {
        store.renewLease({ worker, runIds: [runId], ttlMs }).then(
          (held) => {
            if (!held.includes(runId)) lose("another worker holds it, or it ran out");
          },
          (error: unknown) => lose(`it could not be renewed: ${messageOf(error)}`),
        );
      },
      Math.max(1, Math.floor(ttlMs / 3)),
    );
    heartbeat.unref();
    let outcome: Attempt = "failed";
    try {
      outcome = await body(lease.signal);
      return outcome;
    } finally {
      clearInterval(heartbeat);
      if (outcome !== "failed" && !lease.signal.aborted) {
        await store.releaseLease({ worker, runIds: [runId] }).catch((error: unknown) => {
          logger.warn(`Could not release the lease on run \`${runId}\`; it runs out by itself: ${messageOf(error)}`, {
            worker,
            runId,
          });
        });
      }
    }
  }

  /**
   * Resumes the copy of the run that was looked at, never the run by id: a resume by id of a run that
   * another worker has just moved to `running` would be taken for crash recovery of a live run, while
   * a copy whose revision is no longer the stored one is refused (`stale_state`).
   */
  async #attempt(seen: RunState, lease?: AbortSignal): Promise<Attempt> {
    const { agent, logger } = this.#options;
    const worker = this.id;
    const { runId } = seen;
    let state: RunState;
    try {
      state = await agent.resume(seen, lease === undefined ? {} : { lease });
    } catch (error) {
      // Said when the lease was lost; the run is its new holder's now.
      if (lease?.aborted === true) return "lost";
      if (isLeashError(error) && LOST_RACE.has(error.code)) {
        logger.info(`Another process got to run \`${runId}\` first (${error.code}); moving on.`, {
          worker,
          runId,
          code: error.code,
        });
        return "lost";
      }
      if (isLeashError(error, "store_busy")) {
        // A busy database is no verdict on the run: it is tried again at the next pass.
        logger.warn(`The store was busy while resuming run \`${runId}\`; trying again later.`, { worker, runId });
        return "lost";
      }
      logger.error(`Resuming run \`${runId}\` failed: ${messageOf(error)}`, { worker, runId, error });
      return "failed";
    }
    // A paused run with no answer that no grant approves comes back as it was: nothing happened.
    if (state.status === "awaiting_approval" && state.answers.length === 0 && state.revision === seen.revision)
      return "lost";
    // A resume claims the run and clears its recorded answers; answers still there mean none of them
    // answers the pending request, and trying again would change nothing.
    if (state.status === "awaiting_approval" && state.answers.length > 0) {
      logger.warn(`Run \`${runId}\` has recorded answers, but none answers its pending request; leaving it.`, {
        worker,
        runId,
      });
      return "failed";
    }
    logger.info(`Resumed run \`${runId}\`: ${state.status}.`, { worker, runId, status: state.status });
    return "resumed";
  }

  #sleep(): Promise<void> {
    if (this.#stopping) return Promise.resolve();
    return new Promise((resolve) => {
      const timer = setTimeout(done, this.#options.pollMs);
      function done(): void {
        clearTimeout(timer);
        resolve();
      }
      this.#wake = done;
    });
  }
}
