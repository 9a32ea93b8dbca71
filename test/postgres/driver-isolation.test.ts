// The core must never load the PostgreSQL driver: only `leash/postgres` does. Checked in fresh
// processes, by looking for pg's files among the modules Node loaded.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { importable } from "../helpers/node-child.js";

const root = fileURLToPath(new URL("../../", import.meta.url));

function loadsPg(entry: string): boolean {
  const { loader, href } = importable(join(root, entry));
  const script = `
    import { createRequire } from "node:module";
    await import(${JSON.stringify(href)});
    const cache = createRequire(${JSON.stringify(`file://${root}`)}).cache;
    process.stdout.write(String(Object.keys(cache).some((path) => /[\\\\/]node_modules[\\\\/]pg[\\\\/]/.test(path))));
  `;
  const result = spawnSync(process.execPath, [...loader, "--input-type=module", "-e", script], {
    cwd: root,
    encoding: "utf8",
  });
  assert.equal(result.status, 0, result.stderr);
  return result.stdout.trim() === "true";
}

test("importing leash or leash/worker does not load pg", () => {
  assert.equal(loadsPg("src/index.ts"), false);
  assert.equal(loadsPg("src/worker/index.ts"), false);
});

test("importing leash/postgres loads pg (so the check above can see it)", () => {
  assert.equal(loadsPg("src/stores/postgres/index.ts"), true);
});
