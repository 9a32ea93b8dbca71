import { spawn, spawnSync } from "node:child_process";
import type { ChildProcess } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { withinMs } from "./bench-stores.js";
import { REPOSITORY_FOLDER } from "./repository-folder.js";

/** The built `leash` bin, as users run it. */
export const LEASH_BIN = join(REPOSITORY_FOLDER, "dist", "cli", "main.js");

/** How long one request to the serving process may take before it is given up (2 minutes). */
const REQUEST_DEADLINE_MS = 120_000;

/** A running `leash serve` child process. */
export interface ServingProcess {
  url: string;
  pid: number;
  /** The headers that sign an approver in. */
  headers: Record<string, string>;
  /** Stops it (SIGTERM, then SIGKILL after 10 s) and waits for it to exit. */
  stop(): Promise<void>;
}

/** Adds an approver to the store with `leash approvers add NAME --json` and returns their token. */
export function addApprover(storeArgs: string[], name: string): string {
  const added = spawnSync(process.execPath, [LEASH_BIN, "approvers", "add", name, "--json", ...storeArgs], {
    encoding: "utf8",
    timeout: 60_000,
  });
  if (added.status !== 0) throw new Error(`leash approvers add failed: ${added.stderr}`);
  return (JSON.parse(added.stdout) as { token: string }).token;
}

/** Starts `leash serve --port 0` on a store and waits for the URL it prints. */
export async function startServing(storeArgs: string[], token: string): Promise<ServingProcess> {
  const child: ChildProcess = spawn(process.execPath, [LEASH_BIN, "serve", "--port", "0", ...storeArgs], {
    env: { ...process.env, LEASH_DEBUG: "" },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stderr = "";
  child.stderr!.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk));
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const url = await withinMs(
    new Promise<string>((resolve, reject) => {
      let stdout = "";
      child.stdout!.setEncoding("utf8").on("data", (chunk: string) => {
        stdout += chunk;
        const match = /^leash inbox: (http:\/\/\S+\/)$/m.exec(stdout);
        if (match !== null) resolve(match[1]!);
      });
      void exited.then(() => reject(new Error(`leash serve exited before printing its URL: ${stderr}`)));
    }),
    60_000,
    "leash serve",
  );
  return {
    url,
    pid: child.pid!,
    headers: { Authorization: `Bearer ${token}` },
    stop: async () => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill("SIGTERM");
      await withinMs(exited, 10_000, "leash serve's exit").catch(() => {
        child.kill("SIGKILL");
        return exited;
      });
    },
  };
}

/** The milliseconds a GET of `path` takes to its last byte; refuses an answer that is not 200. */
export async function timeGet(served: ServingProcess, path: string): Promise<number> {
  const started = performance.now();
  // A server that never answers must not hold the benchmark: the request is given up past the deadline.
  const response = await fetch(new URL(path, served.url), {
    headers: served.headers,
    signal: AbortSignal.timeout(REQUEST_DEADLINE_MS),
  });
  await response.arrayBuffer();
  if (response.status !== 200) throw new Error(`GET ${path} answered ${response.status}`);
  return performance.now() - started;
}

/**
 * Opens the list page's event stream (`GET /events`) as a browser does, and resolves with the time
 * until its `ready` event (the inbox's watcher has looked at the store once: one poll) and a function
 * that closes the stream.
 */
export async function openEventStream(served: ServingProcess): Promise<{ readyMs: number; close: () => void }> {
  const abort = new AbortController();
  const started = performance.now();
  const connecting = setTimeout(() => abort.abort(), REQUEST_DEADLINE_MS);
  const response = await fetch(new URL("/events", served.url), {
    headers: served.headers,
    signal: abort.signal,
  }).finally(() => clearTimeout(connecting));
  if (response.status !== 200 || response.body === null) throw new Error(`GET /events answered ${response.status}`);
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  let text = "";
  const deadline = setTimeout(() => abort.abort(), REQUEST_DEADLINE_MS);
  try {
    while (!text.includes("event: ready")) {
      const { value, done } = await reader.read();
      if (done) throw new Error("The event stream ended before it was ready.");
      text += decoder.decode(value, { stream: true });
    }
  } finally {
    clearTimeout(deadline);
  }
  const readyMs = performance.now() - started;
  // Keep reading (and dropping) what comes, as a browser does, so the stream never backs up.
  void (async () => {
    for (;;) if ((await reader.read().catch(() => ({ done: true }))).done) return;
  })();
  return { readyMs, close: () => abort.abort() };
}

/** The CPU time (user and system) a process has used so far, in milliseconds, from /proc. */
export function cpuMsOf(pid: number): number {
  // The fields after the command's closing parenthesis; utime and stime are the 12th and 13th.
  const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ");
  const ticks = Number(fields[11]) + Number(fields[12]);
  // Linux counts in clock ticks of 1/100 s (USER_HZ) on every architecture Node runs on.
  return ticks * 10;
}

/** The peak resident set of a process so far (VmHWM), in MiB, from /proc. */
export function peakRssMiBOf(pid: number): number {
  const line = readFileSync(`/proc/${pid}/status`, "utf8")
    .split("\n")
    .find((entry) => entry.startsWith("VmHWM:"));
  return Number(/(\d+)/.exec(line ?? "")?.[1] ?? Number.NaN) / 1024;
}
