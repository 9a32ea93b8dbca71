import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { makeRecord, type AuditRecord } from "../../src/audit/audit-record.js";
import { parseAuditRecord, readAudit, readAuditPrefix, repairAudit } from "../../src/audit/read-audit.js";
import { verifyAudit } from "../../src/audit/verify-audit.js";
import { isLeashError } from "../../src/errors/index.js";
import { interleavedTrail, jsonlOf, temporaryDirectory } from "./audit-test-helpers.js";

const directory = temporaryDirectory();
const trail = interleavedTrail();
let files = 0;

function fileWith(text: string | Buffer): string {
  const path = join(directory, `trail-${files++}.jsonl`);
  writeFileSync(path, text);
  return path;
}

function assertThrowsCode(action: () => unknown, code: string, details?: Record<string, unknown>): void {
  assert.throws(action, (error: unknown) => {
    assert.ok(isLeashError(error), `expected a LeashError, got ${String(error)}`);
    assert.equal(error.code, code, error.message);
    if (details !== undefined)
      for (const [key, value] of Object.entries(details)) assert.equal(error.details[key], value);
    return true;
  });
}

/** JSON text of the same meaning, written differently: keys reversed, white space, escapes, exponents. */
function rewritten(value: unknown): string {
  if (Array.isArray(value)) return `[ ${value.map(rewritten).join(" ,\t")} ]`;
  if (typeof value === "object" && value !== null) {
    const entries = Object.keys(value).reverse();
    return `{ ${entries.map((key) => `${rewritten(key)} : ${rewritten((value as Record<string, unknown>)[key])}`).join(" , ")} }`;
  }
  if (typeof value === "string") {
    return `"${Array.from({ length: value.length }, (_, index) => `\\u${value.charCodeAt(index).toString(16).padStart(4, "0")}`).join("")}"`;
  }
  if (typeof value === "number") {
    if (Object.is(value, -0)) return "-0.0";
    const text = String(value).toUpperCase().replace("E+", "E");
    return Number.isInteger(value) && !text.includes("E") ? `${text}.0E0` : text;
  }
  return JSON.stringify(value);
}

describe("readAudit", () => {
  test("reads back every record of a JSONL trail, and the chains verify", () => {
    const records = readAudit(fileWith(jsonlOf(trail)));
    assert.deepEqual(records, trail);
    assert.deepEqual(verifyAudit(records), []);
  });

  test("reads an empty file as no records, and skips empty lines", () => {
    assert.deepEqual(readAudit(fileWith("")), []);
    const lines = jsonlOf(trail).split("\n");
    lines.splice(3, 0, "", "");
    assert.deepEqual(readAudit(fileWith(lines.join("\n") + "\n")), trail);
  });

  test("reads a last line that is a whole record with no line end", () => {
    assert.deepEqual(readAudit(fileWith(jsonlOf(trail).slice(0, -1))), trail);
  });

  test("refuses a missing file with audit_not_found", () => {
    assertThrowsCode(() => readAudit(join(directory, "nothing-here.jsonl")), "audit_not_found");
  });

  test("verifies lines re-serialized without changing their meaning (key order, white space, escapes, 1E30 for 1e+30)", () => {
    const data = {
      small: 1.5e-7,
      large: 1e30,
      edge: 1e21,
      huge: -1e300,
      whole: 42,
      text: "Ā€😀\n\u2028",
      list: [0.1, -0, true, null],
    };
    const records = [makeRecord("numbers", null, "run_started", data, "2026-01-01T00:00:00.000Z")];
    records.push(
      makeRecord("numbers", { seq: 0, digest: records[0]?.digest ?? "" }, "tool_ended", { ...data, step: 1 }, "x"),
    );
    const lines = records.map((record) => rewritten(record));
    assert.ok(lines[0]?.includes("1.5E-7") && lines[0].includes("1E30") && lines[0].includes("1E21"));
    const read = readAudit(fileWith(lines.join("\n") + "\n"));
    assert.deepEqual(verifyAudit(read), []);
    assert.deepEqual(read, records);
  });

  test("refuses a torn last line with audit_torn naming the file and the line", () => {
    const text = jsonlOf(trail);
    const path = fileWith(text.slice(0, text.length - 40));
    assertThrowsCode(() => readAudit(path), "audit_torn", { path, line: trail.length });
    assert.throws(() => readAudit(path), new RegExp(`line \\(${trail.length}\\) of the audit trail ${path}`));
  });

  test("reads the records before a torn line with readAuditPrefix, and repairAudit removes only that line", () => {
    const text = jsonlOf(trail);
    const cut = text.length - 40;
    const path = fileWith(text.slice(0, cut));
    const { records, tornTail } = readAuditPrefix(path);
    assert.deepEqual(records, trail.slice(0, -1));
    const start = text.lastIndexOf("\n", text.length - 2) + 1;
    assert.deepEqual(tornTail, { line: trail.length, offset: start, bytes: cut - start, text: text.slice(start, cut) });
    assert.deepEqual(repairAudit(path), tornTail);
    assert.equal(readFileSync(path, "utf8"), text.slice(0, start));
    assert.deepEqual(readAudit(path), trail.slice(0, -1));
    assert.equal(repairAudit(path), null);
  });

  test("treats a last line cut inside a multi-byte character as torn", () => {
    const text = Buffer.from(jsonlOf([makeRecord("emoji", null, "run_started", { face: "😀😀" }, "x")]));
    const path = fileWith(text.subarray(0, text.indexOf(Buffer.from("😀")) + 2));
    assertThrowsCode(() => readAudit(path), "audit_torn", { line: 1 });
  });

  test("refuses garbage in a middle line with audit_corrupt, not as a torn tail, and repairs nothing", () => {
    const lines = jsonlOf(trail).split("\n");
    lines[4] = '{"v":1,"run":"beta" garbage';
    const text = lines.join("\n");
    const path = fileWith(text);
    assertThrowsCode(() => readAudit(path), "audit_corrupt", { path, line: 5 });
    assertThrowsCode(() => readAuditPrefix(path), "audit_corrupt", { line: 5 });
    assertThrowsCode(() => repairAudit(path), "audit_corrupt", { line: 5 });
    assert.equal(readFileSync(path, "utf8"), text);
  });

  test("refuses a bad last line that ends in a line end as corrupt, not torn", () => {
    const path = fileWith(jsonlOf(trail) + '{"v":1,"run":\n');
    assertThrowsCode(() => readAudit(path), "audit_corrupt", { line: trail.length + 1 });
    assertThrowsCode(() => repairAudit(path), "audit_corrupt");
  });

  test("refuses a line that is JSON but not a well-formed record, naming what is wrong", () => {
    const good = JSON.parse(JSON.stringify(trail[0])) as Record<string, unknown>;
    const cases: Array<[Record<string, unknown> | string, RegExp]> = [
      [{ ...good, extra: 1 }, /unknown key "extra"/],
      [{ ...good, v: 2 }, /`v` is not 1/],
      [{ ...good, seq: -1 }, /`seq`/],
      [{ ...good, run: "" }, /`run`/],
      [{ ...good, digest: "ABC" }, /`digest`/],
      [
        '{"v":1,"run":"a","seq":0,"at":"x","event":"e","data":9007199254740994,"prev":null,"digest":"' +
          "0".repeat(64) +
          '"}',
        /not JSON/,
      ],
      [
        '{"v":1,"run":"a","seq":0,"at":"x","event":"e","data":"\\ud800","prev":null,"digest":"' + "0".repeat(64) + '"}',
        /lone surrogate/,
      ],
      ["[1,2]", /not an object/],
    ];
    for (const [line, message] of cases) {
      const path = fileWith(`${jsonlOf(trail.slice(0, 2))}${typeof line === "string" ? line : JSON.stringify(line)}\n`);
      assertThrowsCode(() => readAudit(path), "audit_corrupt", { line: 3 });
      assert.throws(() => readAudit(path), message);
    }
  });

  test("refuses a line that is not valid UTF-8 as corrupt", () => {
    const bytes = Buffer.from(jsonlOf(trail));
    bytes[bytes.indexOf(Buffer.from("page"))] = 0xff;
    assertThrowsCode(() => readAudit(fileWith(bytes)), "audit_corrupt");
  });
});

describe("parseAuditRecord", () => {
  test("returns a fresh copy of a well-formed record", () => {
    const record = trail[3] as AuditRecord;
    const parsed = parseAuditRecord(record);
    assert.deepEqual(parsed, record);
    assert.notEqual(parsed, record);
  });

  test("returns the problem as a string, and never throws", () => {
    const getter = Object.defineProperty({ ...trail[0] }, "run", {
      get: () => {
        throw new Error("no");
      },
      enumerable: true,
    });
    for (const value of [null, 1, "x", [], {}, getter, { ...trail[0], data: undefined }, { ...trail[0], at: 5 }]) {
      assert.equal(typeof parseAuditRecord(value), "string");
    }
    assert.match(parseAuditRecord({ ...trail[0], prev: "x" }) as string, /`prev`/);
    assert.match(parseAuditRecord({ ...trail[0], data: { at: new Map() } }) as string, /not plain/);
  });
});
