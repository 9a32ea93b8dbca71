import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { isLeashError, type ErrorCode } from "../../src/errors/index.js";
import { compileSchema, createSchemaCompiler } from "../../src/tools/schema-validator.js";

const LOOKUP = {
  type: "object",
  properties: { topic: { type: "string", enum: ["ids", "spans"] } },
  required: ["topic"],
  additionalProperties: false,
};

function refusal(run: () => unknown, code: ErrorCode = "invalid_tool"): string {
  try {
    run();
  } catch (error) {
    assert.ok(isLeashError(error, code), `expected LeashError ${code}, got ${String(error)}`);
    return error.message;
  }
  assert.fail("expected the schema to be refused");
}

describe("compileSchema: the dialect", () => {
  test("compiles a schema without `$schema` as 2020-12", () => {
    assert.equal(compileSchema(LOOKUP, "lookup").draft, "2020-12");
  });

  test("compiles a schema naming the 2020-12 meta-schema as 2020-12", () => {
    const schema = { $schema: "https://json-schema.org/draft/2020-12/schema", type: "string" };
    assert.equal(compileSchema(schema, "a string").draft, "2020-12");
  });

  for (const uri of [
    "http://json-schema.org/draft-07/schema#",
    "http://json-schema.org/draft-07/schema",
    "https://json-schema.org/draft-07/schema#",
    "https://json-schema.org/draft-07/schema",
  ]) {
    test(`compiles a schema naming ${uri} as draft-07`, () => {
      const validator = compileSchema({ $schema: uri, items: [{ type: "string" }], additionalItems: false }, "a pair");
      assert.equal(validator.draft, "draft-07");
      // Tuple `items` with `additionalItems` is draft-07 only; 2020-12 spells it `prefixItems`.
      assert.deepEqual(validator.validate(["a"]), { valid: true });
      assert.equal(validator.validate(["a", "b"]).valid, false);
    });
  }

  test("refuses the tuple form of `items` in a 2020-12 schema", () => {
    refusal(() => compileSchema({ items: [{ type: "string" }] }, "a pair"));
  });

  for (const uri of ["http://json-schema.org/draft-04/schema#", "https://json-schema.org/draft/2019-09/schema"]) {
    test(`refuses a schema naming ${uri}`, () => {
      const message = refusal(() => compileSchema({ $schema: uri, type: "string" }, "the parameters of tool `old`"));
      assert.match(message, /the parameters of tool `old`/);
      assert.ok(message.includes(uri));
    });
  }
});

describe("compileSchema: refusals", () => {
  test("refuses a schema that does not compile, naming it and giving ajv's reason", () => {
    const message = refusal(() => compileSchema({ type: "nope" }, "the parameters of tool `lookup`"));
    assert.match(message, /the parameters of tool `lookup`/);
    assert.match(message, /must be equal to one of the allowed values/);
  });

  test("refuses a `$ref` that resolves to nothing", () => {
    assert.match(
      refusal(() => compileSchema({ $ref: "http://example.com/missing.json" }, "s")),
      /can't resolve/,
    );
  });

  for (const [label, schema] of [
    ["an array", [{ type: "string" }]],
    ["a string", "string"],
    ["a number", 1],
    ["null", null],
  ] as const) {
    test(`refuses ${label} as a schema`, () => {
      refusal(() => compileSchema(schema, "s"));
    });
  }

  test("refuses a schema that is not JSON", () => {
    refusal(() => compileSchema({ type: "number", maximum: Number.NaN }, "s"));
    refusal(() => compileSchema({ type: "object", default: () => 1 }, "s"));
  });

  test("refuses an async schema, which would accept every value", () => {
    assert.match(
      refusal(() => compileSchema({ $async: true, type: "object" }, "s")),
      /\$async/,
    );
  });

  test("throws the error code the caller asks for", () => {
    refusal(
      () => compileSchema({ type: "nope" }, "the output of skill `x`", { errorCode: "invalid_skill" }),
      "invalid_skill",
    );
  });
});

describe("compileSchema: caching", () => {
  test("returns the same validator for the same schema object", () => {
    const schema = { type: "object", properties: { n: { type: "integer" } } };
    assert.equal(compileSchema(schema, "a"), compileSchema(schema, "b"));
  });

  test("returns the same validator for an equal schema with keys in another order", () => {
    const first = compileSchema({ type: "integer", minimum: 3, maximum: 7 }, "a");
    assert.equal(compileSchema({ maximum: 7, minimum: 3, type: "integer" }, "b"), first);
  });

  test("keeps a private copy of the schema", () => {
    const schema = { type: "string", maxLength: 2 };
    const validator = compileSchema(schema, "s");
    assert.deepEqual(validator.schema, schema);
    assert.notEqual(validator.schema, schema);
  });
});

describe("compileSchema: validation", () => {
  test("accepts a valid value", () => {
    assert.deepEqual(compileSchema(LOOKUP, "lookup").validate({ topic: "ids" }), { valid: true });
  });

  test("says where and why a value is invalid", () => {
    const result = compileSchema(LOOKUP, "lookup").validate({ topic: "other", extra: 1 });
    assert.deepEqual(result, {
      valid: false,
      errors: [
        "/ must NOT have additional properties (extra)",
        "/topic must be equal to one of the allowed values (ids, spans)",
      ],
    });
  });

  test("names a missing required property and a nested path", () => {
    const schema = {
      type: "object",
      properties: { pages: { type: "array", items: { type: "integer" } } },
      required: ["q"],
    };
    const result = compileSchema(schema, "s").validate({ pages: [1, "two"] });
    assert.deepEqual(result, {
      valid: false,
      errors: ["/ must have required property 'q'", "/pages/1 must be integer"],
    });
  });

  test("caps the number of reported errors", () => {
    const result = compileSchema({ type: "array", items: { type: "integer" } }, "s").validate(Array(50).fill("x"));
    assert.equal(result.valid, false);
    if (result.valid) return;
    assert.equal(result.errors.length, 21);
    assert.equal(result.errors[20], "... and 30 more");
  });

  test("does not count inherited properties as present", () => {
    const validator = compileSchema({ type: "object", required: ["constructor", "toString"] }, "s");
    assert.equal(validator.validate({}).valid, false);
  });

  test("compiles the boolean schemas", () => {
    assert.deepEqual(compileSchema(true, "s").validate({ any: "thing" }), { valid: true });
    assert.equal(compileSchema(false, "s").validate(null).valid, false);
  });

  test("asserts formats", () => {
    const validator = compileSchema({ type: "string", format: "date" }, "s");
    assert.deepEqual(validator.validate("2024-02-29"), { valid: true });
    assert.equal(validator.validate("yesterday").valid, false);
  });
});

describe("compileSchema: `$id`", () => {
  test("compiles two schemas with the same `$id` and different contents, each as itself", () => {
    const strings = compileSchema({ $id: "http://example.com/shared", type: "string" }, "a");
    const numbers = compileSchema({ $id: "http://example.com/shared", type: "number" }, "b");
    assert.deepEqual(strings.validate("x"), { valid: true });
    assert.equal(strings.validate(1).valid, false);
    assert.deepEqual(numbers.validate(1), { valid: true });
    assert.equal(numbers.validate("x").valid, false);
  });

  test("does not let one schema's `$id` answer another schema's `$ref`", () => {
    compileSchema({ $id: "http://example.com/hijack", type: "object" }, "a");
    compileSchema({ $defs: { inner: { $id: "http://example.com/inner", type: "string" } } }, "b");
    refusal(() => compileSchema({ $ref: "http://example.com/hijack" }, "c"));
    refusal(() => compileSchema({ $ref: "http://example.com/inner" }, "d"));
  });

  test("resolves references inside a schema to its own `$id`", () => {
    const tree = {
      $id: "http://example.com/tree",
      type: "object",
      properties: { children: { type: "array", items: { $ref: "http://example.com/tree" } } },
      additionalProperties: false,
    };
    const validator = compileSchema(tree, "tree");
    assert.deepEqual(validator.validate({ children: [{ children: [] }] }), { valid: true });
    assert.equal(validator.validate({ children: [{ leaf: 1 }] }).valid, false);
  });

  test("resolves a recursive `$ref` to the root of a schema without `$id`", () => {
    const validator = compileSchema(
      { type: "array", items: { anyOf: [{ type: "integer" }, { $ref: "#" }] } },
      "nested",
    );
    assert.deepEqual(validator.validate([1, [2, [3]]]), { valid: true });
    assert.equal(validator.validate([1, ["x"]]).valid, false);
  });
});

describe("createSchemaCompiler", () => {
  test("resolves `$ref` to a registered remote, which compileSchema does not see", () => {
    const compiler = createSchemaCompiler({ remotes: { "http://example.com/integer.json": { type: "integer" } } });
    const schema = { type: "array", items: { $ref: "http://example.com/integer.json" } };
    const validator = compiler.compile(schema, "s");
    assert.deepEqual(validator.validate([1, 2]), { valid: true });
    assert.equal(validator.validate(["x"]).valid, false);
    refusal(() => compileSchema(schema, "s"));
  });

  test("refuses a remote of a dialect leash does not support", () => {
    const remotes = { "http://example.com/old.json": { $schema: "http://json-schema.org/draft-04/schema#" } };
    refusal(() => createSchemaCompiler({ remotes }), "invalid_option");
  });
});
