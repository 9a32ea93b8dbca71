// Group commit in the SQLite store: the writes asked for in one turn of the event loop commit in one
// transaction, each its own compare-and-set in a savepoint, each caller told its own outcome after
// the COMMIT; and what a SIGKILL in the middle of many batched runs leaves behind.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import Database from "better-sqlite3";
import { isLeashError, verifyAudit } from "../../src/index.js";
import type { ErrorCode } from "../../src/index.js";
import { SqliteStore } from "../../src/stores/sqlite/index.js";
import { MAX_BATCH_WRITES } from "../../src/stores/sqlite/sqlite-group-commit.js";
import { chain, headOf, stateOf } from "../contract/contract-fixtures.js";
import { nodeArguments } from "../helpers/node-child.js";
import { walCommits } from "./wal-commits.js";

async function withFile(body: (path: string) => Promise<void>): Promise<void> {
  const directory = mkdtempSync(join(tmpdir(), "leash-sqlite-batch-"));
  try {
    await body(join(directory, "runs.db"));
  } finally {
    rmSync(directory, { recursive: true, force: true });
  }
}

const refused = (code: ErrorCode) => (error: unknown) => isLeashError(error, code);

/**
 * The commits that `body` adds to the file's log. A second connection holds a read transaction
 * meanwhile, so no checkpoint (before a create, or from the store's timer) can start the log over
 * and hide the commits written before it.
 */
async function commitsDuring(path: string, body: () => Promise<void>): Promise<number> {
  const reader = new Database(path, { readonly: true });
  try {
    reader.exec("BEGIN");
    reader.prepare("SELECT count(*) FROM runs").get();
    const before = walCommits(path);
    await body();
    return walCommits(path) - before;
  } finally {
    reader.close();
  }
}

/** Settles every promise and gives each outcome: `ok`, or the error's code. */
async function outcomes(promises: Promise<unknown>[]): Promise<string[]> {
  const settled = await Promise.allSettled(promises);
  return settled.map((one) =>
    one.status === "fulfilled" ? "ok" : isLeashError(one.reason) ? one.reason.code : String(one.reason),
  );
}

describe("SqliteStore group commit", () => {
  test("the saves of many runs asked for in one turn commit in one transaction, and each is durable when it resolves", () =>
    withFile(async (path) => {
      const store = new SqliteStore(path);
      const runs = 40;
      for (let index = 0; index < runs; index++) await store.create(stateOf(`run-${index}`));
      // A second connection, as another process reads the file: each save's row must be there, committed,
      // by the time its promise resolves.
      const reader = new Database(path, { readonly: true });
      const revisionOf = reader.prepare<[string], { revision: number }>("SELECT revision FROM runs WHERE run_id = ?");
      const seen: number[] = [];
      const commits = await commitsDuring(path, async () => {
        await Promise.all(
          Array.from({ length: runs }, (_, index) =>
            store
              .save(stateOf(`run-${index}`, { revision: 2 }), { expectedRevision: 1 })
              .then(() => seen.push(revisionOf.get(`run-${index}`)!.revision)),
          ),
        );
      });
      reader.close();
      assert.equal(commits, 1);
      assert.deepEqual(seen, Array<number>(runs).fill(2));
      await store.close();
    }));

  test("a batch takes at most its cap of writes; the rest commit in the next turn", () =>
    withFile(async (path) => {
      const store = new SqliteStore(path);
      const count = MAX_BATCH_WRITES + 3;
      const commits = await commitsDuring(path, async () => {
        await Promise.all(Array.from({ length: count }, (_, index) => store.create(stateOf(`capped-${index}`))));
      });
      assert.equal(commits, 2);
      assert.equal((await store.list()).length, count);
      await store.close();
    }));

  test("in one batch a stale save, a taken run id and a broken chain each fail alone, and the other writes commit", () =>
    withFile(async (path) => {
      const store = new SqliteStore(path);
      const records = chain("kept", 1);
      await store.create(stateOf("kept", { head: headOf(records) }), { records });
      await store.create(stateOf("other"));
      const sequence = await store.changeSequence();
      const next = chain("kept", 2, records[0]);
      let results: string[] = [];
      const commits = await commitsDuring(path, async () => {
        results = await outcomes([
          store.save(stateOf("kept", { revision: 2, head: headOf(next) }), { expectedRevision: 1, records: next }),
          store.save(stateOf("other", { revision: 5 }), { expectedRevision: 4 }),
          store.create(stateOf("kept")),
          store.save(stateOf("missing", { revision: 2 }), { expectedRevision: 1 }),
          store.append([next[1]!]),
          store.create(stateOf("fresh")),
          store.save(stateOf("other", { revision: 2, goal: "moved" }), { expectedRevision: 1 }),
        ]);
      });
      assert.deepEqual(results, ["ok", "stale_state", "run_exists", "run_not_found", "stale_state", "ok", "ok"]);
      assert.equal(commits, 1);
      assert.equal((await store.load("kept"))?.revision, 2);
      assert.equal((await store.load("other"))?.goal, "moved");
      assert.equal((await store.load("fresh"))?.revision, 1);
      // The three writes that committed took the next three values of the change sequence; the
      // refused ones took none.
      const changed = await store.summaries({ changedSince: sequence });
      assert.deepEqual(
        changed.runs.map((run) => [run.runId, run.change]),
        [
          ["kept", sequence + 1],
          ["other", sequence + 3],
          ["fresh", sequence + 2],
        ],
      );
      assert.equal(await store.changeSequence(), sequence + 3);
      assert.deepEqual(await store.read("kept"), [...records, ...next]);
      assert.deepEqual(verifyAudit(store.records), []);
      await store.close();
    }));

  test("two saves of one run in one batch are checked in order: the second sees the first, a third that repeats it is stale", () =>
    withFile(async (path) => {
      const store = new SqliteStore(path);
      await store.create(stateOf("twice"));
      const results = await outcomes([
        store.save(stateOf("twice", { revision: 2 }), { expectedRevision: 1 }),
        store.save(stateOf("twice", { revision: 3, goal: "third" }), { expectedRevision: 2 }),
        store.save(stateOf("twice", { revision: 3, goal: "lost" }), { expectedRevision: 2 }),
      ]);
      assert.deepEqual(results, ["ok", "ok", "stale_state"]);
      const reopened = new SqliteStore(path);
      assert.equal((await reopened.load("twice"))?.goal, "third");
      await reopened.close();
      await store.close();
    }));

  test("a write is of the state as given: changing the object while the batch waits changes nothing written", () =>
    withFile(async (path) => {
      const store = new SqliteStore(path);
      const state = stateOf("given");
      const created = store.create(state);
      state.goal = "changed after create()";
      await created;
      assert.equal((await store.load("given"))?.goal, "the goal of given");
      await store.close();
    }));

  test("a lock held past the busy timeout fails the whole batch with store_busy, nothing of it written", () =>
    withFile(async (path) => {
      const store = new SqliteStore(path, { busyTimeoutMs: 30 });
      await store.create(stateOf("locked"));
      const other = new Database(path);
      other.exec("BEGIN IMMEDIATE");
      try {
        const results = await outcomes([
          store.save(stateOf("locked", { revision: 2 }), { expectedRevision: 1 }),
          store.create(stateOf("second")),
          store.append(chain("third", 1)),
        ]);
        assert.deepEqual(results, ["store_busy", "store_busy", "store_busy"]);
      } finally {
        other.exec("ROLLBACK");
        other.close();
      }
      assert.equal((await store.load("locked"))?.revision, 1);
      assert.equal(await store.load("second"), null);
      assert.deepEqual(await store.read("third"), []);
      await store.close();
    }));

  test("close() commits the writes still waiting, and a closed store refuses the next", () =>
    withFile(async (path) => {
      const store = new SqliteStore(path);
      const writes = Array.from({ length: 10 }, (_, index) => store.create(stateOf(`drained-${index}`)));
      await store.close();
      assert.deepEqual(await outcomes(writes), Array<string>(10).fill("ok"));
      await assert.rejects(store.create(stateOf("late")), refused("store_failed"));
      const reopened = new SqliteStore(path);
      assert.equal((await reopened.list()).length, 10);
      await reopened.close();
    }));

  test("SIGKILL among many batched runs: every tool start had its intent committed, and state and trail agree", () =>
    withFile(async (path) => {
      await new SqliteStore(path).close();
      const child = spawn(
        process.execPath,
        [...nodeArguments(fileURLToPath(new URL("sqlite-batch-crash-child.ts", import.meta.url))), path, "60", "50"],
        { stdio: ["ignore", "pipe", "pipe"] },
      );
      const started: string[] = [];
      let pending = "";
      let errors = "";
      child.stderr.setEncoding("utf8").on("data", (chunk: string) => (errors += chunk));
      const exited = new Promise((resolve) => child.on("exit", resolve));
      await new Promise<void>((resolve, reject) => {
        child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
          pending += chunk;
          const lines = pending.split("\n");
          pending = lines.pop() ?? "";
          for (const line of lines) if (line.startsWith("started ")) started.push(line);
          // Killed mid-flight, while many runs have saves waiting for a batch.
          if (started.length >= 400) {
            child.kill("SIGKILL");
            resolve();
          }
        });
        child.on("exit", () => reject(new Error(`The child ended before it was killed: ${errors}`)));
      });
      await exited;
      const store = new SqliteStore(path);
      try {
        const records = store.records;
        assert.deepEqual(verifyAudit(records), []);
        for (const line of started) {
          const [, runId, step] = line.split(" ") as [string, string, string];
          const state = await store.load(runId);
          assert.ok(state !== null, `${runId} was not stored`);
          // The intent of the call was committed before the tool ran: its step and its start.
          assert.ok((state.steps[Number(step)]?.starts ?? 0) >= 1, `${line}: the intent was not durable`);
          assert.ok(
            records.some(
              (record) =>
                record.run === runId &&
                record.event === "tool_started" &&
                (record.data as { step: number }).step === Number(step),
            ),
            `${line}: no tool_started record`,
          );
        }
        for (const state of await store.list()) {
          const last = records.filter((record) => record.run === state.runId).at(-1);
          assert.deepEqual(state.auditHead, { seq: last?.seq, digest: last?.digest });
        }
      } finally {
        await store.close();
      }
    }));
});
