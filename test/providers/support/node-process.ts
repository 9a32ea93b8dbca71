// Child processes for the shared adapter suite: the real `leash` bin and TypeScript files run as
// programs (compiled once per test run, or under tsx).
// Spawned asynchronously, never with spawnSync: the loopback server the child talks to runs in this
// process's event loop, which must keep turning while the child works.
import { spawn } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { nodeArguments } from "../../helpers/node-child.js";

/** The repository's root. */
export const root = fileURLToPath(new URL("../../../", import.meta.url));

/** The built bin, as an installed `leash` runs it (`npm run build` makes it). */
export const bin = join(root, "dist", "cli", "main.js");

/** How a child process ended, and what it printed. */
export interface Finished {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

// Generous: CI is a loaded two-core machine, and this is a deadline, not a measured time.
const CHILD_DEADLINE_MS = 120_000;

/** Runs node with these arguments in a child process; resolves when it exits, never rejects. */
export function runNode(args: string[], options: { cwd?: string } = {}): Promise<Finished> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, args, {
      cwd: options.cwd ?? root,
      env: { ...process.env, LEASH_DEBUG: "", NODE_NO_WARNINGS: "1" },
      stdio: ["ignore", "pipe", "pipe"],
      timeout: CHILD_DEADLINE_MS,
    });
    let stdout = "";
    let stderr = "";
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
    child.on("error", (error) => resolve({ code: null, signal: null, stdout, stderr: `${stderr}\n${String(error)}` }));
    child.on("close", (code, signal) => resolve({ code, signal, stdout, stderr }));
  });
}

/** Runs the built `leash` bin; fails clearly when it was not built. */
export function runLeash(args: string[], options: { cwd?: string } = {}): Promise<Finished> {
  if (!existsSync(bin)) throw new Error(`The suite runs the built bin ${bin}: run \`npm run build\` first.`);
  return runNode([bin, ...args], options);
}

/** Runs a TypeScript file of this repository as a program (compiled once per run, or under tsx). */
export function runTypeScript(file: string, args: string[], options: { cwd?: string } = {}): Promise<Finished> {
  return runNode([...nodeArguments(file), ...args], options);
}
