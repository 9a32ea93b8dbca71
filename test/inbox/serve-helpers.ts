// Runs `leash serve` as a child process on a test's store, signs approvers in, and starts runs that
// wait for a person: the HTTP tests of the inbox talk to the real bin over real sockets.
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import type { ChildProcess } from "node:child_process";
import type { TestContext } from "node:test";
import type { RunState } from "../../src/index.js";
import { bin, leash, requireBuiltBin } from "../cli/cli-helpers.js";
import type { CliStore } from "../cli/cli-stores.js";
import { payAgent } from "../cli/pay-agent.js";
import type { PayAgentOptions } from "../cli/pay-agent.js";

/** A running `leash serve`. */
export interface Served {
  /** `http://127.0.0.1:PORT/`, from its first line of output. */
  url: string;
  /** `http://127.0.0.1:PORT`: what a browser sends as `Origin`. */
  origin: string;
  child: ChildProcess;
  /** What it wrote on stderr so far. */
  stderr(): string;
  /** Sends a signal and resolves with the exit status. */
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

/** Starts `leash serve --port 0` on the store, and stops it after the test. */
export async function serve(
  t: TestContext,
  target: CliStore,
  extra: string[] = [],
  env: Record<string, string> = {},
): Promise<Served> {
  requireBuiltBin();
  const child = spawn(process.execPath, [bin, "serve", "--port", "0", ...target.args, ...extra], {
    cwd: target.cwd,
    env: { ...process.env, LEASH_DEBUG: "", ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  const firstLine = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`leash serve printed no URL in 60 s; stderr: ${stderr}`)), 60_000);
    child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
      stdout += chunk;
      const end = stdout.indexOf("\n");
      if (end !== -1) {
        clearTimeout(timer);
        resolve(stdout.slice(0, end));
      }
    });
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`leash serve exited (${code}) before printing its URL; stderr: ${stderr}`));
    });
  });
  const match = /^leash inbox: (http:\/\/\S+\/)$/.exec(firstLine);
  assert.ok(match, `first line: ${firstLine}`);
  const url = match[1] as string;
  const stop = async (signal: NodeJS.Signals = "SIGTERM"): Promise<number | null> => {
    if (child.exitCode === null && child.signalCode === null) child.kill(signal);
    return exited;
  };
  t.after(() => stop());
  return { url, origin: url.replace(/\/$/, ""), child, stderr: () => stderr, stop };
}

/**
 * Adds an approver with `leash approvers add NAME [--role R]... --json` (no role: an approver) and
 * returns their token. The store is made
 * first (a PostgreSQL store creates its tables on first use), as an app that ran once has it.
 */
export async function addApprover(target: CliStore, name: string, roles: string[] = []): Promise<string> {
  await target.store.list();
  const added = leash(
    ["approvers", "add", name, ...roles.flatMap((role) => ["--role", role]), "--json", ...target.args],
    { cwd: target.cwd },
  );
  assert.equal(added.status, 0, added.stderr);
  return (JSON.parse(added.stdout) as { token: string }).token;
}

/** A signed-in browser's credentials: its session cookie and the session's CSRF token. */
export interface SignedIn {
  cookie: string;
  csrf: string;
}

/** Signs in on the sign-in form, as a browser would, and reads the CSRF token from a page. */
export async function signIn(served: Served, token: string): Promise<SignedIn> {
  const response = await fetch(new URL("/signin", served.url), {
    method: "POST",
    body: new URLSearchParams({ token }),
    headers: { Origin: served.origin },
    redirect: "manual",
  });
  assert.equal(response.status, 303);
  const setCookie = response.headers.get("set-cookie") ?? "";
  const cookie = /^(leash_session=[^;]+)/.exec(setCookie)?.[1];
  assert.ok(cookie !== undefined, `a session cookie: ${setCookie}`);
  const page = await (await fetch(served.url, { headers: { Cookie: cookie } })).text();
  const csrf = /name="_csrf" value="([^"]+)"/.exec(page)?.[1];
  assert.ok(csrf !== undefined, "the page's sign-out form carries the CSRF token");
  return { cookie, csrf };
}

/** Starts a run on the store that waits for approval of a payment (see payAgent). */
export async function pausedRun(
  target: CliStore,
  goal = "pay the bill",
  options: PayAgentOptions = {},
): Promise<RunState> {
  const state = await payAgent(target.store, options).run(goal);
  assert.equal(state.status, "awaiting_approval");
  return state;
}

/** Posts the answer form of a run's page as the signed-in browser does (its `Origin`, `Sec-Fetch-Site: same-origin`). */
export function postAnswer(
  served: Served,
  session: SignedIn,
  runId: string,
  fields: Record<string, string>,
  headers: Record<string, string> = { Origin: served.origin, "Sec-Fetch-Site": "same-origin" },
): Promise<Response> {
  return fetch(new URL(`/runs/${encodeURIComponent(runId)}/answer`, served.url), {
    method: "POST",
    body: new URLSearchParams(fields),
    headers: { Cookie: session.cookie, ...headers },
    redirect: "manual",
  });
}

/** The answers recorded for a run in the store. */
export async function answersOf(target: CliStore, runId: string): Promise<RunState["answers"]> {
  const state = await target.store.load(runId);
  assert.ok(state !== null);
  return state.answers;
}
