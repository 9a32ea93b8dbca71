import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { makeRecord, recordDigest, type AuditRecord } from "../../src/audit/audit-record.js";
import { verifyAudit } from "../../src/audit/verify-audit.js";
import { copyOf, headOf, interleavedTrail, kinds, positionOf, RUNS } from "./audit-test-helpers.js";

const trail = interleavedTrail();
const LAST = 5;
const PLACES = [
  ["k = 0", 0],
  ["the middle", 3],
  ["the last", LAST],
] as const;

function recordAt(records: AuditRecord[], run: string, seq: number): AuditRecord {
  return records[positionOf(records, run, seq)] as AuditRecord;
}

function otherDigest(digest: string): string {
  return digest.slice(0, -1) + (digest.endsWith("0") ? "1" : "0");
}

describe("verifyAudit on a sound trail", () => {
  test("passes an interleaved trail of several runs", () => {
    assert.deepEqual(verifyAudit(trail), []);
  });

  test("passes an empty trail, and accepts any iterable", () => {
    assert.deepEqual(verifyAudit([]), []);
    assert.deepEqual(verifyAudit(new Set(trail)), []);
    assert.deepEqual(
      verifyAudit(
        (function* () {
          yield* trail;
        })(),
      ),
      [],
    );
  });

  test("passes when every head kept elsewhere is in the trail", () => {
    const heads = Object.fromEntries(RUNS.map((run) => [run, headOf(trail, run)]));
    assert.deepEqual(verifyAudit(trail, { heads }), []);
  });
});

describe("verifyAudit finds a changed record", () => {
  for (const [place, k] of PLACES) {
    test(`finds a record whose data, time or event was changed, at ${place}`, () => {
      for (const change of [
        (record: AuditRecord) => (record.data = { ...(record.data as object), extra: true }),
        (record: AuditRecord) => (record.at = "2020-01-01T00:00:00.000Z"),
        (record: AuditRecord) => (record.event = "run_ended"),
      ]) {
        const records = copyOf(trail);
        change(recordAt(records, "beta", k));
        assert.deepEqual(kinds(verifyAudit(records)), [{ run: "beta", seq: k, problem: "changed" }]);
      }
    });

    test(`finds a record whose digest alone was changed, at ${place}`, () => {
      const records = copyOf(trail);
      const record = recordAt(records, "beta", k);
      record.digest = otherDigest(record.digest);
      assert.deepEqual(kinds(verifyAudit(records)), [{ run: "beta", seq: k, problem: "changed" }]);
    });

    test(`finds a record whose prev alone was changed, at ${place}`, () => {
      const records = copyOf(trail);
      const record = recordAt(records, "beta", k);
      record.prev = otherDigest(record.prev ?? recordAt(records, "alpha", 0).digest);
      const found = kinds(verifyAudit(records));
      assert.ok(found.some((problem) => problem.problem === "changed" && problem.seq === k));
      const link = k === 0 ? "bad_start" : "broken_link";
      assert.ok(
        found.some((problem) => problem.problem === link && problem.seq === k),
        JSON.stringify(found),
      );
      assert.ok(found.every((problem) => problem.run === "beta" && problem.seq === k));
    });

    test(`finds a record rewritten with its digest recomputed (but not the next ones), at ${place}`, () => {
      const records = copyOf(trail);
      const record = recordAt(records, "beta", k);
      record.data = { forged: true };
      record.digest = recordDigest(record);
      const expected = k === LAST ? [] : [{ run: "beta", seq: k + 1, problem: "broken_link" }];
      assert.deepEqual(kinds(verifyAudit(records)), expected);
      // A forged last record is caught only against a head kept elsewhere.
      const problems = verifyAudit(records, { heads: { beta: headOf(trail, "beta") } });
      if (k === LAST) assert.deepEqual(kinds(problems), [{ run: "beta", seq: LAST, problem: "truncated" }]);
    });
  }

  test("finds a record whose seq was changed", () => {
    const records = copyOf(trail);
    recordAt(records, "beta", 3).seq = 7;
    assert.ok(verifyAudit(records).some((problem) => problem.run === "beta" && problem.problem === "changed"));
  });
});

describe("verifyAudit finds a removed record", () => {
  test("finds record 0 deleted as a bad start", () => {
    const records = copyOf(trail);
    records.splice(positionOf(records, "beta", 0), 1);
    const problems = verifyAudit(records);
    assert.deepEqual(kinds(problems), [{ run: "beta", seq: 1, problem: "bad_start" }]);
    assert.match(problems[0]?.message ?? "", /seq 0 is missing/);
  });

  test("finds a middle record deleted as one gap, naming the first missing seq", () => {
    const records = copyOf(trail);
    records.splice(positionOf(records, "beta", 3), 1);
    assert.deepEqual(kinds(verifyAudit(records)), [{ run: "beta", seq: 3, problem: "missing" }]);
  });

  test("finds several records deleted in a row as one gap", () => {
    const records = copyOf(trail).filter((record) => !(record.run === "gamma" && record.seq >= 1 && record.seq <= 3));
    const problems = verifyAudit(records);
    assert.deepEqual(kinds(problems), [{ run: "gamma", seq: 1, problem: "missing" }]);
    assert.match(problems[0]?.message ?? "", /seq 1 to 3 are missing/);
  });

  test("passes a trail whose last record was deleted (a chain alone cannot show it), and finds it with heads", () => {
    const records = copyOf(trail);
    records.splice(positionOf(records, "beta", LAST), 1);
    assert.deepEqual(verifyAudit(records), []);
    const problems = verifyAudit(records, { heads: { beta: headOf(trail, "beta") } });
    assert.deepEqual(kinds(problems), [{ run: "beta", seq: LAST, problem: "truncated" }]);
  });

  test("passes a trail cut on a line boundary, and finds every cut run with heads", () => {
    const records = copyOf(trail).slice(0, -2);
    assert.deepEqual(verifyAudit(records), []);
    const heads = Object.fromEntries(RUNS.map((run) => [run, headOf(trail, run)]));
    const problems = verifyAudit(records, { heads });
    assert.deepEqual(kinds(problems), [
      { run: "beta", seq: LAST, problem: "truncated" },
      { run: "gamma", seq: LAST, problem: "truncated" },
    ]);
    assert.match(problems[0]?.message ?? "", /ends at seq 4, but its head is seq 5/);
  });

  test("finds a run whose records are all gone, against its head", () => {
    const records = copyOf(trail).filter((record) => record.run !== "gamma");
    const problems = verifyAudit(records, { heads: { gamma: headOf(trail, "gamma") } });
    assert.deepEqual(kinds(problems), [{ run: "gamma", seq: LAST, problem: "truncated" }]);
  });
});

describe("verifyAudit finds reordered and duplicated records", () => {
  for (const [place, k] of [
    ["k = 0", 0],
    ["the middle", 2],
    ["the last", LAST - 1],
  ] as const) {
    test(`finds two records of a run swapped, at ${place}, as one problem`, () => {
      const records = copyOf(trail);
      const first = positionOf(records, "beta", k);
      const second = positionOf(records, "beta", k + 1);
      [records[first], records[second]] = [records[second] as AuditRecord, records[first] as AuditRecord];
      const found = kinds(verifyAudit(records));
      assert.equal(found.length, 1, JSON.stringify(found));
      assert.equal(found[0]?.problem, "reordered");
      assert.ok(found[0]?.seq === k || found[0]?.seq === k + 1);
    });
  }

  test("finds a record moved far from its place as one problem", () => {
    const records = copyOf(trail);
    const [moved] = records.splice(positionOf(records, "beta", 1), 1);
    records.push(moved as AuditRecord);
    assert.deepEqual(kinds(verifyAudit(records)), [{ run: "beta", seq: 1, problem: "reordered" }]);
  });

  for (const [place, k] of PLACES) {
    test(`finds a record duplicated, at ${place}, wherever the copy stands`, () => {
      for (const where of ["next to it", "at the end", "before it"]) {
        const records = copyOf(trail);
        const position = positionOf(records, "beta", k);
        const copy = { ...(records[position] as AuditRecord) };
        if (where === "next to it") records.splice(position + 1, 0, copy);
        else if (where === "at the end") records.push(copy);
        else records.splice(Math.max(0, position - 4), 0, copy);
        assert.deepEqual(kinds(verifyAudit(records)), [{ run: "beta", seq: k, problem: "duplicate" }], where);
      }
    });
  }

  test("finds a record copied verbatim from another run", () => {
    const records = copyOf(trail);
    records.splice(positionOf(records, "beta", 4), 0, { ...recordAt(records, "alpha", 2) });
    assert.deepEqual(kinds(verifyAudit(records)), [{ run: "alpha", seq: 2, problem: "duplicate" }]);
  });

  test("finds a record copied from another run with its run relabelled", () => {
    const records = copyOf(trail);
    const copy = { ...recordAt(records, "alpha", 2), run: "beta" };
    records.splice(positionOf(records, "beta", 2) + 1, 0, copy);
    assert.deepEqual(kinds(verifyAudit(records)), [{ run: "beta", seq: 2, problem: "changed" }]);
  });

  test("finds a record of another run, relabelled, put in place of one of this run", () => {
    const records = copyOf(trail);
    records[positionOf(records, "beta", 2)] = { ...recordAt(records, "alpha", 2), run: "beta" };
    const found = kinds(verifyAudit(records));
    assert.ok(found.some((problem) => problem.run === "beta" && problem.seq === 2 && problem.problem === "changed"));
  });

  test("finds a whole chain copied verbatim from another run", () => {
    const records = copyOf(trail);
    records.push(...copyOf(trail.filter((record) => record.run === "alpha")));
    const found = kinds(verifyAudit(records));
    assert.deepEqual(
      found,
      [0, 1, 2, 3, 4, 5].map((seq) => ({ run: "alpha", seq, problem: "duplicate" })),
    );
  });

  test("finds a whole chain copied from another run under a new run id", () => {
    const records = copyOf(trail);
    records.push(
      ...copyOf(trail.filter((record) => record.run === "alpha")).map((record) => ({ ...record, run: "delta" })),
    );
    const found = kinds(verifyAudit(records));
    assert.deepEqual(
      found,
      [0, 1, 2, 3, 4, 5].map((seq) => ({ run: "delta", seq, problem: "changed" })),
    );
  });

  test("finds a whole chain of another run put in place of this run's chain", () => {
    const alpha = copyOf(trail.filter((record) => record.run === "alpha"));
    const records = copyOf(trail).map((record) =>
      record.run === "beta" ? { ...(alpha[record.seq] as AuditRecord), run: "beta" } : record,
    );
    const found = kinds(verifyAudit(records));
    assert.deepEqual(
      found,
      [0, 1, 2, 3, 4, 5].map((seq) => ({ run: "beta", seq, problem: "changed" })),
    );
  });
});

describe("verifyAudit reads what it is given with care", () => {
  test("reports a malformed record by run and seq, and checks the rest of its chain", () => {
    const records = copyOf(trail);
    recordAt(records, "beta", 3).data = Number.NaN;
    const problems = verifyAudit(records);
    assert.deepEqual(kinds(problems), [{ run: "beta", seq: 3, problem: "malformed" }]);
    assert.match(problems[0]?.message ?? "", /not JSON/);
  });

  test("verifies data with keys __proto__ and constructor, without polluting Object.prototype", () => {
    const data = JSON.parse(
      '{"__proto__": {"polluted": true}, "constructor": {"prototype": {"polluted": true}}}',
    ) as unknown;
    const record = makeRecord("proto", null, "run_started", data, "2026-01-01T00:00:00.000Z");
    assert.deepEqual(Object.keys(record.data as object), ["__proto__", "constructor"]);
    assert.deepEqual(verifyAudit([record]), []);
    assert.deepEqual(verifyAudit(copyOf([record])), []);
    assert.equal(({} as Record<string, unknown>).polluted, undefined);
    assert.equal(Object.getPrototypeOf(record.data), Object.prototype);
  });

  test("names a run id that is __proto__ like any other", () => {
    const records = copyOf(interleavedTrail(["__proto__", "constructor"], 3));
    assert.deepEqual(verifyAudit(records), []);
    records.splice(positionOf(records, "__proto__", 1), 1);
    assert.deepEqual(kinds(verifyAudit(records)), [{ run: "__proto__", seq: 1, problem: "missing" }]);
  });
});
