// Type-checks the user guide's runnable TypeScript samples together, as a reader's editor would
// check them (guide-samples.test.ts runs them).
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { missing, node, root, samples, writeSamples } from "./guide-samples.js";

const folder = writeSamples();

describe("guide samples", () => {
  test("every runnable sample type-checks", async () => {
    const checked = samples.filter((sample) => sample.waitsOn.every((piece) => missing(piece) === null));
    const project = join(folder, "tsconfig.json");
    writeFileSync(
      project,
      JSON.stringify({
        extends: join(root, "tsconfig.json"),
        compilerOptions: { noEmit: true, rootDir: folder, declaration: false, sourceMap: false },
        include: [],
        files: checked.map((sample) => join(folder, sample.file)),
      }),
    );
    const tsc = join(root, "node_modules", "typescript", "bin", "tsc");
    const compiled = await node([tsc, "-p", project, "--pretty", "false"], root);
    // Name each error by page and line, not by the temporary file it was found in.
    const where = new Map(checked.map((sample) => [sample.file, sample]));
    const errors = `${compiled.stdout}${compiled.stderr}`.replace(
      /[^\s(]*?([A-Za-z0-9-]+\.ts)\((\d+),(\d+)\)/g,
      (text, file: string, line: string) => {
        const sample = where.get(file);
        return sample === undefined
          ? text
          : `${sample.page} sample ${sample.number}, line ${sample.line + Number(line)}`;
      },
    );
    assert.equal(compiled.code, 0, `the guide's samples do not type-check:\n${errors}`);
  });
});
