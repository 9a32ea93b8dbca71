// ajv is loaded when the first schema is compiled, not when leash is imported: a process that
// compiles no schema (most runs of the `leash` bin) does without its start-up cost.
import { test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { repositoryRoot } from "../helpers/repository-root.js";

test("importing leash loads no ajv module; compiling the first schema loads ajv and validates with it", () => {
  const entry = join(repositoryRoot, "dist", "index.js");
  assert.ok(existsSync(entry), `${entry} does not exist: run \`npm run build\` first.`);
  // One fresh process: which ajv modules it holds after the import, and after a compile.
  const printed = execFileSync(
    process.execPath,
    [
      "--input-type=module",
      "-e",
      `const { createRequire } = await import("node:module");
       const ajvLoaded = () => Object.keys(createRequire(import.meta.url).cache).filter((key) => /[\\\\/]node_modules[\\\\/]ajv(-formats)?[\\\\/]/.test(key)).length;
       const { tool } = await import(${JSON.stringify(pathToFileURL(entry).href)});
       const imported = ajvLoaded();
       const lookup = tool({
         name: "lookup",
         description: "Looks a topic up.",
         parameters: { type: "object", properties: { topic: { type: "string", format: "uuid" } }, required: ["topic"] },
         execute: async () => "found",
       });
       process.stdout.write(JSON.stringify({ imported, compiled: ajvLoaded(), name: lookup.name }));`,
    ],
    { encoding: "utf8", timeout: 60_000 },
  );
  const { imported, compiled, name } = JSON.parse(printed) as { imported: number; compiled: number; name: string };
  assert.equal(imported, 0);
  assert.ok(compiled > 0, `expected ajv's modules loaded after the compile, got ${compiled}`);
  assert.equal(name, "lookup");
});
