import { readFileSync } from "node:fs";
import { Command } from "commander";

/**
 * Every command, in the order `leash --help` lists them, each with the import that builds it. A
 * command's module (and what it imports: the stores, the inbox's server, the MCP SDK) is loaded only
 * when that command is run or the whole list is shown, so that `leash show` does not pay for loading
 * `leash serve`: most of a short command's time is spent loading modules.
 */
const COMMANDS: readonly { name: string; load: (version: string) => Promise<Command> }[] = [
  { name: "demo", load: async () => (await import("./commands/demo.js")).demoCommand() },
  { name: "runs", load: async () => (await import("./commands/runs.js")).runsCommand() },
  { name: "show", load: async () => (await import("./commands/show.js")).showCommand() },
  { name: "approve", load: async () => (await import("./commands/answer-command.js")).answerCommand("approve") },
  { name: "deny", load: async () => (await import("./commands/answer-command.js")).answerCommand("deny") },
  { name: "link", load: async () => (await import("./commands/link.js")).linkCommand() },
  { name: "grant", load: async () => (await import("./commands/grants.js")).grantCommand() },
  { name: "grants", load: async () => (await import("./commands/grants.js")).grantsCommand() },
  { name: "revoke", load: async () => (await import("./commands/grants.js")).revokeCommand() },
  { name: "budget", load: async () => (await import("./commands/budgets.js")).budgetCommand() },
  { name: "budgets", load: async () => (await import("./commands/budgets.js")).budgetsCommand() },
  { name: "resume", load: async () => (await import("./commands/resume.js")).resumeCommand() },
  { name: "worker", load: async () => (await import("./commands/worker.js")).workerCommand() },
  { name: "verify", load: async () => (await import("./commands/verify.js")).verifyCommand() },
  { name: "serve", load: async () => (await import("./commands/serve.js")).serveCommand() },
  {
    name: "notifications",
    load: async () => (await import("./commands/notifications.js")).notificationsCommand(),
  },
  { name: "keygen", load: async () => (await import("./commands/keygen.js")).keygenCommand() },
  { name: "checkpoint", load: async () => (await import("./commands/checkpoint.js")).checkpointCommand() },
  { name: "prove", load: async () => (await import("./commands/prove.js")).proveCommand() },
  { name: "approvers", load: async () => (await import("./commands/approvers.js")).approversCommand() },
  { name: "witness", load: async () => (await import("./commands/witness.js")).witnessCommand() },
  { name: "bench", load: async () => (await import("./commands/bench.js")).benchCommand() },
  { name: "mcp", load: async (version) => (await import("./commands/mcp.js")).mcpCommand(version) },
];

/**
 * The commands `argv` needs: only the one its first word names (that command's own `--help`
 * included), none for the version, else all of them (`leash --help`, `leash help show`, a misspelt
 * command, which commander answers with a suggestion drawn from the whole list).
 */
function commandsFor(argv: readonly string[] | undefined): typeof COMMANDS {
  const first = argv?.[2];
  if (argv?.length === 3 && (first === "-V" || first === "--version")) return [];
  const named = COMMANDS.filter((command) => command.name === first);
  return named.length > 0 ? named : COMMANDS;
}

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
 * The `leash` program, ready for `parseAsync`: with `argv` given, only the commands it needs (see
 * {@link commandsFor}); without it, every command. Commander errors are thrown as
 * `CommanderError`, for the caller to print as one line.
 */
export async function createProgram(argv?: readonly string[]): Promise<Command> {
  const version = packageVersion();
  const program = new Command("leash")
    .description("Bounded, audited tool use for AI agents: inspect runs, answer approvals, resume, verify trails.")
    .version(version, "-V, --version");
  for (const command of await Promise.all(commandsFor(argv).map((entry) => entry.load(version)))) {
    program.addCommand(command);
  }
  program.addHelpText(
    "after",
    "\nStart with: leash demo\nMachine output: every command takes --json. Stack traces: LEASH_DEBUG=1.",
  );
  quiet(program);
  return program;
}
