import { Command } from "commander";
import type { RunStore } from "../../stores/run-store.js";
import { runWorker, Worker } from "../../worker/index.js";
import type { WorkerLogger, WorkerOptions } from "../../worker/index.js";
import { CliError } from "../cli-error.js";
import { storeLocation, withCommonOptions } from "../common-options.js";
import type { StoreLocation } from "../../operate/store-location.js";
import type { CommonOptions } from "../common-options.js";
import { importAgentModule, loadAgent } from "../../operate/load-agent.js";
import { withExistingStore } from "../../operate/open-store.js";
import { printErrorJsonLine, printErrorLines, printJson, printJsonLine, printLines } from "../print.js";
import { oneLine } from "../report-error.js";
import { integerOption } from "./bench-corpus.js";

/** How long a worker waits between passes that found nothing, unless given `--poll-ms`. */
const DEFAULT_POLL_MS = 1000;

interface WorkerCommandOptions extends CommonOptions {
  agent: string;
  databaseUrl?: string;
  pollMs: number;
  once?: boolean;
}

/** A run the worker resumed, and its status once the resume returned. */
interface ResumedRun {
  runId: string;
  status: string;
}

/** What the worker's agent and store are, as `Worker` takes them. */
interface WorkerParts {
  agent: WorkerOptions["agent"];
  store: RunStore;
}

function isRunStore(value: unknown): value is RunStore {
  const methods = value as Partial<Record<keyof RunStore, unknown>> | null;
  return (
    typeof value === "object" &&
    methods !== null &&
    ["load", "list", "save", "answer"].every((name) => typeof methods[name as keyof RunStore] === "function")
  );
}

/**
 * The store the app's agent module exports. `loadAgent` has imported the module already, and an ES
 * module is instantiated once per URL, so this import returns that same module: `store` is the very
 * object the agent was built with. A worker must use it, not a store of its own on the same file,
 * because the agent commits each state and its records through its own store.
 */
async function exportedStore(path: string): Promise<RunStore> {
  const module = await importAgentModule(path);
  const store: unknown = await module.store;
  if (!isRunStore(store)) {
    throw new CliError(
      "invalid_agent_module",
      `${path} exports no \`store\`: a worker must use the agent's own store, so export it beside \`agent\`.`,
    );
  }
  return store;
}

/**
 * Where the worker says what it does. The worker reports each run it resumed with the run's id and
 * status in the details (its other messages carry no status): those are the command's output, on
 * stdout; everything else it says is progress or trouble with one run, one line each on stderr.
 */
function workerLogger(onResumed: (run: ResumedRun) => void, json = false): WorkerLogger {
  const say =
    (level: "info" | "warn" | "error") =>
    (message: string, details?: Record<string, unknown>): void => {
      if (!json) return printErrorLines([`leash worker: ${oneLine(message)}`]);
      const runId = details?.runId;
      printErrorJsonLine({
        event: "log",
        level,
        message: oneLine(message),
        ...(typeof runId === "string" ? { runId } : {}),
      });
    };
  return {
    info: (message, details) => {
      const runId = details?.runId;
      const status = details?.status;
      if (typeof runId === "string" && typeof status === "string") onResumed({ runId, status });
      else say("info")(message, details);
    },
    warn: say("warn"),
    error: say("error"),
  };
}

function plural(count: number): string {
  return `${count} run${count === 1 ? "" : "s"}`;
}

function runLine(run: ResumedRun): string {
  return `Resumed run ${run.runId}: ${run.status}.`;
}

/** `--once`: one pass over the store; a SIGTERM or SIGINT during it lets the run in hand finish. */
async function onePass(parts: WorkerParts, options: WorkerCommandOptions): Promise<void> {
  const runs: ResumedRun[] = [];
  const stopping = new AbortController();
  const stop = (): void => stopping.abort();
  const logger = workerLogger((run) => {
    runs.push(run);
    if (!options.json) printLines([runLine(run)]);
  }, options.json === true);
  const worker = new Worker({ ...parts, pollMs: options.pollMs, signal: stopping.signal, logger });
  // `once`: a second signal finds no handler and ends the process at once, as with `runWorker`.
  process.once("SIGTERM", stop).once("SIGINT", stop);
  let resumed: number;
  try {
    resumed = await worker.runOnce();
  } finally {
    process.off("SIGTERM", stop).off("SIGINT", stop);
    await worker.stop();
  }
  if (options.json) printJson({ resumed, runs });
  else printLines([`One pass: resumed ${plural(resumed)}.`]);
}

/** Without `--once`: polls until SIGTERM or SIGINT, then finishes the run in hand and prints a summary. */
async function untilStopped(parts: WorkerParts, options: WorkerCommandOptions, where: string): Promise<void> {
  let resumed = 0;
  const logger = workerLogger((run) => {
    resumed++;
    if (options.json) printJsonLine({ event: "resumed", ...run });
    else printLines([runLine(run)]);
  }, options.json === true);
  const running = runWorker({ ...parts, pollMs: options.pollMs, logger });
  // runWorker installs its signal handlers before its first await, so from here on a SIGTERM is a
  // clean stop: only now does the worker say it is ready, and a supervisor (or a test) may wait for it.
  if (options.json) printJsonLine({ event: "started", pollMs: options.pollMs });
  else
    printLines([
      `Worker started on ${where}, polling every ${options.pollMs} ms; SIGTERM or Ctrl-C stops it after the run in hand.`,
    ]);
  await running;
  if (options.json) printJsonLine({ event: "stopped", resumed });
  else printLines([`Worker stopped: resumed ${plural(resumed)}.`]);
}

/**
 * `leash worker --agent PATH [--once]`: resumes the runs of the app's store that wait on a worker
 * (an answer recorded with `leash approve` or `store.answer`; on PostgreSQL also runs a crashed
 * worker left), with the app's own agent and store, loaded from a module that exports both. Runs
 * until SIGTERM or SIGINT, which finish the run in hand; `--once` takes one pass and exits.
 */
export function workerCommand(): Command {
  const command = new Command("worker")
    .description(
      "resume the answered runs of the app's store with the app's agent, until SIGTERM (or one pass with --once)",
    )
    .requiredOption("--agent <path>", "the app's module that exports `agent` and the `store` it was built with")
    .option(
      "--database-url <url>",
      "a PostgreSQL database, set as DATABASE_URL for the module to build its store on (older form of --db URL)",
    )
    .option("--poll-ms <n>", "how long to wait between passes that found nothing", integerOption(1), DEFAULT_POLL_MS)
    .option("--once", "take one pass, print how many runs it resumed, and exit")
    .addHelpText(
      "after",
      [
        "",
        "The module exports the app's agent and its store, built on the database the CLI names:",
        '  export const store = new SqliteStore(process.env.LEASH_DB ?? "leash.db");   // LEASH_DB is set from --db',
        "  // or, with --db postgres://... --schema S (DATABASE_URL and LEASH_SCHEMA are set from them):",
        '  // new PostgresStore({ connectionString: process.env.DATABASE_URL ?? "", schema: process.env.LEASH_SCHEMA })',
        "  export const agent = new Agent({ tools, planner, policy, store, audit: store });",
        "The worker uses that same store object. It prints one line per run it resumes and a summary when",
        "it stops; with --json, one JSON document per line (started, resumed, stopped), or one document with",
        "--once. A TypeScript module is loaded through tsx, which must be installed beside leash.",
      ].join("\n"),
    );
  return withCommonOptions(command).action(async (options: WorkerCommandOptions) => {
    let location: StoreLocation;
    let where: string;
    if (options.databaseUrl !== undefined) {
      // The older spelling of `--db postgres://...`: the module is told the URL and finds its schema itself.
      if (options.databaseUrl.trim() === "")
        throw new CliError("invalid_option", "Expected --database-url to be a PostgreSQL connection string.");
      if (options.db !== undefined)
        throw new CliError("invalid_option", "Give either --db or --database-url, not both.");
      location = storeLocation({ ...options, db: options.databaseUrl });
      where = "the PostgreSQL database of --database-url";
    } else {
      location = storeLocation(options);
      // Checked before the app's module loads, which would create an empty database at a mistyped
      // place and leave the worker polling it for ever.
      await withExistingStore(location, () => Promise.resolve());
      where = location.label;
    }
    const loaded = await loadAgent(options.agent, location);
    try {
      // The app's agent is duck-typed (it may come from the app's own copy of leash); its `resume`
      // takes a copy of a run's state as well as an id, which is what the worker gives it.
      const parts: WorkerParts = { agent: loaded.agent, store: await exportedStore(options.agent) };
      if (options.once === true) await onePass(parts, options);
      else await untilStopped(parts, options, where);
    } finally {
      await loaded.close();
    }
  });
}
