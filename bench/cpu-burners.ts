import { spawn } from "node:child_process";
import type { ChildProcess } from "node:child_process";

/**
 * The program each burner runs: it spins on the CPU and exits as soon as its parent is gone (its
 * parent id changes), so a benchmark killed with SIGKILL leaves no process burning behind it.
 */
const BURNER = `
const parent = process.ppid;
for (;;) {
  const until = Date.now() + 50;
  while (Date.now() < until);
  if (process.ppid !== parent) process.exit(0);
}
`;

/** Child processes that keep the CPU busy while a benchmark measures, and how to end them. */
export interface CpuBurners {
  /** The burners' process ids. */
  pids: number[];
  /** Ends each burner (by its own id) and waits until it is gone. */
  stop(): Promise<void>;
}

/** Starts `count` child processes that each burn one core, as other work on a loaded machine does. */
export function startCpuBurners(count: number): CpuBurners {
  const children: ChildProcess[] = [];
  for (let index = 0; index < count; index++)
    children.push(spawn(process.execPath, ["-e", BURNER], { stdio: "ignore" }));
  const stopAll = (): void => {
    for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
  };
  // A benchmark that ends by an exception or Ctrl-C must not leave them running.
  process.once("exit", stopAll);
  return {
    pids: children.map((child) => child.pid ?? -1),
    stop: async () => {
      const exits = children.map(
        (child) =>
          new Promise<void>((resolve) => {
            if (child.exitCode !== null || child.signalCode !== null) resolve();
            else child.once("exit", () => resolve());
          }),
      );
      stopAll();
      await Promise.all(exits);
      process.removeListener("exit", stopAll);
    },
  };
}
