import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync, readdirSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { makeRecord, type AuditRecord } from "../../src/audit/audit-record.js";
import { emptyInspectedRecord, inspectAuditRecord } from "../../src/audit/read-audit.js";
import { verifyAudit, type AuditProblem } from "../../src/audit/verify-audit.js";
import { canonicalJson } from "../../src/json/index.js";
import { assertWellFormed, copyOf, interleavedTrail, seededRandom } from "./audit-test-helpers.js";

const trail = interleavedTrail();

function verifyNeverThrows(records: unknown, options?: unknown): AuditProblem[] {
  let problems: AuditProblem[] = [];
  assert.doesNotThrow(() => {
    problems = verifyAudit(records as Iterable<AuditRecord>, options as never);
  });
  assert.ok(Array.isArray(problems));
  assertWellFormed(problems);
  return problems;
}

function hostile(): object {
  return new Proxy(
    {},
    {
      get: () => {
        throw new Error("no get");
      },
      ownKeys: () => {
        throw new Error("no keys");
      },
      getPrototypeOf: () => {
        throw new Error("no prototype");
      },
      has: () => {
        throw new Error("no has");
      },
    },
  );
}

function withRecord(change: (record: Record<string, unknown>) => void): unknown[] {
  const records: unknown[] = copyOf(trail);
  change(records[4] as Record<string, unknown>);
  return records;
}

describe("verifyAudit never throws", () => {
  test("reports a value that is not an iterable of records as malformed", () => {
    for (const value of [null, undefined, 42, "abc", true, {}, () => [], Symbol("x"), 10n, hostile()]) {
      const problems = verifyNeverThrows(value);
      assert.equal(problems.length, 1);
      assert.equal(problems[0]?.problem, "malformed");
    }
  });

  test("reports each item that is not a record as malformed", () => {
    const problems = verifyNeverThrows([null, 1, "x", [], {}, true, hostile(), Object.create(null)]);
    assert.equal(problems.length, 8);
    assert.ok(problems.every((problem) => problem.problem === "malformed" && problem.run === null));
  });

  test("reports an iterable that throws part way, after checking what it gave", () => {
    const records = copyOf(trail);
    records[2] = { ...(records[2] as AuditRecord), at: "changed" };
    const iterable = {
      *[Symbol.iterator]() {
        yield* records.slice(0, 5);
        throw new Error("the disk went away");
      },
    };
    const problems = verifyNeverThrows(iterable);
    assert.ok(
      problems.some((problem) => problem.problem === "malformed" && /the disk went away/.test(problem.message)),
    );
    assert.ok(problems.some((problem) => problem.problem === "changed"));
    const getterThrows = Object.defineProperty({}, Symbol.iterator, {
      get() {
        throw new Error("no iterator");
      },
    });
    assert.equal(verifyNeverThrows(getterThrows)[0]?.problem, "malformed");
  });

  test("reports records that cannot be read or are not JSON as malformed", () => {
    class Thing {
      value = 1;
    }
    const cycle: Record<string, unknown> = { a: 1 };
    cycle.self = cycle;
    const sparse = [1, , 3]; // eslint-disable-line no-sparse-arrays
    const changes: Array<(record: Record<string, unknown>) => void> = [
      (record) =>
        Object.defineProperty(record, "data", {
          get: () => {
            throw new Error("getter");
          },
          enumerable: true,
        }),
      (record) => (record.data = cycle),
      (record) => (record.data = { nested: [cycle] }),
      (record) => (record.data = Number.NaN),
      (record) => (record.data = Number.POSITIVE_INFINITY),
      (record) => (record.data = 10n),
      (record) => (record.data = () => 1),
      (record) => (record.data = undefined),
      (record) => (record.data = [undefined]),
      (record) => (record.data = sparse),
      (record) => (record.data = new Map([["a", 1]])),
      (record) => (record.data = new Date(0)),
      (record) => (record.data = new Thing()),
      (record) => (record.data = "\ud800"),
      (record) => (record.data = { "\udc00": 1 }),
      (record) => (record.data = 2 ** 53 + 2),
      (record) => (record.data = hostile()),
      (record) => (record.extra = 1),
      (record) => delete record.prev,
      (record) => (record.v = 2),
      (record) => (record.seq = -1),
      (record) => (record.seq = 1.5),
      (record) => (record.run = ""),
      (record) => (record.event = 7),
      (record) => (record.prev = "zz"),
      (record) => (record.digest = (record.digest as string).toUpperCase()),
    ];
    for (const change of changes) {
      const problems = verifyNeverThrows(withRecord(change));
      assert.ok(
        problems.some((problem) => problem.problem === "malformed"),
        String(change),
      );
    }
  });

  test("survives data nested too deeply for the stack", () => {
    let deep: unknown = 1;
    for (let depth = 0; depth < 100_000; depth++) deep = [deep];
    const problems = verifyNeverThrows(withRecord((record) => (record.data = deep)));
    assert.ok(problems.some((problem) => problem.problem === "malformed"));
  });

  test("reports heads that are not heads as malformed", () => {
    const all = [null, 5, "x", [], { beta: "x" }, { beta: { seq: -1, digest: "x" } }, hostile()];
    for (const [index, heads] of all.entries()) {
      const problems = verifyNeverThrows(trail, { heads });
      assert.ok(problems.length > 0 && problems.every((problem) => problem.problem === "malformed"), `heads ${index}`);
    }
    assert.deepEqual(
      verifyNeverThrows(trail, hostile()).map((problem) => problem.problem),
      ["malformed"],
    );
  });
});

describe("verifyAudit recomputes digests exactly as makeRecord does", () => {
  test("agrees with recordDigest on random JSON data (keys, unicode, escapes, numbers)", () => {
    const random = seededRandom(8785);
    const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)] as T;
    const characters = [
      "a",
      "Z",
      "0",
      " ",
      '"',
      "\\",
      "\n",
      "\u0000",
      "\u001f",
      "\u007f",
      "\u2028",
      "\u2029",
      "é",
      "€",
      "😀",
      "\ufb33",
      "\u00df",
    ];
    const text = (): string => Array.from({ length: Math.floor(random() * 6) }, () => pick(characters)).join("");
    const numbers = [
      0,
      -0,
      1,
      -1,
      1.5,
      1e21,
      1e-7,
      1.5e-7,
      1e30,
      -1e300,
      5e-324,
      2 ** 53 - 1,
      -(2 ** 53 - 1),
      0.1 + 0.2,
      123456.789,
    ];
    const keys = ["a", "b", "1", "10", "2", "__proto__", "constructor", "é", "€", "😀", "\ufb33", "", "A"];
    const value = (depth: number): unknown => {
      const kind = depth > 3 ? Math.floor(random() * 4) : Math.floor(random() * 6);
      if (kind === 0) return text();
      if (kind === 1) {
        const number = random() < 0.5 ? pick(numbers) : (random() - 0.5) * 10 ** Math.floor(random() * 40 - 20);
        // Integers between 2^53 and 1e21 are refused by toJson: not data a record can hold.
        return Number.isInteger(number) && !Number.isSafeInteger(number) && Math.abs(number) < 1e21 ? 1e22 : number;
      }
      if (kind === 2) return pick([true, false, null]);
      if (kind === 3) return Math.floor(random() * 1000);
      if (kind === 4) return Array.from({ length: Math.floor(random() * 4) }, () => value(depth + 1));
      const object: Record<string, unknown> = {};
      for (let count = Math.floor(random() * 5); count > 0; count--) {
        Object.defineProperty(object, random() < 0.5 ? pick(keys) : text(), {
          value: value(depth + 1),
          enumerable: true,
          writable: true,
          configurable: true,
        });
      }
      return object;
    };
    const fields = emptyInspectedRecord();
    for (let index = 0; index < 400; index++) {
      const record = makeRecord(`run-${text()}`, null, "tool_ended", value(0), text());
      assert.deepEqual(verifyAudit([record]), [], JSON.stringify(record));
      assert.equal(inspectAuditRecord(record, fields), null);
      const { digest: _digest, ...unsigned } = record;
      assert.equal(fields.canonical, canonicalJson(unsigned));
    }
  });

  const vectors = new URL("../vectors/jcs/", import.meta.url);
  const names = readdirSync(fileURLToPath(new URL("input/", vectors))).filter((name) => name.endsWith(".json"));
  test("canonicalizes the RFC 8785 vectors as record data to their expected bytes", () => {
    assert.ok(names.length >= 6);
    const fields = emptyInspectedRecord();
    for (const name of names) {
      const data = JSON.parse(readFileSync(new URL(`input/${name}`, vectors), "utf8")) as unknown;
      const expected = readFileSync(new URL(`output/${name}`, vectors), "utf8");
      const record = makeRecord("vectors", null, "run_started", data, "2026-01-01T00:00:00.000Z");
      assert.equal(inspectAuditRecord(record, fields), null, name);
      assert.ok(fields.canonical.includes(`"data":${expected},"event"`), name);
      assert.deepEqual(verifyAudit([record]), [], name);
    }
  });
});
