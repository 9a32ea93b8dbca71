import { readFileSync } from "node:fs";
import { Command } from "commander";
import { answerCommand } from "./commands/answer-command.js";
import { approversCommand } from "./commands/approvers.js";
import { benchCommand } from "./commands/bench.js";
import { demoCommand } from "./commands/demo.js";
import { mcpCommand } from "./commands/mcp.js";
import { resumeCommand } from "./commands/resume.js";
import { runsCommand } from "./commands/runs.js";
import { serveCommand } from "./commands/serve.js";
import { showCommand } from "./commands/show.js";
import { verifyCommand } from "./commands/verify.js";
import { checkpointCommand } from "./commands/checkpoint.js";
import { keygenCommand } from "./commands/keygen.js";
import { proveCommand } from "./commands/prove.js";
import { witnessCommand } from "./commands/witness.js";
import { workerCommand } from "./commands/worker.js";

function packageVersion(): string {
  try {
    // dist/cli/ and src/cli/ both sit two folders below the package.json.
    const json = JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8")) as {
      version?: unknown;
    };
    return typeof json.version === "string" ? json.version : "unknown";
  } catch {
    return "unknown";
  }
}

/**
 * Makes commander throw instead of exiting and keeps its error text to itself, on every command:
 * `addCommand` does not pass these settings on, and the CLI prints each error as one line of its own.
 */
function quiet(command: Command): void {
  command
    .exitOverride()
    .configureOutput({ outputError: () => undefined })
    .showSuggestionAfterError(true);
  for (const child of command.commands) quiet(child);
}

/**
 * The `leash` program: every command, ready for `parseAsync`. Commander errors are thrown as
 * `CommanderError`, for the caller to print as one line.
 */
export function createProgram(): Command {
  const program = new Command("leash")
    .description("Bounded, audited tool use for AI agents: inspect runs, answer approvals, resume, verify trails.")
    .version(packageVersion(), "-V, --version")
    .addCommand(demoCommand())
    .addCommand(runsCommand())
    .addCommand(showCommand())
    .addCommand(answerCommand("approve"))
    .addCommand(answerCommand("deny"))
    .addCommand(resumeCommand())
    .addCommand(workerCommand())
    .addCommand(verifyCommand())
    .addCommand(serveCommand())
    .addCommand(keygenCommand())
    .addCommand(checkpointCommand())
    .addCommand(proveCommand())
    .addCommand(approversCommand())
    .addCommand(witnessCommand())
    .addCommand(benchCommand())
    .addCommand(mcpCommand(packageVersion()));
  program.addHelpText(
    "after",
    "\nStart with: leash demo\nMachine output: every command takes --json. Stack traces: LEASH_DEBUG=1.",
  );
  quiet(program);
  return program;
}
