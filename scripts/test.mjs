// Runs every test file under test/ with node:test through tsx. Node 20's runner does not discover
// .ts files by itself, and a runner that finds no file would pass while running nothing.
import { readdirSync } from "node:fs";
import { spawnSync } from "node:child_process";
import { join } from "node:path";

const filter = process.argv.slice(2);
const files = readdirSync("test", { recursive: true, encoding: "utf8" })
  .filter((file) => file.endsWith(".test.ts"))
  .map((file) => join("test", file))
  .filter((file) => filter.length === 0 || filter.some((part) => file.includes(part)))
  .sort();
if (files.length === 0) {
  console.error("No test files found under test/.");
  process.exit(1);
}
const result = spawnSync(
  process.execPath,
  ["--import", "tsx", "--test", "--test-reporter=spec", "--test-timeout=120000", ...files],
  { stdio: "inherit" },
);
process.exit(result.status ?? 1);
