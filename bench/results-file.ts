import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import type { MachineInfo } from "../src/bench/machine-info.js";
import { describeMachine } from "../src/bench/machine-info.js";

/** The folder of the latest results, beside this file. */
export const RESULTS_FOLDER = join(dirname(fileURLToPath(import.meta.url)), "results");

/**
 * Writes a benchmark's latest results as `<name>.md` (the table under a heading naming the command,
 * the date and the machine) and `<name>.json` (the result with the machine and the date).
 */
export function writeResults(
  name: string,
  options: { title: string; command: string; machine: MachineInfo; markdown: string; json: object; timed?: boolean },
): string[] {
  mkdirSync(RESULTS_FOLDER, { recursive: true });
  const date = new Date().toISOString();
  const markdownPath = join(RESULTS_FOLDER, `${name}.md`);
  const jsonPath = join(RESULTS_FOLDER, `${name}.json`);
  // A table that names the machine itself (the overhead table does) is not given a second line for it.
  const machineLine = /^Machine: /m.test(options.markdown)
    ? []
    : [`Machine: ${describeMachine(options.machine, { timed: options.timed !== false })}.`, ""];
  const heading = [`# ${options.title}`, "", `\`${options.command}\`, ${date}.`, "", ...machineLine, ""].join("\n");
  writeFileSync(markdownPath, heading + options.markdown);
  writeFileSync(
    jsonPath,
    JSON.stringify({ date, command: options.command, machine: options.machine, result: options.json }, null, 2) + "\n",
  );
  return [markdownPath, jsonPath];
}
