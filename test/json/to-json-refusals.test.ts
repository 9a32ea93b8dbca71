// What may go into an audit record: JSON only, refused with not_json before anything is written.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { makeRecord } from "../../src/audit/audit-record.js";
import { MemoryAuditSink } from "../../src/audit/memory-audit-sink.js";
import { isLeashError } from "../../src/errors/index.js";
import { canonicalJson, isJson, toJson } from "../../src/json/index.js";

class Point {
  x = 1;
}

function notJsonValues(): Array<[string, unknown]> {
  const cycle: Record<string, unknown> = {};
  cycle.self = cycle;
  return [
    ["NaN", Number.NaN],
    ["Infinity", Number.POSITIVE_INFINITY],
    ["-Infinity", { deep: [Number.NEGATIVE_INFINITY] }],
    ["a BigInt", 10n],
    ["undefined in an array", [1, undefined]],
    ["a sparse array", [1, , 3]], // eslint-disable-line no-sparse-arrays
    ["a function", { run: () => 1 }],
    ["a symbol", Symbol("s")],
    ["a symbol key", { [Symbol("s")]: 1 }],
    ["a cycle", cycle],
    ["a lone surrogate", "\ud800x"],
    ["a key with a lone surrogate", { "\udfff": 1 }],
    ["the integer 2^53 + 2", 2 ** 53 + 2],
    ["the integer -(2^53 + 2)", -(2 ** 53 + 2)],
    ["the integer 2^53", 2 ** 53],
    ["the integer 1e20", 1e20],
    ["a Map", new Map([["a", 1]])],
    ["a Set", new Set([1])],
    ["a Date", new Date(0)],
    ["a class instance", new Point()],
  ];
}

describe("toJson and makeRecord refuse what is not JSON", () => {
  for (const [name, value] of notJsonValues()) {
    test(`refuses ${name} with not_json`, () => {
      assert.throws(
        () => toJson(value),
        (error: unknown) => isLeashError(error, "not_json"),
      );
      assert.equal(isJson(value), false);
      assert.throws(
        () => makeRecord("run", null, "tool_ended", { result: value }, "x"),
        (error: unknown) => isLeashError(error, "not_json") && error.message.includes("tool_ended"),
      );
    });
  }

  test("refuses before anything is written, using up no sequence number", () => {
    const sink = new MemoryAuditSink();
    const first = makeRecord("run", null, "run_started", {}, "x");
    sink.append([first]);
    const head = { seq: first.seq, digest: first.digest };
    assert.throws(() => sink.append([makeRecord("run", head, "tool_ended", Number.NaN, "x")]));
    const next = makeRecord("run", head, "tool_ended", 1, "x");
    assert.equal(next.seq, 1);
    sink.append([next]);
    assert.deepEqual(
      sink.records.map((record) => record.seq),
      [0, 1],
    );
  });
});

describe("toJson keeps what is JSON", () => {
  test("turns a top-level undefined into null and leaves out undefined properties", () => {
    assert.equal(toJson(undefined), null);
    assert.deepEqual(toJson({ a: 1, b: undefined, c: { d: undefined } }), { a: 1, c: {} });
    assert.equal(makeRecord("run", null, "run_ended", undefined, "x").data, null);
  });

  test("keeps numbers of magnitude 1e21 and more, and safe integers", () => {
    for (const number of [1e21, 1e30, -1e300, 2 ** 53 - 1, -(2 ** 53 - 1), 5e-324, 1.5e-7, -0]) {
      assert.equal(Object.is(toJson(number), number), true, String(number));
    }
    assert.equal(canonicalJson([1e30, 1e21, 1.5e-7, -0]), "[1e+30,1e+21,1.5e-7,0]");
  });

  test("keeps keys __proto__ and constructor as own properties, without polluting Object.prototype", () => {
    const value = JSON.parse(
      '{"__proto__":{"polluted":true},"constructor":{"prototype":{"polluted":true}}}',
    ) as unknown;
    const copy = toJson(value) as Record<string, unknown>;
    assert.deepEqual(Object.keys(copy), ["__proto__", "constructor"]);
    assert.equal(Object.getPrototypeOf(copy), Object.prototype);
    assert.deepEqual(copy["__proto__"], { polluted: true });
    assert.equal(({} as Record<string, unknown>).polluted, undefined);
    assert.equal(canonicalJson(value), '{"__proto__":{"polluted":true},"constructor":{"prototype":{"polluted":true}}}');
  });
});
