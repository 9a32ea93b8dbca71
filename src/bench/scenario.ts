/**
 * One way of making N tool calls (leash with a given sink or store, a peer framework, the bare loop),
 * measured side by side by the overhead benchmark.
 */
export interface Scenario {
  /** A stable key, e.g. `leash-memory`. */
  id: string;
  /** What the table calls it. */
  label: string;
  /** The floor (the bare loop), leash itself, or a peer a user would pick instead. */
  group: "floor" | "leash" | "peer";
  /**
   * Sets up for runs of `steps` tool calls (a sink, a store, a module loaded), untimed. Throws
   * {@link ScenarioUnavailable} when the scenario cannot run here (a module not installed).
   *
   * @param workspace a temporary folder the scenario may write to.
   */
  open(steps: number, workspace: string): Promise<ScenarioCell>;
}

/** A scenario set up for one number of steps. */
export interface ScenarioCell {
  /**
   * Builds what one run needs (an agent, a scripted model), untimed, and returns the run itself: the
   * part that is timed, which resolves to the number of tool calls it made.
   */
  prepare(): Promise<() => Promise<number>>;
  /** Releases what `open` set up (closes files and stores). */
  close(): Promise<void>;
  /** How many fsyncs the cell's sink has made so far, where it counts them (the JSONL sink does). */
  fsyncCount?: () => number;
}

/** Thrown by {@link Scenario.open} when the scenario cannot run here; its message says why. */
export class ScenarioUnavailable extends Error {
  override readonly name = "ScenarioUnavailable";
}

/** Loads a module for a scenario, or throws {@link ScenarioUnavailable} naming it. */
export async function loadModule<T>(load: () => Promise<T>, name: string): Promise<T> {
  try {
    return await load();
  } catch (error) {
    throw new ScenarioUnavailable(
      `${name} could not be loaded (${error instanceof Error ? error.message.split("\n")[0] : String(error)})`,
    );
  }
}

/**
 * The floor: a bare loop that awaits the same no-op tool N times, with nothing around it. What any
 * framework costs per step is measured above this.
 */
export const bareLoop: Scenario = {
  id: "bare-loop",
  label: "bare loop (floor)",
  group: "floor",
  open: (steps) =>
    Promise.resolve({
      prepare: () => {
        const noop = (): Promise<string> => Promise.resolve("ok");
        return Promise.resolve(async () => {
          let calls = 0;
          for (let step = 0; step < steps; step++) {
            await noop();
            calls++;
          }
          return calls;
        });
      },
      close: () => Promise.resolve(),
    }),
};
