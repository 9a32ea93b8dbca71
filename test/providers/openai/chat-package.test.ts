// The built `leash/openai` subpath, imported by its name as users do (`npm test` builds first).
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";

const root = fileURLToPath(new URL("../../../", import.meta.url));

/** Runs a module script in a child process and lists the packages it loaded. */
function packagesLoaded(script: string): { stdout: string; loaded: string[] } {
  const result = spawnSync(
    process.execPath,
    ["--import", "./test/fixtures/trace-imports.mjs", "--input-type=module", "-e", script],
    { cwd: root, encoding: "utf8" },
  );
  assert.equal(result.status, 0, result.stderr);
  return { stdout: result.stdout, loaded: result.stderr.split("\n").filter((line) => line.startsWith("loaded ")) };
}

test("importing leash/openai gives openaiChat and loads no model SDK", () => {
  // The probe does see the SDK when something loads it.
  assert.ok(packagesLoaded('await import("openai");').loaded.some((line) => line.includes("/openai/")));
  const { stdout, loaded } = packagesLoaded(
    'const m = await import("leash/openai"); process.stdout.write(typeof m.openaiChat);',
  );
  assert.equal(stdout, "function");
  for (const sdk of ["/openai/", "@anthropic-ai", "/ai/", "@ai-sdk"])
    assert.ok(!loaded.some((line) => line.includes(sdk)), `importing leash/openai does not load ${sdk}`);
});
