// Starts the fixture scripts of test/fixtures (the stores', PostgreSQL's, the workers') as real child
// processes (compiled once per run, or through tsx) and follows what they print, line by line.
import { spawn } from "node:child_process";
import type { ChildProcessWithoutNullStreams } from "node:child_process";
import { fileURLToPath } from "node:url";
import { nodeArguments } from "../helpers/node-child.js";

/** A fixture process and the lines it has printed so far. */
export interface FixtureProcess {
  child: ChildProcessWithoutNullStreams;
  lines: string[];
  /**
   * Resolves with the `nth` printed line that matches (the first by default), failing after
   * `timeoutMs` or if the process exits first.
   */
  waitFor(match: (line: string) => boolean, options?: { nth?: number; timeoutMs?: number }): Promise<string>;
  /** Resolves with the exit code (or signal) once the process has ended. */
  exited: Promise<number | NodeJS.Signals | null>;
  stderr(): string;
}

/**
 * Runs `test/fixtures/<script>` (e.g. `stores/crash-child.ts`) with the given arguments, as
 * test/helpers/node-child.ts runs a TypeScript module;
 * `env` is added to this process's environment.
 */
export function startFixture(script: string, args: string[], env: Record<string, string> = {}): FixtureProcess {
  const path = fileURLToPath(new URL(`../fixtures/${script}`, import.meta.url));
  const child = spawn(process.execPath, [...nodeArguments(path), ...args], {
    stdio: ["pipe", "pipe", "pipe"],
    env: { ...process.env, ...env },
  });
  const lines: string[] = [];
  const listeners = new Set<() => void>();
  let pending = "";
  let errors = "";
  child.stdout.setEncoding("utf8");
  child.stdout.on("data", (chunk: string) => {
    pending += chunk;
    const parts = pending.split("\n");
    pending = parts.pop() ?? "";
    lines.push(...parts);
    for (const listener of listeners) listener();
  });
  child.stderr.setEncoding("utf8");
  child.stderr.on("data", (chunk: string) => (errors += chunk));
  const exited = new Promise<number | NodeJS.Signals | null>((resolve) => {
    child.on("exit", (code, signal) => {
      resolve(signal ?? code);
      for (const listener of listeners) listener();
    });
  });
  const waitFor = (
    match: (line: string) => boolean,
    options: { nth?: number; timeoutMs?: number } = {},
  ): Promise<string> =>
    new Promise((resolve, reject) => {
      const { nth = 1, timeoutMs = 60_000 } = options;
      const timer = setTimeout(
        () =>
          finish(
            new Error(`No matching line within ${timeoutMs} ms; printed: ${lines.join(" | ")}; stderr: ${errors}`),
          ),
        timeoutMs,
      );
      const finish = (outcome: string | Error): void => {
        clearTimeout(timer);
        listeners.delete(check);
        if (typeof outcome === "string") resolve(outcome);
        else reject(outcome);
      };
      const check = (): void => {
        const found = lines.filter(match)[nth - 1];
        if (found !== undefined) finish(found);
        else if (child.exitCode !== null || child.signalCode !== null) {
          finish(
            new Error(
              `The fixture exited (${child.exitCode ?? child.signalCode}) first; printed: ${lines.join(" | ")}; stderr: ${errors}`,
            ),
          );
        }
      };
      listeners.add(check);
      check();
    });
  return { child, lines, waitFor, exited, stderr: () => errors };
}

/** Kills a fixture process with SIGKILL (no cleanup of any kind runs) and waits until it is gone. */
export async function killHard(fixture: FixtureProcess): Promise<void> {
  fixture.child.kill("SIGKILL");
  await fixture.exited;
}
