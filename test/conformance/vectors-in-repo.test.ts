// A fresh clone passes its own tests: the conformance vectors live in the repository (test/vectors/),
// each suite beside its license and a README naming its source, and no test reads a file through a
// path that climbs out of the repository.
import assert from "node:assert/strict";
import { readFileSync, readdirSync } from "node:fs";
import { dirname, join, relative, resolve, sep } from "node:path";
import { fileURLToPath } from "node:url";
import { test } from "node:test";

const root = fileURLToPath(new URL("../../", import.meta.url));
const vectors = join(root, "test", "vectors");

test("the conformance vectors are in the repository, each suite with its license and source named", () => {
  const readme = readFileSync(join(vectors, "README.md"), "utf8");
  const suites = [
    { folder: "jcs", source: "cyberphone/json-canonicalization", license: /Apache License\s+Version 2\.0/ },
    {
      folder: "json-schema",
      source: "json-schema-org/JSON-Schema-Test-Suite",
      license: /Permission is hereby granted/,
    },
  ];
  for (const suite of suites) {
    assert.match(readFileSync(join(vectors, suite.folder, "LICENSE"), "utf8"), suite.license, suite.folder);
    assert.ok(readme.includes(suite.source), `the README names ${suite.source}`);
  }
  assert.match(readFileSync(join(vectors, "jcs", "NOTICE"), "utf8"), /Copyright 2018 Anders Rundgren/);
  for (const folder of ["jcs/input", "jcs/output", "json-schema/tests/draft2020-12", "json-schema/tests/draft7"])
    assert.ok(readdirSync(join(vectors, folder)).length > 0, `${folder} holds vectors`);
});

test("no test file reads through a path that leaves the repository", () => {
  const sources = readdirSync(join(root, "test"), { recursive: true, encoding: "utf8" })
    .filter((file) => /\.(ts|mjs)$/.test(file) && !file.startsWith(`vectors${sep}`))
    .map((file) => join(root, "test", file));
  const outside: string[] = [];
  for (const file of sources) {
    const text = readFileSync(file, "utf8");
    for (const match of text.matchAll(/new URL\(\s*["'`]([^"'`$]+)["'`]\s*,\s*import\.meta\.url\s*\)/g)) {
      const target = resolve(dirname(file), match[1]!);
      if (relative(root, target).startsWith("..")) outside.push(`${relative(root, file)}: ${match[1]}`);
    }
  }
  assert.deepEqual(outside, []);
});
