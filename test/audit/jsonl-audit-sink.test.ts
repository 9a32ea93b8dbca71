import { describe, test } from "node:test";
import assert from "node:assert/strict";
import * as fs from "node:fs";
import { join } from "node:path";
import { makeRecord, type AuditHead, type AuditRecord } from "../../src/audit/audit-record.js";
import { JsonlAuditSink, type AuditFileSystem, type FsyncMode } from "../../src/audit/jsonl-audit-sink.js";
import { readAudit, repairAudit } from "../../src/audit/read-audit.js";
import { verifyAudit } from "../../src/audit/verify-audit.js";
import { isLeashError } from "../../src/errors/index.js";
import { auditSinkContract } from "./audit-sink-contract.js";
import { interleavedTrail, jsonlOf, temporaryDirectory } from "./audit-test-helpers.js";

const directory = temporaryDirectory();
const trail = interleavedTrail();
let files = 0;

function freshPath(): string {
  return join(directory, `sink-${files++}.jsonl`);
}

function eio(): NodeJS.ErrnoException {
  return Object.assign(new Error("EIO: i/o error, fsync"), { code: "EIO", errno: -5 });
}

/** The real file system, counting the bytes read through it. */
function countingReads(): { fileSystem: AuditFileSystem; bytesRead: () => number } {
  let bytesRead = 0;
  const fileSystem: AuditFileSystem = {
    ...fs,
    readSync: (descriptor, buffer, offset, length, position) => {
      const count = fs.readSync(descriptor, buffer, offset, length, position);
      bytesRead += count;
      return count;
    },
  };
  return { fileSystem, bytesRead: () => bytesRead };
}

function isAuditFailed(error: unknown): boolean {
  return isLeashError(error, "audit_failed") && (error.cause as { code?: string } | undefined)?.code === "EIO";
}

for (const fsync of ["none", "batch", "always"] as const) {
  auditSinkContract(`JsonlAuditSink (fsync: "${fsync}")`, () => new JsonlAuditSink(freshPath(), { fsync }));
}

describe("JsonlAuditSink options", () => {
  test("refuses options that are not valid, naming the option", () => {
    const refusals: Array<[() => unknown, RegExp]> = [
      [
        () => new JsonlAuditSink(freshPath(), { fsync: "sometimes" as FsyncMode }),
        /`fsync` to be one of "none", "batch" or "always"/,
      ],
      [() => new JsonlAuditSink(""), /`path`/],
      [() => new JsonlAuditSink(freshPath(), null as never), /options/],
      [() => new JsonlAuditSink(freshPath(), { fileSystem: 5 as never }), /`fileSystem`/],
    ];
    for (const [make, message] of refusals) {
      assert.throws(make, (error: unknown) => isLeashError(error, "invalid_option") && message.test(error.message));
    }
  });

  test("defaults to fsync none, and does not touch the file until the first append", () => {
    const path = freshPath();
    const sink = new JsonlAuditSink(path);
    assert.equal(sink.fsync, "none");
    assert.equal(fs.existsSync(path), false);
    assert.deepEqual(sink.records, []);
    assert.equal(sink.append([trail[0] as AuditRecord]), undefined, "fsync none returns no promise");
    assert.equal(sink.fsyncCount, 0);
    assert.deepEqual(readAudit(path), [trail[0]]);
  });
});

describe("JsonlAuditSink lines", () => {
  test("writes one line per record, escaping line ends, U+2028, U+2029 and NUL", () => {
    const path = freshPath();
    const sink = new JsonlAuditSink(path);
    const records = [
      makeRecord("odd", null, "run_started", { text: "a\nb\r\u2028c\u2029\u0000d", [`key\u2028`]: 1 }, "x"),
    ];
    sink.append(records);
    sink.append(trail);
    const text = fs.readFileSync(path, "utf8");
    assert.equal(text.split("\n").length, trail.length + 2);
    for (const raw of ["\u2028", "\u2029", "\u0000", "\r"]) assert.ok(!text.includes(raw));
    assert.ok(text.includes("\\u2028") && text.includes("\\u2029") && text.includes("\\u0000"));
    assert.deepEqual(readAudit(path), [...records, ...trail]);
  });

  test("reads incrementally what another sink appends to the same file", async () => {
    const path = freshPath();
    const writer = new JsonlAuditSink(path);
    const counting = countingReads();
    const reader = new JsonlAuditSink(path, { fileSystem: counting.fileSystem });
    writer.append(trail.slice(0, 9));
    assert.deepEqual(await reader.read(), trail.slice(0, 9));
    const before = counting.bytesRead();
    writer.append(trail.slice(9));
    assert.deepEqual(
      await reader.read("gamma"),
      trail.filter((record) => record.run === "gamma"),
    );
    assert.equal(
      counting.bytesRead() - before,
      Buffer.byteLength(jsonlOf(trail.slice(9))),
      "only the new bytes are read",
    );
    assert.deepEqual(reader.records, trail);
  });

  test("does not read back what it wrote itself: its reads after its own appends parse nothing", async () => {
    const path = freshPath();
    const counting = countingReads();
    for (const fsync of ["none", "batch", "always"] as const) {
      const sink = new JsonlAuditSink(`${path}.${fsync}`, { fsync, fileSystem: counting.fileSystem });
      for (let start = 0; start < trail.length; start += 4) {
        await sink.append(trail.slice(start, start + 4));
        assert.deepEqual(
          await sink.read("alpha"),
          trail.slice(0, start + 4).filter((record) => record.run === "alpha"),
        );
      }
      assert.deepEqual(sink.records, trail);
      assert.deepEqual(readAudit(`${path}.${fsync}`), trail);
      await sink.close();
    }
    assert.equal(counting.bytesRead(), 0);
  });

  test("reads what another writer appended between its own appends, in file order, and only that", async () => {
    const path = freshPath();
    const counting = countingReads();
    const mine = new JsonlAuditSink(path, { fileSystem: counting.fileSystem });
    const theirs = new JsonlAuditSink(path);
    const [first, second, third, fourth] = [trail.slice(0, 3), trail.slice(3, 6), trail.slice(6, 9), trail.slice(9)];
    mine.append(first);
    theirs.append(second);
    mine.append(third);
    assert.deepEqual(await mine.read(), [...first, ...second, ...third]);
    assert.equal(
      counting.bytesRead(),
      Buffer.byteLength(jsonlOf(second)),
      "it reads what the other writer appended before its own next append (to know the runs' heads), and never its own appends",
    );
    const before = counting.bytesRead();
    mine.append(fourth);
    assert.deepEqual(mine.records, trail);
    assert.equal(
      counting.bytesRead(),
      before,
      "once it has read what came between, its next append is not read back either",
    );
    assert.deepEqual(await theirs.read(), trail);
    assert.deepEqual(readAudit(path), trail);
  });

  test("reads a file that shrank or was replaced again from the start", async () => {
    const path = freshPath();
    const sink = new JsonlAuditSink(path);
    sink.append(trail);
    assert.equal(sink.records.length, trail.length);
    fs.writeFileSync(path, jsonlOf(trail.slice(0, 4)));
    assert.deepEqual(await sink.read(), trail.slice(0, 4));
  });

  test("does not mistake a line another process is still writing for a torn one", () => {
    const path = freshPath();
    fs.writeFileSync(path, jsonlOf(trail));
    let stats = 0;
    const midWrite: AuditFileSystem = {
      ...fs,
      fstatSync: (descriptor) => {
        const { size, dev, ino } = fs.fstatSync(descriptor);
        // The first look sees the last line half written; the next sees it whole.
        return { size: ++stats === 1 ? size - 25 : size, dev, ino };
      },
    };
    assert.deepEqual(new JsonlAuditSink(path, { fileSystem: midWrite }).records, trail);
  });

  test("refuses a trail with garbage in a middle line with audit_corrupt", async () => {
    const path = freshPath();
    const lines = jsonlOf(trail).split("\n");
    lines[2] = "garbage";
    fs.writeFileSync(path, lines.join("\n"));
    const sink = new JsonlAuditSink(path);
    assert.throws(
      () => sink.records,
      (error: unknown) => isLeashError(error, "audit_corrupt") && error.details.line === 3,
    );
    await assert.rejects(sink.read("alpha"), (error: unknown) => isLeashError(error, "audit_corrupt"));
  });

  test("refuses to append after a torn last line, until it is repaired", async () => {
    const path = freshPath();
    const text = jsonlOf(trail.slice(0, 5));
    fs.writeFileSync(path, text.slice(0, -30));
    const sink = new JsonlAuditSink(path);
    await assert.rejects(
      async () => sink.append([trail[5] as AuditRecord]),
      (error: unknown) => isLeashError(error, "audit_torn"),
    );
    assert.throws(
      () => sink.records,
      (error: unknown) => isLeashError(error, "audit_torn"),
    );
    assert.equal(fs.readFileSync(path, "utf8"), text.slice(0, -30));
    repairAudit(path);
    sink.append([trail[4] as AuditRecord]);
    assert.deepEqual(readAudit(path), trail.slice(0, 5));
  });

  test("reports a torn last line after a bounded number of looks when the file does not grow: no spinning", async () => {
    const path = freshPath();
    fs.writeFileSync(path, jsonlOf(trail.slice(0, 5)).slice(0, -30));
    let opens = 0;
    let reads = 0;
    const counting: AuditFileSystem = {
      ...fs,
      openSync: (file, flags) => {
        opens++;
        return fs.openSync(file, flags);
      },
      readSync: (descriptor, buffer, offset, length, position) => {
        reads++;
        return fs.readSync(descriptor, buffer, offset, length, position);
      },
    };
    const sink = new JsonlAuditSink(path, { fileSystem: counting });
    const torn = (error: unknown): boolean => isLeashError(error, "audit_torn");
    assert.throws(() => sink.records, torn);
    await assert.rejects(sink.read("alpha"), torn);
    await assert.rejects(async () => sink.append([trail[4] as AuditRecord]), torn);
    // Each of the three calls read the file's bytes once; a read and an append then look at its size
    // only (no bytes read), 11 times each with waits that double, before calling the line torn.
    assert.equal(reads, 3, "the torn bytes are read once per call, not again and again");
    assert.equal(opens, 6 + 2 * 12);
  });

  test("starts a new line after a last record that has no line end", () => {
    const path = freshPath();
    fs.writeFileSync(path, jsonlOf(trail.slice(0, 3)).slice(0, -1));
    const sink = new JsonlAuditSink(path);
    sink.append(trail.slice(3));
    assert.deepEqual(readAudit(path), trail);
  });

  test("opens the file again for an append after close", async () => {
    const path = freshPath();
    const sink = new JsonlAuditSink(path, { fsync: "batch" });
    await sink.append(trail.slice(0, 3));
    await sink.close();
    await sink.close();
    await sink.append(trail.slice(3));
    await sink.close();
    assert.deepEqual(readAudit(path), trail);
  });
});

/** A file system that logs the calls that matter, optionally failing some. */
function loggingFileSystem(
  log: string[],
  failures: { writeSync?: number; fsyncSync?: number; fsync?: number } = {},
): AuditFileSystem {
  const counts = { writeSync: 0, fsyncSync: 0, fsync: 0 };
  return {
    ...fs,
    writeSync(descriptor, buffer, offset, length) {
      log.push("write");
      if (++counts.writeSync === failures.writeSync) throw eio();
      return fs.writeSync(descriptor, buffer, offset, length);
    },
    fsyncSync(descriptor) {
      log.push("fsyncSync");
      if (++counts.fsyncSync === failures.fsyncSync) throw eio();
      fs.fsyncSync(descriptor);
    },
    fsync(descriptor, callback) {
      log.push("fsync");
      if (++counts.fsync === failures.fsync) setImmediate(() => callback(eio()));
      else fs.fsync(descriptor, (error) => callback(error));
    },
    closeSync(descriptor) {
      log.push("close");
      fs.closeSync(descriptor);
    },
  };
}

describe("JsonlAuditSink durability", () => {
  test('with fsync "always", syncs each append before it returns, and syncs a new file\'s directory', () => {
    const log: string[] = [];
    const sink = new JsonlAuditSink(freshPath(), { fsync: "always", fileSystem: loggingFileSystem(log) });
    for (const record of trail.slice(0, 3)) {
      sink.append([record]);
      assert.equal(log.at(-1), "fsyncSync");
    }
    assert.equal(sink.fsyncCount, 3);
    assert.deepEqual(
      log.filter((call) => call !== "close"),
      ["fsyncSync", "write", "fsyncSync", "write", "fsyncSync", "write", "fsyncSync"],
    );
  });

  test("after an fsync fails (EIO), refuses that append and every later one, and never syncs again", async () => {
    const log: string[] = [];
    const sink = new JsonlAuditSink(freshPath(), {
      fsync: "always",
      fileSystem: loggingFileSystem(log, { fsyncSync: 3 }),
    });
    sink.append([trail[0] as AuditRecord]);
    assert.throws(() => sink.append([trail[1] as AuditRecord]), isAuditFailed);
    for (const record of trail.slice(2, 5)) assert.throws(() => sink.append([record]), isAuditFailed);
    await assert.rejects(async () => sink.append([]), isAuditFailed);
    assert.equal(log.filter((call) => call === "fsyncSync").length, 3);
    assert.equal(log.filter((call) => call === "write").length, 2);
    assert.equal(sink.fsyncCount, 1);
  });

  test('with fsync "batch", a failed fsync rejects every append waiting for it and every later one', async () => {
    const log: string[] = [];
    const sink = new JsonlAuditSink(freshPath(), { fsync: "batch", fileSystem: loggingFileSystem(log, { fsync: 1 }) });
    const outcomes = await Promise.allSettled(
      trail.slice(0, 6).map((record) => sink.append([record]) as Promise<void>),
    );
    assert.ok(outcomes.every((outcome) => outcome.status === "rejected" && isAuditFailed(outcome.reason)));
    await assert.rejects(async () => sink.append([trail[6] as AuditRecord]), isAuditFailed);
    assert.equal(log.filter((call) => call === "fsync").length, 1, "a failed fsync is never retried");
    assert.equal(sink.fsyncCount, 0);
    await sink.close();
  });

  test("after a write fails (EIO), refuses every later append", async () => {
    const sink = new JsonlAuditSink(freshPath(), {
      fsync: "batch",
      fileSystem: loggingFileSystem([], { writeSync: 2 }),
    });
    const first = sink.append([trail[0] as AuditRecord]);
    await assert.rejects(async () => sink.append([trail[1] as AuditRecord]), isAuditFailed);
    await assert.rejects(async () => first, isAuditFailed);
    await assert.rejects(async () => sink.append([trail[2] as AuditRecord]), isAuditFailed);
    await sink.close();
  });

  test('with fsync "batch", 10,000 concurrent appends each resolve after an fsync that covers them, with few fsyncs', async () => {
    const runs = ["north", "south", "east", "west"];
    const heads = new Map<string, AuditHead>();
    const records = Array.from({ length: 10_000 }, (_, index) => {
      const run = runs[index % runs.length] as string;
      const record = makeRecord(run, heads.get(run) ?? null, "tool_ended", { index }, "2026-01-01T00:00:00.000Z");
      heads.set(run, { seq: record.seq, digest: record.digest });
      return record;
    });
    let writes = 0;
    let durableWrites = 0;
    const watching: AuditFileSystem = {
      ...fs,
      writeSync: (descriptor, buffer, offset, length) => {
        writes++;
        return fs.writeSync(descriptor, buffer, offset, length);
      },
      fsync: (descriptor, callback) => {
        const covered = writes;
        fs.fsync(descriptor, (error) => {
          if (error === null) durableWrites = Math.max(durableWrites, covered);
          callback(error);
        });
      },
    };
    const path = freshPath();
    const sink = new JsonlAuditSink(path, { fsync: "batch", fileSystem: watching });
    const countsAtResolve: number[] = [];
    const promises = records.map((record) => {
      const promise = sink.append([record]) as Promise<void>;
      const written = writes;
      return promise.then(() => {
        assert.ok(durableWrites >= written, `append ${written} resolved before an fsync covered it`);
        countsAtResolve.push(sink.fsyncCount);
      });
    });
    await Promise.all(promises);
    assert.equal(countsAtResolve.length, 10_000);
    assert.ok(countsAtResolve.every((count) => count >= 1));
    assert.ok(sink.fsyncCount < 100, `expected far fewer fsyncs than appends, got ${sink.fsyncCount}`);
    const read = sink.records;
    assert.deepEqual(read, records);
    for (const run of runs) {
      assert.deepEqual(
        read.filter((record) => record.run === run).map((record) => record.seq),
        Array.from({ length: 2500 }, (_, seq) => seq),
      );
    }
    assert.deepEqual(verifyAudit(read), []);
    await sink.close();
  });

  test("close waits for the pending fsync before closing the file", async () => {
    const log: string[] = [];
    const sink = new JsonlAuditSink(freshPath(), { fsync: "batch", fileSystem: loggingFileSystem(log) });
    let resolved = false;
    const append = (sink.append(trail.slice(0, 2)) as Promise<void>).then(() => {
      resolved = true;
      log.push("resolved");
    });
    await sink.close();
    assert.ok(resolved);
    assert.deepEqual(log.slice(-2), ["resolved", "close"]);
    await append;
  });
});
