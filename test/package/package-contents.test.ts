// What `npm pack` puts in the package, read from the built dist/ (which `npm test` builds first) and
// from npm's own list of the files it would pack. The whole install of the tarball into a new project
// is scripts/check-package.mjs, which CI runs after the tests.
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { builtinModules } from "node:module";
import { dirname, join, relative, resolve } from "node:path";
import { test } from "node:test";
import { repositoryRoot } from "../helpers/repository-root.js";

const root = repositoryRoot;

interface Manifest {
  name: string;
  files: string[];
  repository?: { type?: string; url?: string };
  scripts: Record<string, string>;
  exports: Record<string, string | Record<string, string>>;
  dependencies: Record<string, string>;
  peerDependencies?: Record<string, string>;
}

const manifest = JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as Manifest;

/** The bare module names a file imports (`import`, `export ... from`, `import()`), not relative ones. */
function bareImports(text: string): string[] {
  // Comments go first: a TSDoc example's `import ... from "leash/sqlite"` is not an import.
  const code = text.replace(/\/\*[\s\S]*?\*\//g, "").replace(/^\s*\/\/.*$/gm, "");
  const found = code.matchAll(/(?:\bfrom\s*|\bimport\s*\(\s*|\bimport\s+)["']([^"'./][^"']*)["']/g);
  return [...found].map((match) => match[1] as string);
}

function packageOf(specifier: string): string {
  const parts = specifier.split("/");
  return (specifier.startsWith("@") ? parts.slice(0, 2) : parts.slice(0, 1)).join("/");
}

function isBuiltin(specifier: string): boolean {
  return specifier.startsWith("node:") || builtinModules.includes(specifier);
}

/** The declaration files reachable from a subpath's `types`, following relative imports. */
function reachableDeclarations(entry: string): string[] {
  const seen = new Set<string>();
  const pending = [entry];
  while (pending.length > 0) {
    const file = pending.pop() as string;
    if (seen.has(file)) continue;
    seen.add(file);
    const text = readFileSync(file, "utf8");
    for (const match of text.matchAll(/(?:\bfrom\s*|\bimport\s*\(\s*)["'](\.{1,2}\/[^"']+)\.js["']/g)) {
      pending.push(resolve(dirname(file), `${match[1] as string}.d.ts`));
    }
  }
  return [...seen];
}

/** Whether an installed dependency ships its own declarations (so an app gets them with it). */
function shipsTypes(name: string): boolean {
  const folder = join(root, "node_modules", name);
  const own = JSON.parse(readFileSync(join(folder, "package.json"), "utf8")) as Record<string, unknown>;
  return typeof own.types === "string" || typeof own.typings === "string" || existsSync(join(folder, "index.d.ts"));
}

function builtDist(): string {
  const dist = join(root, "dist");
  assert.ok(existsSync(join(dist, "index.d.ts")), "dist/ is not built: run `npm run build` first");
  return dist;
}

test("the package names its repository, ships the Apache-2.0 license and builds itself before packing", () => {
  assert.deepEqual(manifest.repository, { type: "git", url: "git+https://github.com/leash-dev/leash.git" });
  assert.equal(manifest.scripts.prepack, "npm run build");
  const license = readFileSync(join(root, "LICENSE"), "utf8");
  assert.match(license, /Apache License\s+Version 2\.0, January 2004/);
  assert.match(license, /Copyright \d{4} the leash authors/);
});

test("npm packs the license and dist/, and no source map or file of the repository alone", () => {
  // --ignore-scripts: list what would be packed from the dist/ built already, without building again.
  const output = execFileSync("npm", ["pack", "--dry-run", "--json", "--ignore-scripts"], {
    cwd: root,
    encoding: "utf8",
  });
  const [report] = JSON.parse(output.slice(output.indexOf("["))) as { files: { path: string }[] }[];
  const files = new Set(report?.files.map((file) => file.path));
  for (const path of ["LICENSE", "README.md", "dist/index.js", "dist/index.d.ts", "dist/cli/main.js"]) {
    assert.ok(files.has(path), `the package has no ${path}`);
  }
  for (const path of files) {
    assert.ok(!path.endsWith(".map"), `${path}: a source map whose sources are not shipped`);
    assert.doesNotMatch(path, /^(src|test|bench|scripts|examples)\//, `${path} belongs to the repository only`);
  }
});

test("the shipped code imports only Node's modules, the package's dependencies and its optional peers", () => {
  const dist = builtDist();
  const allowed = new Set([
    manifest.name,
    ...Object.keys(manifest.dependencies),
    ...Object.keys(manifest.peerDependencies ?? {}),
  ]);
  const files = readdirSync(dist, { recursive: true, encoding: "utf8" }).filter((file) => file.endsWith(".js"));
  assert.ok(files.length > 0);
  for (const file of files) {
    const text = readFileSync(join(dist, file), "utf8");
    assert.doesNotMatch(text, /sourceMappingURL=/, `${file} points at a source map that is not shipped`);
    for (const specifier of bareImports(text)) {
      if (isBuiltin(specifier)) continue;
      assert.ok(
        allowed.has(packageOf(specifier)),
        `${file} imports ${specifier}, absent where the package is installed`,
      );
    }
  }
});

test("every subpath's declarations typecheck without a driver's types or any dev dependency", () => {
  const dist = builtDist();
  for (const [subpath, target] of Object.entries(manifest.exports)) {
    if (typeof target === "string") continue;
    const entry = target.types;
    assert.ok(entry !== undefined, `${subpath} has no types`);
    for (const file of reachableDeclarations(resolve(root, entry))) {
      for (const specifier of bareImports(readFileSync(file, "utf8"))) {
        const name = packageOf(specifier);
        if (isBuiltin(specifier) || name === manifest.name) continue;
        assert.ok(
          name in manifest.dependencies && shipsTypes(name),
          `${subpath}: ${relative(dist, file)} needs the types of ${specifier}, which an app does not have`,
        );
      }
    }
  }
});
