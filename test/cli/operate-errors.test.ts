// What the command line, the inbox and the gateway share (src/operate/) refuses with LeashErrors whose
// codes are in the closed list, and the command line still ends with the status each code always had.
import { test } from "node:test";
import assert from "node:assert/strict";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { isErrorCode } from "../../src/errors/error-codes.js";
import { isLeashError, LeashError } from "../../src/index.js";
import type { ErrorCode } from "../../src/index.js";
import { reportOf } from "../../src/cli/report-error.js";
import { readGatewayConfig } from "../../src/gateway/gateway-config.js";
import { openApproverRegistry } from "../../src/inbox/approver-registry.js";
import { checkApproverName } from "../../src/inbox/approver-token.js";
import { inboxProblem } from "../../src/inbox/inbox-problem.js";
import { importAgentModule } from "../../src/operate/load-agent.js";
import { checkExistingSqlite } from "../../src/operate/open-store.js";
import { errorLine, leash, root, tempFolder } from "./cli-helpers.js";

/** The code of what `work` throws, once it is known to be a LeashError with a code of the closed list. */
async function codeOf(work: () => unknown): Promise<ErrorCode> {
  try {
    await work();
  } catch (error) {
    assert.ok(isLeashError(error), `expected a LeashError, got ${String(error)}`);
    assert.ok(isErrorCode(error.code), `${error.code} is not in the closed list`);
    return error.code;
  }
  assert.fail("expected a refusal");
}

test("the shared layer, the inbox and the gateway refuse with LeashErrors of the closed list", async (t) => {
  const folder = tempFolder();
  t.after(folder.remove);
  const text = join(folder.path, "notes.txt");
  writeFileSync(text, "not a database, not JSON");
  const sqliteOf = (db: string) => ({ kind: "sqlite" as const, db, label: db, args: `--db ${db}` });
  assert.equal(await codeOf(() => checkExistingSqlite(join(folder.path, "missing.db"))), "db_not_found");
  assert.equal(await codeOf(() => checkExistingSqlite(folder.path)), "db_not_found");
  assert.equal(await codeOf(() => checkExistingSqlite(text)), "not_a_database");
  assert.equal(await codeOf(() => openApproverRegistry(sqliteOf(join(folder.path, "none.db")))), "db_not_found");
  assert.equal(await codeOf(() => importAgentModule(join(folder.path, "agent.js"))), "agent_not_found");
  assert.equal(await codeOf(() => readGatewayConfig(text)), "invalid_config");
  assert.equal(await codeOf(() => readGatewayConfig(join(folder.path, "gone.json"))), "invalid_config");
  assert.equal(await codeOf(() => checkApproverName("has space")), "invalid_option");
});

test("an app module that throws a LeashError as it loads is agent_load_failed, its error kept as the cause", async (t) => {
  const folder = tempFolder();
  t.after(folder.remove);
  const module = join(folder.path, "agent.mjs");
  const leashModule = pathToFileURL(join(root, "dist", "index.js")).href;
  writeFileSync(
    module,
    `import { LeashError } from ${JSON.stringify(leashModule)};\nthrow new LeashError("db_not_found", "no key");\n`,
  );
  await assert.rejects(importAgentModule(module), (error: unknown) => {
    assert.ok(isLeashError(error, "agent_load_failed"), String(error));
    assert.match(error.message, /Could not load the agent module .*no key/);
    assert.ok(isLeashError(error.cause, "db_not_found"));
    return true;
  });
});

test("each code of the shared layer ends the command line with the status it always had", () => {
  const statuses: [ErrorCode, number][] = [
    ["db_not_found", 2],
    ["db_unreadable", 2],
    ["not_a_database", 2],
    ["pg_not_installed", 2],
    ["agent_not_found", 2],
    ["agent_load_failed", 2],
    ["invalid_agent_module", 2],
    ["tsx_not_installed", 2],
    ["invalid_config", 2],
    ["approver_exists", 2],
    ["approver_not_allowed", 2],
    ["run_not_found", 2],
    ["stale_state", 2],
    ["invalid_option", 2],
    ["store_failed", 3],
    ["store_busy", 3],
    ["audit_failed", 3],
    ["mcp_unavailable", 3],
    ["model_failed", 1],
  ];
  for (const [code, exitCode] of statuses) {
    const message = `it says\nwhat ${code} means`;
    assert.deepEqual(reportOf(new LeashError(code, message)), {
      code,
      message: `it says what ${code} means`,
      exitCode,
    });
  }
});

test("the inbox answers 503 for a store that failed or was busy, and 500 without the message for anything else", () => {
  for (const code of ["store_failed", "store_busy"] as const) {
    assert.deepEqual(inboxProblem(new LeashError(code, "the disk is gone")), {
      status: 503,
      code,
      message: "the disk is gone",
    });
  }
  const internal = inboxProblem(new LeashError("invalid_state", "at /srv/secret/app.db"));
  assert.equal(internal.status, 500);
  assert.doesNotMatch(internal.message, /secret/);
  assert.equal(inboxProblem(new Error("boom")).status, 500);
});

test("the bin reports the shared layer's refusals with their codes and statuses", (t) => {
  const folder = tempFolder();
  t.after(folder.remove);
  const notJson = join(folder.path, "gateway.json");
  writeFileSync(notJson, "{ not json");
  const cases: [string[], string, number][] = [
    [["runs", "--db", join(folder.path, "missing.db")], "db_not_found", 2],
    [["runs", "--db", notJson], "not_a_database", 2],
    [["approvers", "list", "--db", join(folder.path, "missing.db")], "db_not_found", 2],
    [["mcp", "serve", "--config", notJson, "--db", join(folder.path, "g.db")], "invalid_config", 2],
  ];
  for (const [args, code, status] of cases) {
    const result = leash(args, { cwd: folder.path });
    assert.equal(errorLine(result).code, code, result.stderr);
    assert.equal(result.status, status, result.stderr);
  }
});
