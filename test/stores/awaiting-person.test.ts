import assert from "node:assert/strict";
import { join } from "node:path";
import { test } from "node:test";
import { isLeashError, listSummaries, MemoryStore } from "../../src/index.js";
import type { RunStoreWithAudit } from "../../src/index.js";
import { SqliteStore } from "../../src/stores/sqlite/index.js";
import { tempFolder } from "../cli/cli-helpers.js";
import { payAgent } from "../cli/pay-agent.js";
import { saveGateSession } from "../helpers/gate-session-state.js";

for (const kind of ["memory", "sqlite"] as const) {
  test(`awaitingPerson lists paused runs and gate sessions with requests waiting, and their summaries count them (${kind})`, async (t) => {
    const folder = tempFolder();
    const store: RunStoreWithAudit = kind === "memory" ? new MemoryStore() : new SqliteStore(join(folder.path, "a.db"));
    t.after(async () => {
      await store.close();
      folder.remove();
    });
    await saveGateSession(store, "gate-1");
    const paused = await payAgent(store).run("pay one bill", { runId: "paused-1" });
    const second = await payAgent(store).run("pay one bill", { runId: "paused-2" });
    assert.equal(paused.status, "awaiting_approval");
    assert.equal(second.status, "awaiting_approval");
    const page = await listSummaries(store, { awaitingPerson: true });
    assert.deepEqual(
      page.runs.map((run) => [run.runId, run.status, run.gate, run.waiting]),
      [
        ["gate-1", "running", true, 2],
        ["paused-1", "awaiting_approval", false, 1],
        ["paused-2", "awaiting_approval", false, 1],
      ],
    );
    const gate = page.runs[0]!;
    assert.equal(gate.pendingTool, "pay");
    await assert.rejects(listSummaries(store, { awaitingPerson: true, status: "running" }), (error: unknown) =>
      isLeashError(error, "invalid_option"),
    );
    assert.deepEqual(
      (await store.list({ awaitingPerson: true })).map((state) => state.runId),
      ["gate-1", "paused-1", "paused-2"],
    );
  });
}
