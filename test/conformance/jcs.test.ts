// RFC 8785 (JSON Canonicalization Scheme) conformance: the vectors of cyberphone/json-canonicalization.
// Each input/X.json must canonicalize to exactly the bytes of output/X.json. The upstream output files
// end without a newline (canonical JSON has none), so the bytes are compared as they are, untrimmed.
import assert from "node:assert/strict";
import { readFileSync, readdirSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, test } from "node:test";
import { canonicalJson } from "../../src/json/index.js";

// In the repository (test/vectors/, with their license and source), so a fresh clone runs them.
const VECTORS = new URL("../vectors/jcs/", import.meta.url);
const inputs = readdirSync(fileURLToPath(new URL("input/", VECTORS)))
  .filter((name) => name.endsWith(".json"))
  .sort();

describe("RFC 8785 canonical JSON (cyberphone/json-canonicalization vectors)", () => {
  test("finds the vectors", () => {
    assert.ok(inputs.length >= 6, `expected the upstream vectors, found ${inputs.length} input files`);
  });

  for (const name of inputs) {
    test(`canonicalizes ${name} to the bytes of output/${name}`, () => {
      const input = readFileSync(new URL(`input/${name}`, VECTORS), "utf8");
      const expected = readFileSync(new URL(`output/${name}`, VECTORS));
      const actual = Buffer.from(canonicalJson(JSON.parse(input) as unknown, `vector ${name}`), "utf8");
      assert.equal(actual.toString("utf8"), expected.toString("utf8"));
      assert.ok(actual.equals(expected), "the UTF-8 bytes differ");
    });
  }
});
