import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { ERROR_CODES, FAILURE_CODES, RunState, isLeashError } from "../../src/index.js";

const fixture = (name: string): string => readFileSync(new URL(`../fixtures/states/${name}`, import.meta.url), "utf8");
const guide = (page: string): string => readFileSync(new URL(`../../docs/guide/${page}`, import.meta.url), "utf8");

/** A saved failed run with the given failure code. */
function failedWith(code: string): Record<string, unknown> {
  const json = JSON.parse(fixture("v1-completed.json")) as Record<string, unknown>;
  delete json.answer;
  return { ...json, status: "failed", failure: { code, message: "it went wrong" } };
}

test("a saved failed run loads with each failure code of the list, and with nothing else", () => {
  for (const code of FAILURE_CODES) assert.equal(RunState.fromJSON(failedWith(code)).failure?.code, code);
  for (const code of ["limit_reached", "store_failed", "planner_failed ", "PLANNER_FAILED", "", "__proto__"]) {
    assert.throws(
      () => RunState.fromJSON(failedWith(code)),
      (error: unknown) => isLeashError(error, "invalid_state"),
      JSON.stringify(code),
    );
  }
});

test("every failure code is an error code, so an error and a failed run name it alike", () => {
  const errorCodes: readonly string[] = ERROR_CODES;
  assert.deepEqual(
    FAILURE_CODES.filter((code) => !errorCodes.includes(code)),
    [],
  );
  assert.equal(new Set(ERROR_CODES).size, ERROR_CODES.length, "no code is listed twice");
});

test("the guide's account of how a run ends names exactly the failure codes", () => {
  const page = guide("03-policy-and-limits.md");
  const section = page.slice(page.indexOf("## How a run ends"));
  const failed = section.slice(section.indexOf("- `failed`"), section.indexOf("- `awaiting_approval`"));
  const named = new Set([...failed.matchAll(/`([a-z]+(?:_[a-z]+)+)`/g)].map((match) => match[1]));
  assert.deepEqual([...named].sort(), [...FAILURE_CODES].sort());
  const index = guide("README.md");
  for (const code of FAILURE_CODES) assert.ok(index.includes(`\`${code}\``), `the guide's index names ${code}`);
});
