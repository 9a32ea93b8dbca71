import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { dirname, extname, join } from "node:path";
import { fileURLToPath } from "node:url";
import type { AuditRecord, RunState, SaveOptions } from "../index.js";
import type { StoreAndSink } from "./leash-scenarios.js";
import { noopAgent, openSqliteStore } from "./leash-scenarios.js";

/** How many fsyncs (and commits) the SQLite store makes per step. */
export interface SqliteFsyncResult {
  /**
   * How the fsyncs were counted: `strace` counts the fsync and fdatasync system calls of a child
   * process; without strace, `commits` counts the store's write calls (each one transaction, which
   * with WAL and `synchronous=FULL` is one fsync of the log).
   */
  method: "strace" | "commits";
  /** Fsyncs per tool call: the difference between a long and a short run, so setup is not counted. */
  fsyncsPerStep: number;
  /** The store's write calls (create, save, append) per tool call, counted in process. */
  commitsPerStep: number;
  /** The two run lengths compared. */
  steps: [number, number];
  /** Why strace was not used, when it was not. */
  note?: string;
}

/** Counts the store's write calls during one run of `steps` no-op calls. */
async function countCommits(path: string, steps: number): Promise<number> {
  const store = await openSqliteStore(path);
  let commits = 0;
  const counted: StoreAndSink = {
    create: (state: RunState, options?: { records?: readonly AuditRecord[] }) => (
      commits++,
      store.create(state, options)
    ),
    load: (runId) => store.load(runId),
    save: (state: RunState, options: SaveOptions) => (commits++, store.save(state, options)),
    list: (options) => store.list(options),
    answer: (runId, approval) => store.answer(runId, approval),
    close: () => store.close(),
    append: (records) => (commits++, store.append(records)),
    read: (runId) => store.read(runId),
  };
  try {
    await noopAgent(steps, { store: counted, audit: counted }).run("call the no-op tool");
  } finally {
    await store.close();
  }
  return commits;
}

/** The fsync and fdatasync calls of a child process running the probe, or a string saying why not. */
function straceFsyncs(path: string, steps: number, workspace: string): number | string {
  const here = fileURLToPath(import.meta.url);
  // Run from source (tsx) the probe is .ts and the child needs this process's loader flags; built, .js.
  const probe = join(dirname(here), `sqlite-fsync-probe${extname(here)}`);
  const output = join(workspace, `strace-${steps}.txt`);
  const child = spawnSync(
    "strace",
    [
      "-f",
      "-c",
      "-e",
      "trace=fsync,fdatasync",
      "-o",
      output,
      process.execPath,
      ...loaderFlags(process.execArgv),
      probe,
      path,
      String(steps),
    ],
    { encoding: "utf8", timeout: 120_000 },
  );
  if (child.error !== undefined) return `strace could not be started (${child.error.message})`;
  if (child.status !== 0)
    return `strace or the probe failed (exit ${child.status}): ${child.stderr.trim().split("\n").slice(-3).join(" ")}`;
  if (!child.stdout.includes(`"toolCalls":${steps}`))
    return `the probe did not make ${steps} calls: ${child.stdout.trim()}`;
  let summary: string;
  try {
    summary = readFileSync(output, "utf8");
  } catch (error) {
    return `strace wrote no summary (${(error as Error).message})`;
  }
  let calls = 0;
  for (const line of summary.split("\n")) {
    const fields = line.trim().split(/\s+/);
    const name = fields.at(-1);
    // Rows: % time, seconds, usecs/call, calls, [errors], syscall.
    if ((name === "fsync" || name === "fdatasync") && fields.length >= 5) calls += Number(fields[3]);
  }
  return calls;
}

/**
 * The flags of this process that load code (`--import`, `--require`, `--loader`: tsx when run from
 * source), without the others: a child started from a test run must not become a test runner itself.
 */
function loaderFlags(flags: readonly string[]): string[] {
  const kept: string[] = [];
  for (let index = 0; index < flags.length; index++) {
    const flag = flags[index] as string;
    if (/^(--import|--require|-r|--loader|--experimental-loader)$/.test(flag) && index + 1 < flags.length) {
      kept.push(flag, flags[++index] as string);
    } else if (/^(--import|--require|--loader|--experimental-loader)=/.test(flag)) {
      kept.push(flag);
    }
  }
  return kept;
}

/**
 * Counts the SQLite store's fsyncs per step: with strace (`strace -f -c -e trace=fsync,fdatasync`)
 * on a child process when it is available, else by the store's commits; either way as the difference
 * between a run of `steps[1]` and one of `steps[0]` calls, divided by the difference in calls.
 */
export async function countSqliteFsyncs(options: {
  workspace: string;
  steps: [number, number];
}): Promise<SqliteFsyncResult> {
  const { workspace } = options;
  const [short, long] = options.steps;
  const commitsShort = await countCommits(join(workspace, "commits-short.db"), short);
  const commitsLong = await countCommits(join(workspace, "commits-long.db"), long);
  const commitsPerStep = (commitsLong - commitsShort) / (long - short);
  const traced = [
    straceFsyncs(join(workspace, "strace-short.db"), short, workspace),
    straceFsyncs(join(workspace, "strace-long.db"), long, workspace),
  ];
  const [tracedShort, tracedLong] = traced;
  if (typeof tracedShort === "number" && typeof tracedLong === "number") {
    return {
      method: "strace",
      fsyncsPerStep: (tracedLong - tracedShort) / (long - short),
      commitsPerStep,
      steps: [short, long],
    };
  }
  const note = traced.find((value): value is string => typeof value === "string");
  return {
    method: "commits",
    fsyncsPerStep: commitsPerStep,
    commitsPerStep,
    steps: [short, long],
    ...(note === undefined ? {} : { note }),
  };
}
