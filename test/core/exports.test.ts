import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

// These tests import the built package by its own name, as users do: `npm test` builds first.
const root = fileURLToPath(new URL("../../", import.meta.url));

test("leash exports every name of the API contract", async () => {
  const leash = (await import("leash")) as Record<string, unknown>;
  for (const name of [
    "Agent",
    "RunState",
    "Decision",
    "Policy",
    "tool",
    "Tool",
    "Toolset",
    "Approval",
    "MemoryStore",
    "MemoryAuditSink",
    "JsonlAuditSink",
    "readAudit",
    "verifyAudit",
    "allow",
    "block",
    "trace",
    "LeashError",
    "StateError",
    "isLeashError",
    "modelPlanner",
    "keygen",
    "signCheckpoint",
    "verifyCheckpoint",
  ]) {
    assert.ok(leash[name] !== undefined, `leash exports ${name}`);
  }
});

test("the subpaths export what the contract names", async () => {
  const testing = (await import("leash/testing")) as Record<string, unknown>;
  assert.equal(typeof testing.scriptedModel, "function");
  assert.equal(typeof (testing.says as Record<string, unknown>).tool, "function");
  assert.equal(typeof (await import("leash/sqlite")).SqliteStore, "function");
  assert.equal(typeof (await import("leash/postgres")).PostgresStore, "function");
  assert.equal(typeof (await import("leash/worker")).Worker, "function");
});

test("leash/evidence exports the Merkle log, notes, cosignatures and what a store implements", async () => {
  const evidence = (await import("leash/evidence")) as Record<string, unknown>;
  for (const name of [
    "MerkleLog",
    "MemoryNodeStore",
    "leafHash",
    "nodeHash",
    "verifyInclusion",
    "verifyConsistency",
    "signNote",
    "openNote",
    "formatCheckpoint",
    "parseCheckpoint",
    "jsonlEvidenceLog",
    "recordsEvidenceLog",
    "evidenceLogOf",
    "storeEvidenceLog",
    "MemoryLogTables",
    "cosignerKeygen",
    "cosignCheckpoint",
    "verifyCosignature",
    "addCosignatures",
  ]) {
    assert.ok(evidence[name] !== undefined, `leash/evidence exports ${name}`);
  }
});

test("of the evidence, leash keeps keygen, signCheckpoint and verifyCheckpoint, the same functions as leash/evidence's", async () => {
  const leash = (await import("leash")) as Record<string, unknown>;
  const evidence = (await import("leash/evidence")) as Record<string, unknown>;
  const kept = ["keygen", "signCheckpoint", "verifyCheckpoint"];
  for (const name of kept) assert.equal(leash[name], evidence[name], name);
  const alsoAtRoot = Object.keys(evidence).filter((name) => !kept.includes(name) && name in leash);
  assert.deepEqual(alsoAtRoot, []);
});

test("leash's declarations name no implementor type of the evidence", () => {
  const declarations = readFileSync(join(root, "dist", "index.d.ts"), "utf8");
  for (const name of [
    "LogTables",
    "CheckpointRow",
    "StoredCheckpoint",
    "RecordLeaf",
    "NodeStore",
    "StoredNode",
    "MemoryNodeStore",
    "EvidenceLogOwner",
  ]) {
    assert.doesNotMatch(declarations, new RegExp(`\\b${name}\\b`), `leash exports ${name}`);
  }
  assert.match(declarations, /\bKeyPair\b/, "the reader sees the evidence types the root keeps");
});

test("importing leash loads no database driver and no model SDK", () => {
  const result = spawnSync(
    process.execPath,
    ["--import", "./test/fixtures/trace-imports.mjs", "--input-type=module", "-e", 'await import("leash");'],
    {
      cwd: root,
      encoding: "utf8",
    },
  );
  assert.equal(result.status, 0, result.stderr);
  const loaded = result.stderr.split("\n").filter((line) => line.startsWith("loaded "));
  assert.ok(
    loaded.some((line) => line.includes("/ajv/")),
    "the probe sees packages the core does load",
  );
  for (const driver of ["better-sqlite3", "/pg/", "openai", "@modelcontextprotocol", "@anthropic-ai"]) {
    assert.ok(!loaded.some((line) => line.includes(driver)), `importing leash does not load ${driver}`);
  }
});
