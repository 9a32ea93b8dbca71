// The pieces of an inbox under test, each a real component: a store (a SQLite file, or a PostgreSQL
// schema of its own), the real `leash` bin serving it, approvers made with `leash approvers add`, and
// runs started by the app in processes of their own.
import assert from "node:assert/strict";
import { test } from "node:test";
import type { TestContext } from "node:test";
import { spawn } from "node:child_process";
import type { ChildProcessWithoutNullStreams } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { AuditSink, RunStore } from "../../src/index.js";
import { SqliteStore } from "../../src/stores/sqlite/index.js";
import { PostgresStore } from "../../src/stores/postgres/index.js";
import { dropSchema, freshSchemaName, inCi } from "../postgres/database.js";
import { nodeArguments } from "../helpers/node-child.js";
import { bin, requireBuiltBin, root, tempFolder } from "../cli/cli-helpers.js";

/** The app's agent module (and the program that starts its runs). */
export const agentModule = join(root, "test", "inbox-browser", "inbox-agent.ts");

/** How long a test waits for anything another process or the browser does: generous, for a loaded CI box. */
export const PATIENCE_MS = 30_000;

/** A store an inbox serves in a test. */
export interface InboxStore {
  kind: "sqlite" | "postgres";
  /** The options that name it on the command line. */
  args: string[];
  /** A folder of the test's own. */
  cwd: string;
  /** The environment the app's agent module reads (its store and its effects file). */
  env: Record<string, string>;
  /** The store, opened in the test process to read what the inbox recorded. */
  store: RunStore & AuditSink;
  /** The amounts the app paid so far, one per execution of its write. */
  payments(): number[];
}

/** The kinds of store: PostgreSQL is skipped (and said so) only where DATABASE_URL is unset. */
const KINDS = ["sqlite", "postgres"] as const;

function databaseUrl(): string | undefined {
  const url = process.env.DATABASE_URL;
  return url === undefined || url === "" ? undefined : url;
}

/** Why every test of this file is skipped (a piece it needs is missing), once a helper has said so. */
let everyTestSkipped: string | undefined;

/** Skips every test {@link eachStore} defines from now on in this file, giving `reason`. */
export function skipEveryTest(reason: string): void {
  everyTestSkipped = reason;
}

/**
 * Defines one test per kind of store, named after it, each with a fresh store of that kind. `todo`
 * marks a behaviour the inbox does not have yet: the test runs and reports, but fails nothing.
 * Without DATABASE_URL the PostgreSQL test is skipped, saying so, except in CI (CI=true), where it fails.
 */
export function eachStore(
  name: string,
  body: (t: TestContext, target: InboxStore) => Promise<void>,
  options: { todo?: string } = {},
): void {
  for (const kind of KINDS) {
    const title = `${name} (${kind})`;
    if (everyTestSkipped !== undefined) {
      test(title, { skip: everyTestSkipped }, () => undefined);
    } else if (kind === "postgres" && databaseUrl() === undefined) {
      if (inCi()) {
        test(title, () => {
          throw new Error(
            "DATABASE_URL is not set. CI=true: PostgreSQL tests must run in CI (.ci/run starts a server).",
          );
        });
      } else {
        test(title, { skip: "DATABASE_URL is not set" }, () => undefined);
      }
    } else {
      test(title, options, async (t) => {
        await body(t, await openInboxStore(t, kind));
      });
    }
  }
}

/**
 * A fresh store of a kind, with its tables made as the app's first use makes them (the command line
 * refuses a schema without them), removed after the test.
 */
export async function openInboxStore(t: TestContext, kind: "sqlite" | "postgres"): Promise<InboxStore> {
  const folder = tempFolder();
  const effects = join(folder.path, "payments.txt");
  const payments = (): number[] =>
    existsSync(effects)
      ? readFileSync(effects, "utf8")
          .split("\n")
          .filter((line) => line !== "")
          .map(Number)
      : [];
  if (kind === "sqlite") {
    const file = join(folder.path, "inbox.db");
    const store = new SqliteStore(file);
    t.after(async () => {
      await store.close();
      folder.remove();
    });
    const env = { LEASH_DB: file, LEASH_TEST_EFFECTS: effects };
    return { kind, args: ["--db", file], cwd: folder.path, env, store, payments };
  }
  const url = databaseUrl() as string;
  const schema = freshSchemaName("leash_inbox");
  const store = new PostgresStore({ connectionString: url, schema });
  t.after(async () => {
    await store.close();
    await dropSchema(url, schema);
    folder.remove();
  });
  await store.list();
  const env = { LEASH_DB: url, LEASH_SCHEMA: schema, LEASH_TEST_EFFECTS: effects };
  return { kind, args: ["--db", url, "--schema", schema], cwd: folder.path, env, store, payments };
}

/** What a finished child process left. */
export interface Finished {
  status: number | null;
  stdout: string;
  stderr: string;
}

/**
 * Runs a program to its end without blocking the test's event loop (the browser's connection lives
 * on it). `typescript` runs the first argument, a TypeScript module of this repository, as
 * test/helpers/node-child.ts does (compiled once per run, or under tsx); LEASH_DEBUG is cleared so a
 * developer's shell changes nothing.
 */
export function runToEnd(
  args: string[],
  options: { cwd: string; env?: Record<string, string>; typescript?: boolean },
): Promise<Finished> {
  const [first = "", ...rest] = args;
  const program = options.typescript === true ? [...nodeArguments(first), ...rest] : args;
  const child = spawn(process.execPath, program, {
    cwd: options.cwd,
    env: { ...process.env, LEASH_DEBUG: "", ...options.env },
  });
  let stdout = "";
  let stderr = "";
  child.stdout.setEncoding("utf8").on("data", (chunk: string) => (stdout += chunk));
  child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
  return new Promise((resolve, reject) => {
    child.on("error", reject);
    child.on("close", (status) => resolve({ status, stdout, stderr }));
  });
}

/** Runs `leash ...args` on the test's store to its end, failing the test on a non-zero exit. */
export async function leashOn(target: InboxStore, args: string[]): Promise<string> {
  requireBuiltBin();
  const finished = await runToEnd([bin, ...args, ...target.args], { cwd: target.cwd, env: target.env });
  if (finished.status !== 0)
    throw new Error(`leash ${args.join(" ")} exited with ${finished.status}:\n${finished.stderr}`);
  return finished.stdout;
}

/** Makes an approver with `leash approvers add NAME --json` and returns their token. */
export async function addApprover(target: InboxStore, name: string): Promise<string> {
  const made = JSON.parse(await leashOn(target, ["approvers", "add", name, "--json"])) as { token: string };
  return made.token;
}

/** The pending request of a run, as the store holds it. */
export async function pendingOf(target: InboxStore, runId: string) {
  const state = await target.store.load(runId);
  assert.ok(state?.pending?.kind === "call", `run ${runId} awaits approval of a call`);
  return state.pending;
}

/** What the app's run carries from the model: its goal, its reason and the payment's memo. */
export interface RunText {
  goal?: string;
  reason?: string;
  memo?: string;
}

/** Starts a run of the app in its own process; it pauses before paying. Returns its id. */
export async function startPausedRun(target: InboxStore, text: RunText = {}): Promise<string> {
  const env: Record<string, string> = { ...target.env };
  if (text.goal !== undefined) env.LEASH_TEST_GOAL = text.goal;
  if (text.reason !== undefined) env.LEASH_TEST_REASON = text.reason;
  if (text.memo !== undefined) env.LEASH_TEST_MEMO = text.memo;
  const started = await runToEnd([agentModule, "pay"], { cwd: target.cwd, env, typescript: true });
  if (started.status !== 0) throw new Error(`The app's run did not start:\n${started.stderr}`);
  return started.stdout.trim();
}

/** Starts work the app gives up on after two attempts; returns the last attempt's run id. */
export async function startWorkThatGivesUp(target: InboxStore): Promise<string> {
  const done = await runToEnd([agentModule, "give-up"], { cwd: target.cwd, env: target.env, typescript: true });
  if (done.status !== 0) throw new Error(`The app's work did not run:\n${done.stderr}`);
  return done.stdout.trim();
}

/** A running `leash serve`. */
export interface Inbox {
  /** Its address, as its first line printed it, with a trailing slash. */
  url: string;
  /** What it wrote on stderr so far. */
  stderr(): string;
  /** Sends SIGTERM and resolves with its exit code (idempotent). */
  stop(): Promise<number | null>;
}

/** Every child of this process still running, so a file's `after` hook can stop them all. */
const running = new Set<ChildProcessWithoutNullStreams>();

/** Stops every child this file started and left running (for an `after` hook, even after a failure). */
export async function stopAllChildren(): Promise<void> {
  await Promise.all([...running].map((child) => stopChild(child)));
}

function stopChild(child: ChildProcessWithoutNullStreams): Promise<number | null> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve(child.exitCode);
  return new Promise((resolve) => {
    // A child that ignores SIGTERM for the whole patience is killed, so no test run leaves one behind.
    const kill = setTimeout(() => child.kill("SIGKILL"), PATIENCE_MS);
    child.once("exit", (code) => {
      clearTimeout(kill);
      resolve(code);
    });
    child.kill("SIGTERM");
  });
}

/** Starts `leash serve --port 0` on the test's store (stopped after the test) and reads its address. */
export async function startInbox(t: TestContext, target: InboxStore, extra: string[] = []): Promise<Inbox> {
  requireBuiltBin();
  const child = spawn(process.execPath, [bin, "serve", "--port", "0", ...target.args, ...extra], {
    cwd: target.cwd,
    env: { ...process.env, LEASH_DEBUG: "", ...target.env },
  });
  running.add(child);
  child.on("exit", () => running.delete(child));
  let exited: Promise<number | null> | undefined;
  const stop = (): Promise<number | null> => (exited ??= stopChild(child));
  t.after(stop);
  let stdout = "";
  let stderr = "";
  child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`leash serve printed no address within ${PATIENCE_MS} ms:\n${stdout}\n${stderr}`)),
      PATIENCE_MS,
    );
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
      stdout += chunk;
      const first = /^leash inbox: (http:\/\/\S+\/)\n/.exec(stdout);
      if (first !== null) {
        clearTimeout(timer);
        resolve(first[1] as string);
      } else if (stdout.includes("\n")) {
        clearTimeout(timer);
        reject(new Error(`leash serve's first line is not its address: ${stdout}`));
      }
    });
    child.on("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`leash serve exited (${code}) before printing its address:\n${stdout}\n${stderr}`));
    });
  });
  return { url, stderr: () => stderr, stop };
}
