// The outbox under a real crash: a child process pauses a run on a SQLite file and is killed with
// SIGKILL right after the paused save resolved; the event of the request it awaits is in the file,
// written in the same transaction as the pause, and a deliverer opening the file claims it.
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { SqliteStore } from "../../src/stores/sqlite/index.js";
import { startFixture } from "./fixture-process.js";

test("a process killed with SIGKILL right after a paused save leaves the request's event in the outbox", async () => {
  const directory = mkdtempSync(join(tmpdir(), "leash-outbox-crash-"));
  const path = join(directory, "runs.db");
  try {
    const child = startFixture("stores/pause-child.ts", ["sqlite", path, "crashed"]);
    const line = await child.waitFor((text) => text.startsWith("{"));
    child.child.kill("SIGKILL");
    assert.equal(await child.exited, "SIGKILL");
    const digest = (JSON.parse(line) as { paused: string }).paused;
    assert.match(digest, /^[0-9a-f]{64}$/);
    const store = new SqliteStore(path);
    try {
      assert.equal((await store.load("crashed"))?.status, "awaiting_approval");
      const { events } = await store.notifications();
      assert.deepEqual(
        events.map((event) => [event.runId, event.type, event.key, event.status]),
        [["crashed", "approval_requested", digest, "pending"]],
      );
      const claimed = await store.claimNotifications({ now: new Date(Date.now() + 1000), limit: 10, leaseMs: 1000 });
      assert.deepEqual(
        claimed.map((event) => event.id),
        [events[0]!.id],
      );
    } finally {
      await store.close();
    }
  } finally {
    rmSync(directory, { recursive: true, force: true });
  }
});
