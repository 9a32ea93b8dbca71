// canonicalOfJson has JSON.stringify write a value whose keys are listed in canonical order already:
// the text must be the RFC 8785 text whatever the value holds, the same as the `canonicalize` package
// gives, for the value in its own order and copied with its keys sorted, and a record's digest must
// not depend on the order its data was written in.
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import canonicalize from "canonicalize";
import { createHash } from "node:crypto";
import { makeRecord, verifyAudit } from "../../src/index.js";
import { canonicalOfJson, toJson } from "../../src/json/index.js";
import type { Json } from "../../src/json/index.js";

/** A small seeded generator, so that a failure can be replayed. */
function random(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let mixed = Math.imul(state ^ (state >>> 15), 1 | state);
    mixed = (mixed + Math.imul(mixed ^ (mixed >>> 7), 61 | mixed)) ^ mixed;
    return ((mixed ^ (mixed >>> 14)) >>> 0) / 4294967296;
  };
}

// Keys that sort differently by code unit than by other orders, look like array indices, or are
// special to JavaScript objects.
const KEYS = [
  "b",
  "a",
  "B",
  "10",
  "2",
  "0",
  "",
  "__proto__",
  "toJSON",
  "é",
  "\u{1f600}",
  "\uffff",
  "a\u0000",
  "aa",
  "Z",
];
const STRINGS = ["", "x", '"quoted"', "back\\slash", "line\nbreak", "\u0001\u001f", "\u2028", "é", "\u{1f600}"];
const NUMBERS = [0, -0, 1, -1, 0.1, 1e21, 1e-7, 123456789.123, Number.MAX_SAFE_INTEGER, 5e-324];

function value(next: () => number, depth: number): Json {
  const pick = next();
  if (depth > 4 || pick < 0.35) {
    const kind = Math.floor(next() * 4);
    if (kind === 0) return STRINGS[Math.floor(next() * STRINGS.length)] as string;
    if (kind === 1) return NUMBERS[Math.floor(next() * NUMBERS.length)] as number;
    if (kind === 2) return next() < 0.5;
    return null;
  }
  if (pick < 0.6) return Array.from({ length: Math.floor(next() * 4) }, () => value(next, depth + 1));
  const object: Record<string, Json> = {};
  for (let count = Math.floor(next() * 5); count > 0; count--) {
    const key = KEYS[Math.floor(next() * KEYS.length)] as string;
    Object.defineProperty(object, key, {
      value: value(next, depth + 1),
      enumerable: true,
      writable: true,
      configurable: true,
    });
  }
  return object;
}

/** A copy of a JSON value with every object's keys inserted in code-unit order. */
function toSortedJson(made: Json, _what?: string, _options?: object): Json {
  if (typeof made !== "object" || made === null) return made;
  if (Array.isArray(made)) return made.map((item) => toSortedJson(item));
  const copy: Record<string, Json> = {};
  for (const key of Object.keys(made).sort()) {
    const item = toSortedJson(made[key] as Json);
    Object.defineProperty(copy, key, { value: item, enumerable: true, writable: true, configurable: true });
  }
  return copy;
}

/** A value nested `levels` deep, each level an object with keys in order. */
function deep(levels: number): Json {
  let made: Json = { a: 1, b: [true, "x"] };
  for (let level = 0; level < levels; level++) made = { a: level, b: made, c: "z" };
  return made;
}

describe("canonicalOfJson of values whose keys are in canonical order", () => {
  test("gives the RFC 8785 text for random values, sorted or not", () => {
    const next = random(18);
    for (let round = 0; round < 3000; round++) {
      const made = value(next, 0);
      const expected = canonicalize(made);
      assert.equal(canonicalOfJson(toSortedJson(made)), expected, `round ${round}`);
      assert.equal(canonicalOfJson(toJson(made)), expected, `round ${round}`);
    }
  });

  test("gives the RFC 8785 text for values deeper than what it hands to JSON.stringify", () => {
    for (const levels of [10, 63, 64, 65, 200]) {
      const made = deep(levels);
      assert.equal(canonicalOfJson(toSortedJson(made, "the value", { maxDepth: 300 })), canonicalize(made));
    }
  });

  test("gives the RFC 8785 text for objects of many keys, in order and not", () => {
    const next = random(7);
    for (let round = 0; round < 200; round++) {
      const made: Record<string, Json> = {};
      for (let count = 0; count < 40; count++)
        made[`k${Math.floor(next() * 1000)}${KEYS[count % KEYS.length] as string}`] = count;
      assert.equal(canonicalOfJson(made), canonicalize(made), `round ${round}`);
      assert.equal(canonicalOfJson(toSortedJson(made)), canonicalize(made), `round ${round}`);
    }
  });

  test("is not fooled by a toJSON added to Object.prototype", () => {
    const made = toSortedJson({ a: { b: 1 } });
    const prototype = Object.prototype as { toJSON?: unknown };
    prototype.toJSON = () => "polluted";
    try {
      assert.equal(canonicalOfJson(made), '{"a":{"b":1}}');
    } finally {
      delete prototype.toJSON;
    }
  });

  test("a record's digest does not depend on the order its data was written in", () => {
    const at = "2026-01-01T00:00:00.000Z";
    const one = makeRecord(
      "run",
      null,
      "tool_started",
      { step: 2, tool: "noop", args: { z: 1, a: [2, { y: 0, b: 1 }] } },
      at,
    );
    const other = makeRecord(
      "run",
      null,
      "tool_started",
      { args: { a: [2, { b: 1, y: 0 }], z: 1 }, tool: "noop", step: 2 },
      at,
    );
    assert.equal(one.digest, other.digest);
    assert.deepEqual(one.data, other.data);
    assert.deepEqual(verifyAudit([one]), []);
    // Verified from its JSON text too, as a sink that wrote it would read it back.
    assert.deepEqual(verifyAudit([JSON.parse(JSON.stringify(one))]), []);
  });

  test("a record's digest is SHA-256 of the RFC 8785 text of the record, for random data of any key order", () => {
    const next = random(29);
    const at = "2026-01-01T00:00:00.000Z";
    for (let round = 0; round < 2000; round++) {
      const data = value(next, 0);
      const record = makeRecord("run", null, "odd_data", data, at);
      const { digest, ...rest } = record;
      const expected = createHash("sha256")
        .update(canonicalize(rest) as string)
        .digest("hex");
      assert.equal(digest, expected, `round ${round}`);
      assert.deepEqual(record.data, toJson(data), `round ${round}`);
      assert.deepEqual(verifyAudit([JSON.parse(JSON.stringify(record))]), [], `round ${round}`);
    }
  });

  test("a record keeps its data with every object's keys in canonical order, a __proto__ key among them", () => {
    const data = JSON.parse('{"tool":"noop","step":2,"__proto__":{"z":1,"a":2},"args":{"y":[{"d":1,"c":2}],"b":0}}');
    const record = makeRecord("run", null, "tool_started", data, "2026-01-01T00:00:00.000Z");
    assert.equal(
      JSON.stringify(record.data),
      '{"__proto__":{"a":2,"z":1},"args":{"b":0,"y":[{"c":2,"d":1}]},"step":2,"tool":"noop"}',
    );
    assert.equal(Object.getPrototypeOf(record.data), Object.prototype);
  });

  test("a record's digest is the canonical form's when a toJSON was added to Object.prototype", () => {
    const prototype = Object.prototype as { toJSON?: unknown };
    const data = { b: { d: 1, c: [2] }, a: "x" };
    const at = "2026-01-01T00:00:00.000Z";
    const clean = makeRecord("run", null, "odd_data", data, at);
    prototype.toJSON = () => "polluted";
    let polluted;
    try {
      polluted = makeRecord("run", null, "odd_data", data, at);
    } finally {
      delete prototype.toJSON;
    }
    assert.equal(polluted.digest, clean.digest);
  });
});
