// Compiles the repository's TypeScript (src/ and test/) to JavaScript once per test run, so that the
// child processes the tests start (fixtures, apps, agents run as programs) are plain `node file.js`
// instead of each loading tsx and compiling the same modules again. test/helpers/node-child.ts maps a
// .ts file to its compiled twin, and falls back to tsx when there is none (a test file run alone).
import { createRequire } from "node:module";
import { cpSync, mkdtempSync, readdirSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative } from "node:path";

/** The folders compiled (test files import bench/ too); everything else at the root is linked, so paths the modules build still resolve. */
const COMPILED = ["src", "test", "bench"];

/**
 * Compiles src/ and test/ of `root` into a new temporary folder laid out as the repository is (its
 * other entries, node_modules, dist and package.json among them, linked in), and resolves with the
 * folder and `remove()`. esbuild is the one tsx itself uses, so the JavaScript is what tsx would run.
 */
export async function compileChildren(root) {
  const require = createRequire(join(root, "package.json"));
  const esbuild = await import(require.resolve("esbuild", { paths: [require.resolve("tsx/package.json")] }));
  const folder = mkdtempSync(join(tmpdir(), "leash-test-build-"));
  const remove = () => rmSync(folder, { recursive: true, force: true });
  try {
    const entryPoints = [];
    for (const top of COMPILED) {
      for (const file of readdirSync(join(root, top), { recursive: true, encoding: "utf8" })) {
        const path = join(top, file);
        if (file.endsWith(".ts") && !file.endsWith(".d.ts")) entryPoints.push(join(root, path));
      }
      // Everything that is not TypeScript (fixtures' .mjs, .json, .sql, databases) is copied beside.
      cpSync(join(root, top), join(folder, top), {
        recursive: true,
        filter: (source) => !source.endsWith(".ts") || source.endsWith(".d.ts"),
      });
    }
    await esbuild.build({
      entryPoints,
      outdir: folder,
      outbase: root,
      format: "esm",
      platform: "node",
      target: `node${process.versions.node.split(".")[0]}`,
      logLevel: "error",
      tsconfig: join(root, "tsconfig.json"),
    });
    // Each TypeScript source is linked beside its JavaScript, for the tests that read sources as
    // text (the floors, the import cycles, the error codes' scans) from the folder they run in.
    for (const source of entryPoints) symlinkSync(source, join(folder, relative(root, source)));
    for (const entry of readdirSync(root)) {
      if (COMPILED.includes(entry) || entry === ".git") continue;
      symlinkSync(join(root, entry), join(folder, entry));
    }
    return { folder, remove };
  } catch (error) {
    remove();
    throw error;
  }
}
