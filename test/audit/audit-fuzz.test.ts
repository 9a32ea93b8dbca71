// Property test: a random bit flipped anywhere in a JSONL trail is always either a read error
// (audit_torn or audit_corrupt) or at least one verify problem, unless it left the meaning unchanged
// (`1e+30` to `1E+30`, an escape's hex digit in upper case), and reading never throws anything else.
import { test } from "node:test";
import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import type { AuditRecord } from "../../src/audit/audit-record.js";
import { readAudit, readAuditPrefix } from "../../src/audit/read-audit.js";
import { verifyAudit } from "../../src/audit/verify-audit.js";
import { isLeashError } from "../../src/errors/index.js";
import { canonicalJson } from "../../src/json/index.js";
import { RUNS, interleavedTrail, jsonlOf, seededRandom, temporaryDirectory } from "./audit-test-helpers.js";

// Data with escapes, non-ASCII text and numbers in exponent form, where a flipped bit has most to break.
function fuzzTrail(): AuditRecord[] {
  return interleavedTrail(RUNS, 8, (_run, step) => ({
    step,
    text: `line one\nline two \u001f tab\t "quoted" €😀`,
    numbers: [1e30, 1.5e-7, -0.25, step * 1000],
    nested: { ok: step % 2 === 0, none: null, list: [] },
  }));
}

test(
  "a random bit flip anywhere in a JSONL trail is never read and verified as sound with another meaning",
  { timeout: 20_000 },
  () => {
    const trail = fuzzTrail();
    const meaning = trail.map((record) => canonicalJson(record));
    const original = Buffer.from(jsonlOf(trail), "utf8");
    const path = join(temporaryDirectory(), "fuzz.jsonl");
    const random = seededRandom(20260101);
    const outcomes = { torn: 0, corrupt: 0, found: 0, harmless: 0 };
    for (let iteration = 0; iteration < 600; iteration++) {
      const bytes = Buffer.from(original);
      const position = Math.floor(random() * bytes.length);
      const bit = Math.floor(random() * 8);
      bytes[position] = (bytes[position] as number) ^ (1 << bit);
      writeFileSync(path, bytes);
      const where = `flip of bit ${bit} at byte ${position}`;
      let records: AuditRecord[];
      try {
        records = readAudit(path);
      } catch (error) {
        assert.ok(
          isLeashError(error, "audit_torn") || isLeashError(error, "audit_corrupt"),
          `${where}: ${String(error)}`,
        );
        outcomes[error.code === "audit_torn" ? "torn" : "corrupt"]++;
        continue;
      }
      const problems = verifyAudit(records);
      if (problems.length > 0) {
        outcomes.found++;
        continue;
      }
      assert.deepEqual(
        records.map((record) => canonicalJson(record)),
        meaning,
        `${where} passed with another meaning`,
      );
      outcomes.harmless++;
    }
    assert.equal(outcomes.torn + outcomes.corrupt + outcomes.found + outcomes.harmless, 600);
    assert.ok(outcomes.corrupt > 100 && outcomes.found > 100, JSON.stringify(outcomes));
    assert.ok(outcomes.harmless < 30, JSON.stringify(outcomes));
  },
);

test("a trail cut at any byte reads as a sound prefix plus at most one torn line", () => {
  const trail = fuzzTrail();
  const original = Buffer.from(jsonlOf(trail), "utf8");
  const path = join(temporaryDirectory(), "cut.jsonl");
  for (let length = 0; length <= original.length; length += 13) {
    writeFileSync(path, original.subarray(0, length));
    const { records, tornTail } = readAuditPrefix(path);
    assert.deepEqual(records, trail.slice(0, records.length));
    assert.deepEqual(verifyAudit(records), []);
    const whole = original.subarray(0, length).lastIndexOf(0x0a) + 1;
    // A cut just before a line end leaves a whole record, which reads as one.
    assert.equal(tornTail === null, whole === length || original[length] === 0x0a);
    if (tornTail !== null)
      assert.throws(
        () => readAudit(path),
        (error: unknown) => isLeashError(error, "audit_torn"),
      );
  }
});
