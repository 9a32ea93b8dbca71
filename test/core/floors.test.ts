import { test } from "node:test";
import assert from "node:assert/strict";
import { folderOf, sourceFiles, sourceImports } from "../helpers/source-imports.js";

// The floors of ARCHITECTURE.md's layer table, folder by folder: a file may import files of its own
// floor and of lower ones, never of a higher one. Type-only and dynamic imports count too: a type
// that a lower floor takes from a higher one ties the two as surely as a value does.
const FLOORS: Readonly<Record<string, number>> = {
  errors: 0,
  json: 1,
  audit: 2,
  tools: 2,
  decisions: 2,
  limits: 2,
  skills: 2,
  approvals: 2,
  policy: 2,
  evidence: 3,
  state: 3,
  mcp: 3,
  stores: 4,
  models: 4,
  guards: 4,
  providers: 4,
  testing: 4,
  trace: 4,
  witness: 4,
  run: 5,
  notify: 5,
  agent: 6,
  gate: 6,
  "index.ts": 6,
  worker: 7,
  otel: 7,
  bench: 7,
  operate: 7,
  inbox: 8,
  gateway: 8,
  cli: 9,
};

const imports = sourceImports();

test("every folder of src/ has a floor in the layer table", () => {
  const unplaced = [...new Set(sourceFiles().map(folderOf))].filter((folder) => FLOORS[folder] === undefined);
  assert.deepEqual(unplaced, [], "a new folder needs its floor here and in ARCHITECTURE.md");
});

test("no file of src/ imports a file of a higher floor", () => {
  const upward = imports
    .filter(({ from, to }) => (FLOORS[folderOf(to)] ?? Infinity) > (FLOORS[folderOf(from)] ?? -Infinity))
    .map(({ from, specifier }) => `${from} imports ${specifier}`);
  assert.deepEqual(upward, []);
});

test("the inbox, the gateway and what they share with the command line never import src/cli/", () => {
  const intoCli = imports
    .filter(({ from, to }) => ["inbox", "gateway", "operate"].includes(folderOf(from)) && folderOf(to) === "cli")
    .map(({ from, specifier }) => `${from} imports ${specifier}`);
  assert.deepEqual(intoCli, []);
});

test("only src/cli/ imports src/cli/", () => {
  const intoCli = imports
    .filter(({ from, to }) => folderOf(to) === "cli" && folderOf(from) !== "cli")
    .map(({ from, specifier }) => `${from} imports ${specifier}`);
  assert.deepEqual(intoCli, []);
});

test("the import reader sees static, type-only, re-exported and dynamic imports", () => {
  const kinds = (from: string, to: string) =>
    imports
      .filter((entry) => entry.from === from && entry.to === to)
      .map(({ typeOnly, dynamic }) => ({ typeOnly, dynamic }));
  // Known imports of each kind, so the checks above cannot pass on a reader that finds nothing.
  assert.deepEqual(kinds("operate/answer-run.ts", "operate/gateway-run-prefix.ts"), [
    { typeOnly: false, dynamic: false },
  ]);
  assert.ok(kinds("operate/open-store.ts", "operate/store-location.ts").some((kind) => kind.typeOnly));
  assert.ok(kinds("operate/open-store.ts", "operate/open-postgres.ts").length > 0);
  assert.ok(imports.some((entry) => entry.from === "index.ts" && entry.to === "agent/agent.ts"));
  assert.ok(imports.some((entry) => entry.dynamic && folderOf(entry.from) === "cli"));
});
