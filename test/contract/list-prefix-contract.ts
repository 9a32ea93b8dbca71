// `list({ runIdPrefix })` in every store: only runs whose id starts with the prefix, compared exactly,
// so the characters LIKE or GLOB would take as wildcards or escapes (`%`, `_`, `\`, `*`, `[`) are
// plain characters, and a prefix past the ASCII range or at the top of Unicode is a prefix too.
import { test } from "node:test";
import assert from "node:assert/strict";
import { isLeashError } from "../../src/index.js";
import { stateOf, withStore } from "./contract-fixtures.js";
import type { MakeStore } from "./contract-fixtures.js";

const IDS = [
  "mcp-abc-1",
  "mcp-abc-2",
  "mcp-abd-1",
  "mcp-ab",
  "mcpXabc-1",
  "other-1",
  "a%b-1",
  "aXb-1",
  "a_b-1",
  "ayb-1",
  "a\\b-1",
  "a\\\\b-1",
  "a*b-1",
  "a[b]-1",
  "é-1",
  "éz-1",
  "f-1",
  "\u{10FFFF}-1",
  "\u{10FFFF}\u{10FFFF}-1",
];

/** The list tests of runIdPrefix, on a fresh store each. */
export function listPrefixContract(makeStore: MakeStore): void {
  test("list with runIdPrefix gives only the runs whose id starts with it, with a status too", () =>
    withStore(makeStore, async (store) => {
      for (const [index, runId] of IDS.entries())
        await store.create(stateOf(runId, { status: index % 2 === 0 ? "awaiting_approval" : "running" }));
      const ids = async (runIdPrefix: string, status?: "awaiting_approval") =>
        (await store.list({ runIdPrefix, ...(status === undefined ? {} : { status }) }))
          .map((state) => state.runId)
          .sort();
      assert.deepEqual(await ids("mcp-abc-"), ["mcp-abc-1", "mcp-abc-2"]);
      assert.deepEqual(await ids("mcp-abc-", "awaiting_approval"), ["mcp-abc-1"]);
      assert.deepEqual(await ids("mcp-ab"), ["mcp-ab", "mcp-abc-1", "mcp-abc-2", "mcp-abd-1"]);
      assert.deepEqual(await ids("mcp-abc-1"), ["mcp-abc-1"]);
      assert.deepEqual(await ids("mcp-abc-3"), []);
      assert.deepEqual(await ids("nothing"), []);
      assert.equal((await ids("")).length, IDS.length);
    }));

  test("list with runIdPrefix takes %, _, \\, * and [ as themselves, never as wildcards or escapes", () =>
    withStore(makeStore, async (store) => {
      for (const runId of IDS) await store.create(stateOf(runId, { status: "awaiting_approval" }));
      const ids = async (runIdPrefix: string) =>
        (await store.list({ runIdPrefix, status: "awaiting_approval" })).map((state) => state.runId).sort();
      assert.deepEqual(await ids("a%"), ["a%b-1"]);
      assert.deepEqual(await ids("a_"), ["a_b-1"]);
      assert.deepEqual(await ids("mcp_"), []);
      assert.deepEqual(await ids("%"), []);
      assert.deepEqual(await ids("_"), []);
      assert.deepEqual(await ids("a\\"), ["a\\\\b-1", "a\\b-1"]);
      assert.deepEqual(await ids("a\\b"), ["a\\b-1"]);
      assert.deepEqual(await ids("a\\\\"), ["a\\\\b-1"]);
      assert.deepEqual(await ids("a*"), ["a*b-1"]);
      assert.deepEqual(await ids("a["), ["a[b]-1"]);
    }));

  test("list with runIdPrefix past ASCII: é and U+10FFFF are prefixes like any other", () =>
    withStore(makeStore, async (store) => {
      for (const runId of IDS) await store.create(stateOf(runId));
      const ids = async (runIdPrefix: string) => (await store.list({ runIdPrefix })).map((state) => state.runId).sort();
      assert.deepEqual(await ids("é"), ["é-1", "éz-1"]);
      assert.deepEqual(await ids("\u{10FFFF}"), ["\u{10FFFF}-1", "\u{10FFFF}\u{10FFFF}-1"]);
      assert.deepEqual(await ids("\u{10FFFF}\u{10FFFF}"), ["\u{10FFFF}\u{10FFFF}-1"]);
    }));

  test("list refuses a runIdPrefix that is not a string (invalid_option)", () =>
    withStore(makeStore, async (store) => {
      await assert.rejects(store.list({ runIdPrefix: 7 as unknown as string }), (error) =>
        isLeashError(error, "invalid_option"),
      );
    }));
}
