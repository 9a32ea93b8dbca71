import { createRequire, register as registerHooks } from "node:module";
import { dirname, join } from "node:path";
import { pathToFileURL } from "node:url";
import { LeashError } from "../errors/leash-error.js";

/** Whether a module is written in TypeScript, by its extension. */
export function isTypeScript(path: string): boolean {
  return /\.(ts|mts|cts)$/i.test(path);
}

/** Whether this process already runs under tsx (`node --import tsx`, or `NODE_OPTIONS`): then it loads TypeScript. */
function underTsx(): boolean {
  return [...process.execArgv, process.env.NODE_OPTIONS ?? ""].some((argument) => /\btsx\b/.test(argument));
}

/**
 * The URL of tsx's ESM API: from the app's own folder first (where an app that writes TypeScript has
 * it), then from wherever leash is installed.
 */
function tsxApi(moduleFile: string): string | undefined {
  for (const from of [moduleFile, new URL(import.meta.url).pathname]) {
    try {
      const manifest = createRequire(from).resolve("tsx/package.json");
      return pathToFileURL(join(dirname(manifest), "dist", "esm", "api", "index.mjs")).href;
    } catch {
      // Not found from here: try the next place.
    }
  }
  return undefined;
}

/** Whether this Node loads TypeScript by stripping its types (`process.features.typescript`). */
function nativeTypeScript(): boolean {
  const features = process.features as { typescript?: unknown };
  return features.typescript === "strip" || features.typescript === "transform";
}

let registered = false;
let asModules = false;

/**
 * A resolve hook that loads a `.ts` file as an ES module whatever its package's type: in a project
 * whose package.json has no `"type": "module"` (or no package.json), Node and tsx take `.ts` for
 * CommonJS, and a CommonJS module cannot `require()` leash, an ES module with import cycles. `.mts`
 * is a module anyway; `.cts` stays CommonJS, as its author asked.
 */
const TS_AS_MODULE_HOOK = `
export async function resolve(specifier, context, next) {
  const resolved = await next(specifier, context);
  if (!resolved.url.startsWith("file:") || !/\\.tsx?$/i.test(new URL(resolved.url).pathname)) return resolved;
  if (resolved.format === "commonjs-typescript") return { ...resolved, format: "module-typescript" };
  if (resolved.format === "commonjs" || resolved.format === undefined || resolved.format === null)
    return { ...resolved, format: "module" };
  return resolved;
}
`;

/** Registers {@link TS_AS_MODULE_HOOK} once, after tsx's loader, so that it runs before it. */
function loadTypeScriptAsModules(): void {
  if (asModules) return;
  registerHooks(`data:text/javascript,${encodeURIComponent(TS_AS_MODULE_HOOK)}`);
  asModules = true;
}

/**
 * Lets this process import a TypeScript agent module, by registering tsx's loader
 * (`register()` of `tsx/esm/api`) before the module is imported, and a hook that loads `.ts` as an
 * ES module in a CommonJS project too. tsx is not a dependency of leash: when it is not installed,
 * the error says how to install it, or to compile the module.
 */
export async function registerTypeScript(moduleFile: string, shownPath: string): Promise<void> {
  await registerTsx(moduleFile, shownPath);
  loadTypeScriptAsModules();
}

async function registerTsx(moduleFile: string, shownPath: string): Promise<void> {
  if (registered || underTsx()) return;
  const api = tsxApi(moduleFile);
  // A Node that strips types itself (22.18+, 24) may load a simple module without tsx: let it try.
  if (api === undefined && nativeTypeScript()) return;
  if (api === undefined) {
    throw new LeashError(
      "tsx_not_installed",
      `${shownPath} is TypeScript, and loading it needs tsx, which is not installed: install it in your app (npm install --save-dev tsx), or compile the module to JavaScript and give the .js file.`,
    );
  }
  let register: unknown;
  try {
    ({ register } = (await import(api)) as { register?: unknown });
  } catch (error) {
    throw new LeashError("tsx_not_installed", `Could not load tsx to read ${shownPath}: ${(error as Error).message}`);
  }
  if (typeof register !== "function")
    throw new LeashError(
      "tsx_not_installed",
      `The tsx installed has no \`register\` in tsx/esm/api: install tsx 4 or later.`,
    );
  (register as () => unknown)();
  registered = true;
}
