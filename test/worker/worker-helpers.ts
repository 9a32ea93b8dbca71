// What the worker tests share: approved runs waiting for a worker, and a logger that remembers.
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Approval } from "../../src/index.js";
import type { Agent, AuditRecord, AuditSink, RunStore } from "../../src/index.js";
import type { WorkerLogger } from "../../src/worker/index.js";
import { readWorkerEffects } from "../fixtures/postgres/worker-agent.js";

/** Starts `count` runs that pause for approval, and records a person's approval of each in the store. */
export async function approvedRuns(agent: Agent, store: RunStore, count: number, prefix = "run"): Promise<string[]> {
  const runIds: string[] = [];
  for (let index = 0; index < count; index++) {
    const paused = await agent.run(`note ${index}`, { runId: `${prefix}-${index}` });
    assert.equal(paused.status, "awaiting_approval");
    await store.answer(paused.runId, Approval.grant(paused.pending!.digest, "allen"));
    runIds.push(paused.runId);
  }
  return runIds;
}

/**
 * Waits until `condition` holds, asking again every few milliseconds, and fails after a deadline
 * generous enough for a loaded machine (the wait ends as soon as the condition holds).
 */
export async function until(
  condition: () => boolean | Promise<boolean>,
  what: string,
  timeoutMs = 60_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`Timed out after ${timeoutMs} ms waiting until ${what}.`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** A promise and the function that resolves it: a test opens a gate when it is ready. */
export function gate(): { opened: Promise<void>; open: () => void } {
  let open = (): void => undefined;
  const opened = new Promise<void>((resolve) => (open = resolve));
  return { opened, open };
}

/** A logger that keeps every line, by level. */
export function recordingLogger(): WorkerLogger & {
  lines: { level: string; message: string; details?: Readonly<Record<string, unknown>> }[];
} {
  const lines: { level: string; message: string; details?: Readonly<Record<string, unknown>> }[] = [];
  const keep = (level: string) => (message: string, details?: Readonly<Record<string, unknown>>) => {
    lines.push({ level, message, ...(details === undefined ? {} : { details }) });
  };
  return { lines, info: keep("info"), warn: keep("warn"), error: keep("error") };
}

/** A temporary folder with an effects file, and how to remove it. */
export function effectsFolder(): { effects: string; remove: () => void } {
  const directory = mkdtempSync(join(tmpdir(), "leash-worker-"));
  return {
    effects: join(directory, "effects.jsonl"),
    remove: () => rmSync(directory, { recursive: true, force: true }),
  };
}

/** Each run completed, its write ran once, and its trail shows one resume. */
export async function assertEachRanOnce(store: RunStore & AuditSink, runIds: string[], effects: string): Promise<void> {
  const perRun = new Map<string, number>();
  for (const effect of readWorkerEffects(effects)) perRun.set(effect.runId, (perRun.get(effect.runId) ?? 0) + 1);
  for (const runId of runIds) {
    const state = await store.load(runId);
    assert.equal(state?.status, "completed", runId);
    assert.equal(state.steps[0]?.outcome, "executed", runId);
    assert.equal(perRun.get(runId), 1, `the write of ${runId} ran once`);
    const trail: AuditRecord[] = await store.read(runId);
    assert.equal(trail.filter((record) => record.event === "run_resumed").length, 1, `${runId} was resumed once`);
  }
}
