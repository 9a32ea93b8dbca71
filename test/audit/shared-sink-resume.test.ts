// Without a store, the trail is the only shared truth: two resumes of one approved call on one shared
// sink must not both run it. The sink refuses the loser's claim (its first append), so it runs nothing.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { join } from "node:path";
import { Approval, JsonlAuditSink, MemoryAuditSink, isLeashError, verifyAudit } from "../../src/index.js";
import type { Agent, AuditSink } from "../../src/index.js";
import type { SyncReadableAuditSink } from "../../src/audit/audit-sink.js";
import { writerAgentOn } from "../contract/contract-fixtures.js";
import { temporaryDirectory } from "./audit-test-helpers.js";

const directory = temporaryDirectory();

function writer(audit: AuditSink, written: string[]): Agent {
  return writerAgentOn({ audit }, written);
}

const sinks: Array<[string, () => SyncReadableAuditSink]> = [
  ["MemoryAuditSink", () => new MemoryAuditSink()],
  ["JsonlAuditSink", () => new JsonlAuditSink(join(directory, `race-${Math.random().toString(36).slice(2)}.jsonl`))],
];

for (const [name, makeSink] of sinks) {
  describe(`Without a store, on one shared ${name}`, () => {
    test("two concurrent resumes of one approved call: one runs it, the other gets a StateError and writes nothing", async () => {
      const sink = makeSink();
      const written: string[] = [];
      const paused = await writer(sink, written).run("save the report", { runId: "shared" });
      assert.equal(paused.status, "awaiting_approval");
      const approvals = [Approval.grant(paused.pending!.digest, "allen")];
      const results = await Promise.allSettled([
        writer(sink, written).resume(paused, { approvals }),
        writer(sink, written).resume(paused, { approvals }),
      ]);
      const won = results.filter((result) => result.status === "fulfilled");
      const lost = results.filter((result): result is PromiseRejectedResult => result.status === "rejected");
      assert.equal(won.length, 1);
      assert.equal(lost.length, 1);
      assert.ok(isLeashError(lost[0]?.reason, "stale_state"), String(lost[0]?.reason));
      assert.deepEqual(written, ["the report"]);
      assert.deepEqual(verifyAudit(sink.records), []);
      assert.equal(sink.records.filter((record) => record.event === "run_resumed").length, 1);
      assert.equal(sink.records.filter((record) => record.event === "tool_started").length, 1);
    });
  });
}
