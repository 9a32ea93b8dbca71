/**
 * Where the benchmark programs take leash from: the built package in dist/ (what users run, and what
 * the shipped `leash bench overhead` runs) or the TypeScript source through tsx, which wraps every
 * nested function with a naming helper (esbuild's `keepNames`) and so makes closure-heavy code slower
 * than the compiled JavaScript is. Both have the same API; only the cost differs.
 */
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";
import type * as Bench from "../../src/bench/index.js";
import type * as Core from "../../src/index.js";
import type * as AiSdk from "../../src/providers/ai-sdk/index.js";

/** What the benchmark programs use of leash. */
export type LeashModule = typeof Core & typeof Bench & typeof AiSdk;

const root = new URL("../../", import.meta.url);

/** The built package (run `npm run build` first), or the source when `source` is set. */
export async function loadLeash(source: boolean): Promise<{ leash: LeashModule; from: string }> {
  const base = source ? "src/" : "dist/";
  // The source is .ts beside this file, or .js when this file is itself the compiled twin (the test
  // runner's compiled folder, where the source is compiled too).
  const extension = source && import.meta.url.endsWith(".ts") ? ".ts" : ".js";
  const path = (name: string): string => new URL(`${base}${name}${extension}`, root).href;
  if (!source && !existsSync(fileURLToPath(path("index"))))
    throw new Error("dist/ is not built: run `npm run build` first, or pass --src to measure the source through tsx.");
  const [core, bench, aiSdk] = (await Promise.all([
    import(path("index")),
    import(path("bench/index")),
    import(path("providers/ai-sdk/index")),
  ])) as [object, object, object];
  return {
    leash: { ...core, ...bench, ...aiSdk } as LeashModule,
    from: source ? "the TypeScript source through tsx" : "the built package (dist/)",
  };
}
