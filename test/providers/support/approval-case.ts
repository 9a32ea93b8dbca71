// Case 2 of the shared adapter suite: three calls in one answer, the second a write that needs
// approval. The first runs and the run pauses at the second, in a real SQLite file; `leash approve`
// (the real bin) records Noor's answer; a child process resumes the run and takes the second and
// third calls without asking the model again; then the model is asked once, with all three call ids
// answered in order, and finishes. Each call runs exactly once, across both processes.
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { CallApprovalRequest } from "../../../src/index.js";
import { verifyAudit } from "../../../src/index.js";
import { SqliteStore } from "../../../src/stores/sqlite/index.js";
import { runLeash, runTypeScript, root } from "./node-process.js";
import type { CaseContext } from "./suite-context.js";
import { call, parsedArguments, recordsOf, outcomesOf } from "./suite-context.js";
import { SUITE_APPROVER, suiteAgent } from "./suite-agent.js";

const CHILD = join(root, "test", "providers", "support", "resume-child.ts");

function linesOf(file: string): string[] {
  return readFileSync(file, "utf8")
    .split("\n")
    .filter((line) => line !== "");
}

export async function approvalCase({ harness, server, stream, client, reads }: CaseContext): Promise<void> {
  const folder = mkdtempSync(join(tmpdir(), "leash-suite-"));
  try {
    const db = join(folder, "runs.db");
    const calls = join(folder, "calls.log");
    writeFileSync(calls, "");
    server.reply({
      type: "answer",
      text: "Looking it up, saving it, then counting.",
      calls: [
        call("call_a", "lookup", { topic: "brakes" }),
        call("call_b", "save", { text: "T-7: new rear pads" }),
        call("call_c", "tally", {}),
      ],
      usage: { input: 200, output: 40 },
    });

    let store = new SqliteStore(db);
    let runId: string;
    try {
      const agent = suiteAgent({ model: client({ parallelToolCalls: true }), store, approvalFor: ["write"], calls });
      const paused = await agent.run("Note the fix for T-7 and count the notebook.");
      runId = paused.runId;
      assert.equal(paused.status, "awaiting_approval", JSON.stringify(paused.failure));
      assert.equal((paused.pending as CallApprovalRequest).tool, "save");
      assert.deepEqual(outcomesOf(paused), ["executed", null]);
    } finally {
      await store.close();
    }
    assert.deepEqual(linesOf(calls), ["lookup brakes"], "only the first call ran before the pause");
    assert.equal(server.requests.length, 1);
    assert.notEqual(reads()[0]?.parallelToolCalls, false, "parallel tool calls were asked for");

    const approved = await runLeash(["approve", runId, "--db", db, "--as", SUITE_APPROVER]);
    assert.equal(approved.code, 0, `leash approve failed:\n${approved.stderr}`);
    assert.equal(server.requests.length, 1, "approving asks no model");

    server.reply({
      type: "answer",
      text: "Saved the fix; the notebook has one line.",
      usage: { input: 300, output: 12 },
    });
    const resumed = await runTypeScript(CHILD, [harness.name, server.url, String(stream), db, calls, runId]);
    assert.equal(resumed.code, 0, `the resuming process failed:\n${resumed.stderr}`);
    const result = JSON.parse(resumed.stdout.trim().split("\n").at(-1) ?? "null") as {
      status: string;
      answer: unknown;
      outcomes: (string | null)[];
    };
    assert.equal(result.status, "completed", resumed.stdout);
    assert.deepEqual(result.outcomes, ["executed", "executed", "executed", "finished"]);
    assert.equal(result.answer, "Saved the fix; the notebook has one line.");

    // Each call ran exactly once, across the two processes, in the model's order.
    assert.deepEqual(linesOf(calls), ["lookup brakes", "save T-7: new rear pads", "tally"]);
    // The second and third calls ran without asking the model: it was asked once more, at the end.
    const read = reads();
    assert.equal(read.length, 2);
    assert.deepEqual(parsedArguments(read[1]!), [
      { id: "call_a", tool: "lookup", args: { topic: "brakes" } },
      { id: "call_b", tool: "save", args: { text: "T-7: new rear pads" } },
      { id: "call_c", tool: "tally", args: {} },
    ]);
    assert.deepEqual(
      read[1]!.results.map((answered) => answered.callId),
      ["call_a", "call_b", "call_c"],
    );
    assert.match(read[1]!.results[0]?.content ?? "", /usually need new pads/);
    assert.match(read[1]!.results[1]?.content ?? "", /saved/);
    assert.match(read[1]!.results[2]?.content ?? "", /1/);

    store = new SqliteStore(db);
    try {
      const saved = await store.load(runId);
      assert.equal(saved?.status, "completed");
      const records = recordsOf(store.records, runId);
      assert.deepEqual(verifyAudit(records), []);
      const answered = records.filter((record) => record.event === "approval_answered");
      assert.equal(answered.length, 1);
      assert.equal((answered[0]?.data as { approver?: string }).approver, SUITE_APPROVER);
      assert.equal(records.filter((record) => record.event === "tool_started").length, 3);
    } finally {
      await store.close();
    }
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }
}
