import { test } from "node:test";
import assert from "node:assert/strict";
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import Database from "better-sqlite3";
import { errorLine, leash, root, tempFolder } from "./cli-helpers.js";

test("an unknown command or option is one line on stderr and exit 2", (t) => {
  const folder = tempFolder();
  t.after(folder.remove);
  for (const args of [
    ["frobnicate"],
    ["runs", "--bogus"],
    ["runs", "--status", "sleeping"],
    ["show"],
    ["approve", "r-1"],
    ["verify", "a", "b"],
  ]) {
    const result = leash(args, { cwd: folder.path });
    assert.equal(result.status, 2, `leash ${args.join(" ")}`);
    assert.equal(errorLine(result).code, "usage", `leash ${args.join(" ")}`);
    assert.equal(result.stdout, "");
  }
  assert.match(
    errorLine(leash(["demoo"], { cwd: folder.path })).message,
    /unknown command 'demoo'.*Did you mean demo\?/,
  );
});

test("commands that read a store refuse a missing file, and create none", (t) => {
  const folder = tempFolder();
  t.after(folder.remove);
  for (const args of [
    ["runs", "--db", "missing.db"],
    ["show", "r-1", "--db", "missing.db"],
    ["approve", "r-1", "--as", "noor", "--db", "missing.db"],
  ]) {
    const result = leash(args, { cwd: folder.path });
    assert.equal(result.status, 2);
    const error = errorLine(result);
    assert.equal(error.code, "db_not_found");
    assert.match(error.message, /missing\.db/);
  }
  assert.ok(!existsSync(join(folder.path, "missing.db")));
  const defaulted = leash(["runs"], { cwd: folder.path });
  assert.match(errorLine(defaulted).message, /\.\/leash\.db/, "the default database is ./leash.db");
  assert.ok(!existsSync(join(folder.path, "leash.db")));

  writeFileSync(join(folder.path, "notes.db"), "not a database\n");
  const notDb = leash(["runs", "--db", "notes.db"], { cwd: folder.path });
  assert.equal(errorLine(notDb).code, "not_a_database");
  assert.equal(readFileSync(join(folder.path, "notes.db"), "utf8"), "not a database\n");
});

test("a SQLite database of another program is refused and left without leash tables", (t) => {
  const folder = tempFolder();
  t.after(folder.remove);
  const path = join(folder.path, "app.db");
  const database = new Database(path);
  database.exec("CREATE TABLE orders (id INTEGER PRIMARY KEY)");
  database.close();
  const result = leash(["runs", "--db", "app.db"], { cwd: folder.path });
  assert.equal(result.status, 2);
  assert.equal(errorLine(result).code, "not_a_database");
  const after = new Database(path, { readonly: true });
  const tables = after.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").all() as { name: string }[];
  after.close();
  assert.deepEqual(
    tables.map((table) => table.name),
    ["orders"],
  );
});

test("no stack trace unless LEASH_DEBUG=1", (t) => {
  const folder = tempFolder();
  t.after(folder.remove);
  const plain = leash(["runs", "--db", "missing.db"], { cwd: folder.path });
  assert.doesNotMatch(plain.stderr, /\n\s+at /);
  const debug = leash(["runs", "--db", "missing.db"], { cwd: folder.path, env: { LEASH_DEBUG: "1" } });
  assert.match(debug.stderr, /\n\s+at /);
  assert.match(debug.stderr, /leash: .* \(db_not_found\)\n$/);
});

test("--version prints the package's version and --help lists the commands", (t) => {
  const folder = tempFolder();
  t.after(folder.remove);
  const { version } = JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as { version: string };
  const printed = leash(["--version"], { cwd: folder.path });
  assert.equal(printed.status, 0);
  assert.equal(printed.stdout.trim(), version);
  const help = leash(["--help"], { cwd: folder.path });
  assert.equal(help.status, 0);
  for (const command of ["demo", "runs", "show", "approve", "deny", "resume", "verify", "bench"])
    assert.match(help.stdout, new RegExp(`\\n  ${command}\\b`));
});
