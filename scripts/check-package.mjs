// Checks the package as a user gets it: `npm pack` (which builds it through `prepack`), the tarball's
// contents, then an install of the tarball into a new project with no dev dependencies of this
// repository, where a sample app that imports every subpath is typechecked with strict settings and
// `skipLibCheck: false`, then run (a run on a SQLite store that pauses, is approved, resumed by a
// worker and verified), and where the installed bin runs `leash demo` and `leash bench`. Then the
// model SDKs (OpenAI, Anthropic, the AI SDK, OpenAI Agents) are installed beside it at this
// repository's versions, and the adapters are built over them, typechecked and run.
// Any failed step ends the script with exit code 1 and says which step failed.
//
//   node scripts/check-package.mjs [--keep]      (--keep leaves the temporary folder for a look)
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { builtinModules } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");
/**
 * @typedef {object} Manifest
 * @property {string} name
 * @property {Record<string, string | Record<string, string>>} exports
 * @property {Record<string, string>} [dependencies]
 * @property {Record<string, string>} [peerDependencies]
 * @property {Record<string, string>} devDependencies
 * @property {Record<string, string>} [scripts]
 * @property {{ url?: string }} [repository]
 */
/**
 * JSON.parse, typed as what it is: a value still to be checked.
 * @param {string} text
 * @returns {unknown}
 */
function parseJson(text) {
  /** @type {unknown} */
  const value = JSON.parse(text);
  return value;
}

const manifest = /** @type {Manifest} */ (parseJson(readFileSync(join(root, "package.json"), "utf8")));
const keep = process.argv.includes("--keep");
const work = mkdtempSync(join(tmpdir(), "leash-package-"));
const started = Date.now();

/** @param {string} message */
function log(message) {
  process.stdout.write(`check-package: ${message}\n`);
}

/**
 * @param {string} message
 * @returns {never}
 */
function fail(message) {
  process.stderr.write(`\ncheck-package: FAILED: ${message}\n`);
  process.stderr.write(`check-package: the temporary folder is kept for a look: ${work}\n`);
  process.exit(1);
}

/**
 * Runs a command, echoing its output; fails the check when it exits with anything but 0.
 * @param {string} step
 * @param {string} command
 * @param {string[]} args
 * @param {{ cwd?: string, env?: Record<string, string>, quiet?: boolean }} [options]
 * @returns {{ stdout: string, stderr: string }}
 */
function run(step, command, args, options = {}) {
  log(`${step}: ${command} ${args.join(" ")}`);
  const result = spawnSync(command, args, {
    cwd: options.cwd ?? work,
    encoding: "utf8",
    env: { ...process.env, ...options.env },
    maxBuffer: 64 * 1024 * 1024,
    stdio: ["ignore", "pipe", "pipe"],
  });
  if (result.error !== undefined) fail(`${step}: ${result.error.message}`);
  if (options.quiet !== true || result.status !== 0) {
    process.stdout.write(indent(result.stdout));
    process.stdout.write(indent(result.stderr));
  }
  if (result.status !== 0) fail(`${step} exited with ${result.status ?? result.signal}`);
  return result;
}

/** @param {string} text */
function indent(text) {
  return text === "" ? "" : text.replace(/^/gm, "  | ").replace(/\s*$/, "\n");
}

/**
 * @param {boolean} condition
 * @param {string} message
 */
function check(condition, message) {
  if (!condition) fail(message);
}

/** @param {string} folder */
function filesUnder(folder) {
  return readdirSync(folder, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => join(entry.parentPath, entry.name));
}

// 1. Pack, as `npm publish` would: `prepack` builds dist/ first, so even an unbuilt clone packs it.
const packed = run("npm pack", "npm", ["pack", "--json", "--pack-destination", work], { cwd: root, quiet: true });
/** @type {{ filename: string, size: number, files: { path: string }[] }} */
let report = { filename: "", size: 0, files: [] };
try {
  const reports = /** @type {(typeof report)[]} */ (parseJson(packed.stdout.slice(packed.stdout.indexOf("["))));
  report = reports[0] ?? fail("npm pack reported no package");
} catch (error) {
  fail(`npm pack printed no JSON report (${String(error)})`);
}
const tarball = join(work, report.filename);
const files = new Set(report.files.map((file) => file.path));
log(`packed ${report.filename}: ${files.size} files, ${(report.size / 1024).toFixed(0)} KiB`);

// 2. What the tarball holds.
const required = ["LICENSE", "README.md", "package.json", "dist/cli/main.js", "docs/guide/README.md"];
for (const target of Object.values(manifest.exports)) {
  if (typeof target === "string") required.push(target.replace(/^\.\//, ""));
  else for (const path of Object.values(target)) required.push(path.replace(/^\.\//, ""));
}
for (const path of required) check(files.has(path), `the tarball has no ${path}`);
for (const path of files) {
  check(!/^(src|test|bench|scripts|examples)\//.test(path), `the tarball ships ${path}, a file of the repository only`);
  check(!path.endsWith(".map"), `the tarball ships a source map, ${path}, whose sources it does not ship`);
}
check(manifest.repository?.url !== undefined, "package.json has no repository");
check(manifest.scripts?.prepack !== undefined, "package.json has no prepack script");
check(readFileSync(join(root, "LICENSE"), "utf8").includes("Apache License"), "LICENSE is not the Apache License");

run("unpack", "tar", ["-xzf", tarball, "-C", work]);
const unpacked = join(work, "package");
// Every module the shipped code imports is Node's own, one of the package's, or a dependency: code
// that needs a dev dependency of this repository would fail where the package is installed.
const installed = new Set([
  manifest.name,
  ...Object.keys(manifest.dependencies ?? {}),
  ...Object.keys(manifest.peerDependencies ?? {}),
]);
const builtins = new Set(builtinModules);
const specifier = /(?:\bfrom\s*|\bimport\s*\(\s*|\bimport\s+)["']([^"'./][^"']*)["']/g;
for (const path of filesUnder(join(unpacked, "dist"))) {
  if (!path.endsWith(".js") && !path.endsWith(".d.ts")) continue;
  const text = readFileSync(path, "utf8");
  check(!/sourceMappingURL=/.test(text), `${relative(unpacked, path)} points at a source map that is not shipped`);
  // Comments go first: a TSDoc example's `import ... from "leash/sqlite"` is not an import.
  const code = text.replace(/\/\*[\s\S]*?\*\//g, "").replace(/^\s*\/\/.*$/gm, "");
  for (const match of code.matchAll(specifier)) {
    const name = match[1] ?? "";
    if (name.startsWith("node:") || builtins.has(name)) continue;
    const packageName = name.startsWith("@") ? name.split("/").slice(0, 2).join("/") : name.split("/")[0];
    check(
      installed.has(packageName),
      `${relative(unpacked, path)} imports ${name}, which an install of the package does not have`,
    );
  }
}

// 3. A new project that installs the tarball, with TypeScript and Node's types at this repository's
// versions, and nothing else of its dev dependencies (no @types/better-sqlite3, no pg, no @types/pg).
const app = join(work, "app");
mkdirSync(join(app, "src"), { recursive: true });
writeFileSync(
  join(app, "package.json"),
  JSON.stringify(
    { name: "leash-package-check", private: true, type: "module", allowScripts: { "better-sqlite3": true } },
    null,
    2,
  ),
);
run(
  "install the tarball",
  "npm",
  [
    "install",
    "--prefer-offline",
    "--no-audit",
    "--no-fund",
    tarball,
    `typescript@${manifest.devDependencies.typescript}`,
    `@types/node@${manifest.devDependencies["@types/node"]}`,
  ],
  { cwd: app, quiet: true },
);
for (const absent of ["@types/better-sqlite3", "@types/pg", "pg"]) {
  check(!existsSync(join(app, "node_modules", absent)), `the install brought ${absent}; the check needs it absent`);
}

writeFileSync(
  join(app, "tsconfig.json"),
  JSON.stringify(
    {
      compilerOptions: {
        target: "ES2022",
        module: "NodeNext",
        moduleResolution: "NodeNext",
        strict: true,
        skipLibCheck: false,
        noUncheckedIndexedAccess: true,
        types: ["node"],
        outDir: "out",
        rootDir: "src",
      },
      include: ["src"],
    },
    null,
    2,
  ),
);
writeFileSync(join(app, "src", "app.ts"), readFileSync(join(root, "scripts", "package-sample", "app.ts"), "utf8"));
// Only `leash`, with nothing of the stores: an app that never touches a driver must typecheck alone.
writeFileSync(
  join(app, "src", "core-only.ts"),
  'import { Agent, Decision } from "leash";\n\nexport const agent = new Agent({ tools: [], planner: () => Decision.finish("done") });\n',
);
run("typecheck and build the sample (strict, skipLibCheck false)", "npx", ["--no-install", "tsc", "-p", "."], {
  cwd: app,
});

const database = join(work, "sample.db");
const sample = run("run the sample", process.execPath, [join("out", "app.js"), database], { cwd: app });
check(sample.stdout.includes("sample: verified"), "the sample did not print its last line");

// 4. The installed bin, from a folder that holds nothing of this repository.
run("leash demo", "npx", ["--no-install", "leash", "demo", "--db", join(work, "demo.db")], { cwd: app });
run("leash verify", "npx", ["--no-install", "leash", "verify", database], { cwd: app });
const overhead = run("leash bench overhead --quick", "npx", ["--no-install", "leash", "bench", "overhead", "--quick"], {
  cwd: app,
});
check(/\| leash, memory sink \|/.test(overhead.stdout), "leash bench overhead printed no leash row");
const corpus = run(
  "leash bench corpus (the shipped guide)",
  "npx",
  ["--no-install", "leash", "bench", "corpus", "--tasks", "6"],
  {
    cwd: app,
  },
);
check(/\| one_shot \|/.test(corpus.stdout), "leash bench corpus printed no planner row");

// The adapters over the SDKs a user installs: the real clients must fit the adapters' structural
// types under strict TypeScript, and the built subpaths must run with the SDKs present.
run(
  "install the model SDKs",
  "npm",
  [
    "install",
    "--prefer-offline",
    "--no-audit",
    "--no-fund",
    ...["openai", "@anthropic-ai/sdk", "ai", "@ai-sdk/openai", "@openai/agents", "zod"].map(
      (name) => `${name}@${manifest.devDependencies[name] ?? fail(`package.json has no dev dependency on ${name}`)}`,
    ),
  ],
  { cwd: app, quiet: true },
);
mkdirSync(join(app, "providers"), { recursive: true });
for (const sample of ["providers.ts", "openai-agents.ts"]) {
  writeFileSync(join(app, "providers", sample), readFileSync(join(root, "scripts", "package-sample", sample), "utf8"));
}
writeFileSync(
  join(app, "tsconfig.providers.json"),
  JSON.stringify(
    {
      compilerOptions: {
        target: "ES2022",
        module: "NodeNext",
        moduleResolution: "NodeNext",
        strict: true,
        // The SDKs' own declarations are theirs to check; what is checked here is that they fit leash's.
        skipLibCheck: true,
        noUncheckedIndexedAccess: true,
        types: ["node"],
        outDir: "out-providers",
        rootDir: "providers",
      },
      include: ["providers"],
    },
    null,
    2,
  ),
);
run(
  "typecheck the adapters over the real SDK clients",
  "npx",
  ["--no-install", "tsc", "-p", "tsconfig.providers.json"],
  {
    cwd: app,
  },
);
const providers = run("run the adapters", process.execPath, [join("out-providers", "providers.js")], { cwd: app });
check(providers.stdout.includes("providers: ready"), "the adapters sample did not print its last line");
// `leash/openai-agents` imports nothing of the SDK: what is checked is that it runs beside the SDK the
// user installed, its tools fitting the SDK's `Agent` and `run()` as they are typed and as they run.
const agents = run(
  "run leash/openai-agents under @openai/agents",
  process.execPath,
  [join("out-providers", "openai-agents.js")],
  { cwd: app },
);
check(agents.stdout.includes("openai-agents: ready"), "the OpenAI Agents sample did not print its last line");

log(`passed in ${((Date.now() - started) / 1000).toFixed(0)} s`);
if (keep) log(`kept ${work}`);
else rmSync(work, { recursive: true, force: true });
