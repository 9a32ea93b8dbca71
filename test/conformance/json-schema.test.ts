// The official JSON-Schema-Test-Suite (json-schema-org), drafts 2020-12 and 7, run through leash's
// schema compiler. Cases known to fail (gaps of ajv, and leash's own choices) are listed by name below,
// and the suite asserts that exactly those fail: a listed case that starts passing fails too.
import assert from "node:assert/strict";
import { readFileSync, readdirSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { after, describe, test } from "node:test";
import { createSchemaCompiler, type SchemaCompiler } from "../../src/tools/schema-validator.js";

// In the repository (test/vectors/, with their license and source), so a fresh clone runs them.
const SUITE = new URL("../vectors/json-schema/", import.meta.url);

interface SuiteTest {
  description: string;
  data: unknown;
  valid: boolean;
}
interface SuiteCase {
  description: string;
  schema: unknown;
  tests: SuiteTest[];
}
interface Draft {
  folder: "draft2020-12" | "draft7";
  uri: string;
}

const DRAFTS: Draft[] = [
  { folder: "draft2020-12", uri: "https://json-schema.org/draft/2020-12/schema" },
  { folder: "draft7", uri: "http://json-schema.org/draft-07/schema#" },
];

/** One case ajv is known to miss: where it is, and why it fails. */
interface KnownFailure {
  file: string;
  case: string;
  test: string;
  why: string;
}

// The reasons, named once and shared by the cases they explain.
const WHY = {
  bigInteger: "leash refuses a schema with an integer beyond 2^53 written as plain digits (toJson: not_json)",
  customMetaSchema: "leash accepts only the 2020-12 and draft-07 meta-schemas in `$schema`",
  formatAsserted: "leash asserts `format` (ajv-formats) for tool arguments; 2020-12 makes it an annotation",
  emptyEnum: "ajv refuses `enum: []` when compiling, which the 2020-12 meta-schema allows",
  protoProperty: "ajv skips a `__proto__` entry of `properties` on purpose (its prototype-pollution guard)",
  refSiblings: "ajv 8 applies the keywords beside `$ref`, which draft-07 says to ignore",
  dynamicRefFragment:
    'ajv refuses a `$dynamicRef` that is not a bare fragment ("only supports hash fragment reference")',
  dynamicScope: "ajv resolves `$dynamicRef` through the dynamic scope only partly",
  stackOverflow: "ajv overflows the stack compiling or running these references",
  containsAnnotations: "ajv's `unevaluatedItems` does not track exactly which items `contains` evaluated",
  ifAnnotations: "ajv's `unevaluated*` does not see annotations of an `if` without `then`/`else`",
  nestedItems: "ajv's `unevaluatedItems` does not see `items` of a subschema in `anyOf`",
} as const;

function known(file: string, caseDescription: string, why: string, tests: string[]): KnownFailure[] {
  return tests.map((test) => ({ file, case: caseDescription, test, why }));
}

// One line per case (prettier would spread each over several), so the list reads as a table.
// prettier-ignore
const KNOWN_FAILURES: KnownFailure[] = [
  ...known("draft2020-12/const.json", "float and integers are equal up to 64-bit representation limits", WHY.bigInteger, ["integer is valid", "integer minus one is invalid", "float is valid", "float minus one is invalid"]),
  ...known("draft2020-12/dynamicRef.json", "A $dynamicRef to a $dynamicAnchor in the same schema resource behaves like a normal $ref to an $anchor", WHY.dynamicScope, ["An array of strings is valid"]),
  ...known("draft2020-12/dynamicRef.json", "A $dynamicRef to an $anchor in the same schema resource behaves like a normal $ref to an $anchor", WHY.dynamicScope, ["An array of strings is valid"]),
  ...known("draft2020-12/dynamicRef.json", "A $dynamicRef resolves to the first $dynamicAnchor still in scope that is encountered when the schema is evaluated", WHY.dynamicScope, ["An array of strings is valid"]),
  ...known("draft2020-12/dynamicRef.json", "A $dynamicRef without anchor in fragment behaves identical to $ref", WHY.dynamicScope, ["An array of numbers is valid"]),
  ...known("draft2020-12/dynamicRef.json", "A $dynamicRef with intermediate scopes that don't include a matching $dynamicAnchor does not affect dynamic scope resolution", WHY.dynamicScope, ["An array of strings is valid"]),
  ...known("draft2020-12/dynamicRef.json", "An $anchor with the same name as a $dynamicAnchor is not used for dynamic scope resolution", WHY.dynamicScope, ["Any array is valid"]),
  ...known("draft2020-12/dynamicRef.json", "A $dynamicRef without a matching $dynamicAnchor in the same schema resource behaves like a normal $ref to $anchor", WHY.dynamicScope, ["Any array is valid"]),
  ...known("draft2020-12/dynamicRef.json", "A $dynamicRef with a non-matching $dynamicAnchor in the same schema resource behaves like a normal $ref to $anchor", WHY.dynamicScope, ["Any array is valid"]),
  ...known("draft2020-12/dynamicRef.json", "A $dynamicRef that initially resolves to a schema with a matching $dynamicAnchor resolves to the first $dynamicAnchor in the dynamic scope", WHY.dynamicRefFragment, ["The recursive part is valid against the root", "The recursive part is not valid against the root"]),
  ...known("draft2020-12/dynamicRef.json", "A $dynamicRef that initially resolves to a schema without a matching $dynamicAnchor behaves like a normal $ref to $anchor", WHY.dynamicRefFragment, ["The recursive part doesn't need to validate against the root"]),
  ...known("draft2020-12/dynamicRef.json", "multiple dynamic paths to the $dynamicRef keyword", WHY.dynamicScope, ["number list with string values", "string list with number values"]),
  ...known("draft2020-12/dynamicRef.json", "after leaving a dynamic scope, it is not used by a $dynamicRef", WHY.dynamicRefFragment, ["string matches /$defs/thingy, but the $dynamicRef does not stop here", "first_scope is not in dynamic scope for the $dynamicRef", "/then/$defs/thingy is the final stop for the $dynamicRef"]),
  ...known("draft2020-12/dynamicRef.json", "tests for implementation dynamic anchor and reference link", WHY.dynamicScope, ["correct extended schema"]),
  ...known("draft2020-12/dynamicRef.json", "$ref and $dynamicAnchor are independent of order - $defs first", WHY.dynamicScope, ["correct extended schema"]),
  ...known("draft2020-12/dynamicRef.json", "$ref and $dynamicAnchor are independent of order - $ref first", WHY.dynamicScope, ["correct extended schema"]),
  ...known("draft2020-12/dynamicRef.json", "$ref to $dynamicRef finds detached $dynamicAnchor", WHY.stackOverflow, ["number is valid"]),
  ...known("draft2020-12/dynamicRef.json", "$dynamicRef points to a boolean schema", WHY.dynamicScope, ["follow $dynamicRef to a false schema"]),
  ...known("draft2020-12/dynamicRef.json", "$dynamicRef skips over intermediate resources - direct reference", WHY.dynamicScope, ["integer property passes"]),
  ...known("draft2020-12/dynamicRef.json", "$dynamicRef avoids the root of each schema, but scopes are still registered", WHY.stackOverflow, ["data is sufficient for schema at second#/$defs/length"]),
  ...known("draft2020-12/enum.json", "empty enum", WHY.emptyEnum, ["string is invalid", "number is invalid", "null is invalid", "object is invalid", "array is invalid", "boolean is invalid"]),
  ...known("draft2020-12/format.json", "email format", WHY.formatAsserted, ["invalid email string is only an annotation by default"]),
  ...known("draft2020-12/format.json", "regex format", WHY.formatAsserted, ["invalid regex string is only an annotation by default"]),
  ...known("draft2020-12/format.json", "ipv4 format", WHY.formatAsserted, ["invalid ipv4 string is only an annotation by default"]),
  ...known("draft2020-12/format.json", "ipv6 format", WHY.formatAsserted, ["invalid ipv6 string is only an annotation by default"]),
  ...known("draft2020-12/format.json", "hostname format", WHY.formatAsserted, ["invalid hostname string is only an annotation by default"]),
  ...known("draft2020-12/format.json", "date format", WHY.formatAsserted, ["invalid date string is only an annotation by default"]),
  ...known("draft2020-12/format.json", "date-time format", WHY.formatAsserted, ["invalid date-time string is only an annotation by default"]),
  ...known("draft2020-12/format.json", "time format", WHY.formatAsserted, ["invalid time string is only an annotation by default"]),
  ...known("draft2020-12/format.json", "json-pointer format", WHY.formatAsserted, ["invalid json-pointer string is only an annotation by default"]),
  ...known("draft2020-12/format.json", "relative-json-pointer format", WHY.formatAsserted, ["invalid relative-json-pointer string is only an annotation by default"]),
  ...known("draft2020-12/format.json", "uri format", WHY.formatAsserted, ["invalid uri string is only an annotation by default"]),
  ...known("draft2020-12/format.json", "uri-reference format", WHY.formatAsserted, ["invalid uri-reference string is only an annotation by default"]),
  ...known("draft2020-12/format.json", "uri-template format", WHY.formatAsserted, ["invalid uri-template string is only an annotation by default"]),
  ...known("draft2020-12/format.json", "uuid format", WHY.formatAsserted, ["invalid uuid string is only an annotation by default"]),
  ...known("draft2020-12/format.json", "duration format", WHY.formatAsserted, ["invalid duration string is only an annotation by default"]),
  ...known("draft2020-12/properties.json", "properties whose names are Javascript object property names", WHY.protoProperty, ["__proto__ not valid"]),
  ...known("draft2020-12/ref.json", "refs with relative uris and defs", WHY.stackOverflow, ["invalid on inner field", "invalid on outer field", "valid on both fields"]),
  ...known("draft2020-12/ref.json", "relative refs with absolute uris and defs", WHY.stackOverflow, ["invalid on inner field", "invalid on outer field", "valid on both fields"]),
  ...known("draft2020-12/ref.json", "URN ref with nested pointer ref", WHY.stackOverflow, ["a string is valid", "a non-string is invalid"]),
  ...known("draft2020-12/unevaluatedItems.json", "unevaluatedItems with nested items", WHY.nestedItems, ["with no additional items", "with invalid additional item"]),
  ...known("draft2020-12/unevaluatedItems.json", "unevaluatedItems with $dynamicRef", WHY.stackOverflow, ["with no unevaluated items"]),
  ...known("draft2020-12/unevaluatedItems.json", "unevaluatedItems depends on adjacent contains", WHY.containsAnnotations, ["contains passes, second item is not evaluated"]),
  ...known("draft2020-12/unevaluatedItems.json", "unevaluatedItems depends on multiple nested contains", WHY.containsAnnotations, ["7 not evaluated, fails unevaluatedItems"]),
  ...known("draft2020-12/unevaluatedItems.json", "unevaluatedItems and contains interact to control item dependency relationship", WHY.containsAnnotations, ["only b's are invalid", "only c's are invalid", "only b's and c's are invalid", "only a's and c's are invalid"]),
  ...known("draft2020-12/unevaluatedItems.json", "unevaluatedItems with minContains = 0", WHY.containsAnnotations, ["all items evaluated by contains"]),
  ...known("draft2020-12/unevaluatedItems.json", "unevaluatedItems can see annotations from if without then and else", WHY.ifAnnotations, ["valid in case if is evaluated"]),
  ...known("draft2020-12/unevaluatedProperties.json", "unevaluatedProperties with if/then/else, then not defined", WHY.ifAnnotations, ["when if is true and has no unevaluated properties", "when if is false and has unevaluated properties"]),
  ...known("draft2020-12/unevaluatedProperties.json", "unevaluatedProperties with $dynamicRef", WHY.stackOverflow, ["with no unevaluated properties"]),
  ...known("draft2020-12/unevaluatedProperties.json", "unevaluatedProperties can see annotations from if without then and else", WHY.ifAnnotations, ["valid in case if is evaluated"]),
  ...known("draft2020-12/vocabulary.json", "schema that uses custom metaschema with with no validation vocabulary", WHY.customMetaSchema, ["applicator vocabulary still works", "no validation: valid number", "no validation: invalid number, but it still validates"]),
  ...known("draft2020-12/vocabulary.json", "ignore unrecognized optional vocabulary", WHY.customMetaSchema, ["string value", "number value"]),
  ...known("draft7/const.json", "float and integers are equal up to 64-bit representation limits", WHY.bigInteger, ["integer is valid", "integer minus one is invalid", "float is valid", "float minus one is invalid"]),
  ...known("draft7/properties.json", "properties whose names are Javascript object property names", WHY.protoProperty, ["__proto__ not valid"]),
  ...known("draft7/ref.json", "ref overrides any sibling keywords", WHY.refSiblings, ["ref valid, maxItems ignored"]),
  ...known("draft7/ref.json", "$ref prevents a sibling $id from changing the base uri", WHY.refSiblings, ["$ref resolves to /definitions/base_foo, data does not validate", "$ref resolves to /definitions/base_foo, data validates"]),
];

const knownKeys = new Set(KNOWN_FAILURES.map((failure) => keyOf(failure.file, failure.case, failure.test)));
const seenKeys = new Set<string>();
const counts = new Map<string, { passed: number; total: number }>();

function keyOf(file: string, caseDescription: string, testDescription: string): string {
  return JSON.stringify([file, caseDescription, testDescription]);
}

function readJson(url: URL): unknown {
  return JSON.parse(readFileSync(url, "utf8")) as unknown;
}

// The suite's README: each file under remotes/ is served at http://localhost:1234/<its path>. Folders
// of other dialects (draft4, draft2019-09, v1, ...) are left out: cases of these two drafts never
// reach them, and leash refuses a remote whose `$schema` names a dialect it does not support. A
// remote in a draft's folder without `$schema` is that draft's (`$id: "#foo"` is valid in draft-07
// only), like the cases; one outside the draft folders is registered with both dialects.
function loadRemotes(): Record<string, unknown> {
  const remotes: Record<string, unknown> = {};
  const root = new URL("remotes/", SUITE);
  const files = readdirSync(fileURLToPath(root), { recursive: true, encoding: "utf8" });
  for (const file of files.filter((name) => name.endsWith(".json")).sort()) {
    const path = file.split("\\").join("/");
    const folder = path.split("/")[0] ?? "";
    if (/^(draft|v)\d/.test(folder) && folder !== "draft2020-12" && folder !== "draft7") continue;
    const draft = DRAFTS.find((candidate) => candidate.folder === folder);
    const remote = readJson(new URL(path, root));
    remotes[`http://localhost:1234/${path}`] = draft === undefined ? remote : asDraft(remote, draft);
  }
  return remotes;
}

// Each case runs as its draft: a schema without `$schema` gets the draft's, and a boolean schema,
// which cannot carry one, is wrapped in `allOf` so a draft-07 run stays draft-07.
function asDraft(schema: unknown, draft: Draft): unknown {
  if (typeof schema === "boolean") return { $schema: draft.uri, allOf: [schema] };
  if (typeof schema === "object" && schema !== null && !("$schema" in schema)) return { $schema: draft.uri, ...schema };
  return schema;
}

function runCase(compiler: SchemaCompiler, draft: Draft, file: string, suiteCase: SuiteCase): string[] {
  const mismatches: string[] = [];
  let validate: ((value: unknown) => boolean) | undefined;
  let compileError = "";
  try {
    const validator = compiler.compile(asDraft(suiteCase.schema, draft), `the schema of "${suiteCase.description}"`);
    validate = (value) => validator.validate(value).valid;
  } catch (error) {
    compileError = error instanceof Error ? error.message : String(error);
  }
  const count = counts.get(draft.folder) ?? { passed: 0, total: 0 };
  counts.set(draft.folder, count);
  for (const suiteTest of suiteCase.tests) {
    const key = keyOf(`${draft.folder}/${file}`, suiteCase.description, suiteTest.description);
    seenKeys.add(key);
    const passed = validate !== undefined && validate(suiteTest.data) === suiteTest.valid;
    count.total += 1;
    if (passed) count.passed += 1;
    if (passed === knownKeys.has(key)) {
      const problem = passed
        ? "passes, but is listed as a known failure"
        : validate === undefined
          ? `fails: ${compileError}`
          : `fails: expected valid=${suiteTest.valid}`;
      mismatches.push(`${suiteTest.description}: ${problem}`);
    }
  }
  return mismatches;
}

for (const draft of DRAFTS) {
  const folder = new URL(`tests/${draft.folder}/`, SUITE);
  const files = readdirSync(fileURLToPath(folder))
    .filter((name) => name.endsWith(".json"))
    .sort();
  const compiler = createSchemaCompiler({ remotes: loadRemotes() });
  for (const file of files) {
    describe(`${draft.folder}/${file}`, () => {
      for (const suiteCase of readJson(new URL(file, folder)) as SuiteCase[]) {
        test(suiteCase.description, () => {
          assert.deepEqual(runCase(compiler, draft, file, suiteCase), []);
        });
      }
    });
  }
}

test("every known failure names a test of the suite", () => {
  const stale = KNOWN_FAILURES.filter((failure) => !seenKeys.has(keyOf(failure.file, failure.case, failure.test)));
  assert.deepEqual(stale, []);
});

after(() => {
  const parts = DRAFTS.map((draft) => {
    const count = counts.get(draft.folder) ?? { passed: 0, total: 0 };
    return `${draft.folder} ${count.passed}/${count.total} passed`;
  });
  console.log(`JSON-Schema-Test-Suite: ${parts.join(", ")}; known failures: ${KNOWN_FAILURES.length}`);
});
