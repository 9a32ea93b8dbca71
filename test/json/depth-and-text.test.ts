// The one JSON check caps nesting depth, can bound size, and messageOf is total.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { isLeashError, messageOf } from "../../src/errors/index.js";
import { MAX_JSON_DEPTH, isJson, parseJson, toJson } from "../../src/json/index.js";
import { makeRecord } from "../../src/audit/audit-record.js";

function nested(depth: number): unknown {
  let value: unknown = 1;
  for (let level = 0; level < depth; level++) value = level % 2 === 0 ? [value] : { a: value };
  return value;
}

describe("toJson caps the nesting depth", () => {
  test("a value nested MAX_JSON_DEPTH (256) levels deep is JSON; one level more is refused with not_json naming the depth", () => {
    assert.equal(MAX_JSON_DEPTH, 256);
    assert.doesNotThrow(() => toJson(nested(MAX_JSON_DEPTH)));
    for (const depth of [MAX_JSON_DEPTH + 1, 2_500, 100_000]) {
      assert.throws(
        () => toJson(nested(depth), "the deep value"),
        (error: unknown) =>
          isLeashError(error, "not_json") && error.message.includes("256") && error.message.includes("deep"),
      );
      assert.equal(isJson(nested(depth)), false);
    }
  });

  test("deep JSON text is refused by parseJson with not_json, not a stack overflow", () => {
    const text = "[".repeat(50_000) + "]".repeat(50_000);
    assert.throws(
      () => parseJson(text),
      (error: unknown) => isLeashError(error, "not_json"),
    );
  });

  test("audit data nested too deep is refused before a record is made", () => {
    assert.throws(
      () => makeRecord("run", null, "tool_ended", { result: nested(2_500) }, "x"),
      (error: unknown) => isLeashError(error, "not_json"),
    );
  });

  test("a revoked Proxy or a throwing getter inside a value is not_json, never a raw TypeError", () => {
    const { proxy, revoke } = Proxy.revocable({}, {});
    revoke();
    const getter = {
      get boom() {
        throw new TypeError("no");
      },
    };
    for (const value of [proxy, { inner: [proxy] }, getter]) {
      assert.throws(
        () => toJson(value),
        (error: unknown) => isLeashError(error, "not_json"),
      );
    }
  });
});

describe("toJson can bound the size", () => {
  test("a value whose JSON is longer than maxSize is refused with not_json and a size reason; one at the bound is kept", () => {
    const value = { text: 'a"b\\c\n\u0001é', list: [1, 2.5, -0, true, null, "x"], nested: { k: [] } };
    const size = JSON.stringify(value).length;
    assert.deepEqual(toJson(value, "v", { maxSize: size }), value);
    assert.throws(
      () => toJson(value, "v", { maxSize: size - 1 }),
      (error: unknown) =>
        isLeashError(error, "not_json") &&
        error.details.reason === "too_large" &&
        error.message.includes(String(size - 1)),
    );
  });

  test("a huge value is refused without being copied whole", () => {
    const huge = Array.from({ length: 200_000 }, (_, index) => ({ index, text: "some text" }));
    assert.throws(
      () => toJson(huge, "v", { maxSize: 1_000 }),
      (error: unknown) => isLeashError(error, "not_json") && error.details.reason === "too_large",
    );
  });
});

describe("messageOf never throws and always gives well-formed, bounded text", () => {
  const { proxy: revoked, revoke } = Proxy.revocable({}, {});
  revoke();
  const throwingMessage = new Error("x");
  Object.defineProperty(throwingMessage, "message", {
    get() {
      throw new Error("no message for you");
    },
  });
  const symbolMessage = new Error("x");
  Object.defineProperty(symbolMessage, "message", { value: Symbol("odd") });
  const unprintable = {
    toJSON() {
      throw new Error("no JSON");
    },
    toString() {
      throw new Error("no text");
    },
  };
  const cases: Array<[string, unknown]> = [
    ["a revoked Proxy", revoked],
    ["an Error whose message getter throws", throwingMessage],
    ["an Error whose message is a Symbol", symbolMessage],
    ["an object whose toJSON and toString throw", unprintable],
    ["an Error with a lone surrogate", new Error("bad \ud800 text")],
    ["a string with a lone surrogate", "\udfff"],
    ["a symbol", Symbol("s")],
    ["an object without a prototype", Object.create(null) as unknown],
    ["undefined", undefined],
    ["a huge message", new Error("x".repeat(1_000_000))],
    ["a BigInt", 10n],
  ];
  for (const [name, value] of cases) {
    test(`for ${name}`, () => {
      const message = messageOf(value);
      assert.equal(typeof message, "string");
      assert.ok(message.length > 0);
      assert.ok(message.isWellFormed());
      assert.ok(message.length <= 10_000);
    });
  }
  test("keeps an ordinary message as it is", () => {
    assert.equal(messageOf(new Error("plain")), "plain");
    assert.equal(messageOf("text"), "text");
    assert.equal(messageOf({ a: 1 }), '{"a":1}');
  });
});
