import { test } from "node:test";
import assert from "node:assert/strict";
import { MemoryAuditSink } from "../../src/audit/memory-audit-sink.js";
import { auditSinkContract } from "./audit-sink-contract.js";
import { interleavedTrail } from "./audit-test-helpers.js";

auditSinkContract("MemoryAuditSink", () => new MemoryAuditSink());

test("MemoryAuditSink appends synchronously, returning no promise", () => {
  const sink = new MemoryAuditSink();
  const trail = interleavedTrail();
  assert.equal(sink.append(trail), undefined);
  assert.equal(sink.records.length, trail.length);
});

test("MemoryAuditSink keeps its own copy of each record", () => {
  const sink = new MemoryAuditSink();
  const [first] = interleavedTrail();
  assert.ok(first !== undefined);
  // A record made by makeRecord is frozen; one built elsewhere is copied on the way in.
  assert.throws(() => {
    first.event = "changed";
  }, TypeError);
  const outside = { ...first };
  sink.append([outside]);
  outside.event = "changed_after_append";
  assert.equal(sink.records[0]?.event, "run_started");
});
