// `leash grant`, `leash grants` and `leash revoke` through the real bin, on SQLite and (with
// DATABASE_URL) PostgreSQL: a grant given on the command line approves an agent's call within its
// bounds, with the command line's origin in its record; bad options change nothing.
import assert from "node:assert/strict";
import type { GrantInfo } from "../../src/index.js";
import { errorLine, leash } from "./cli-helpers.js";
import { eachStore } from "./cli-stores.js";
import { payAgent } from "./pay-agent.js";

eachStore(
  "a grant given with leash grant approves a call within its bounds, is listed and revoked",
  async (_t, target) => {
    const { cwd, args, store } = target;
    // A PostgreSQL store makes its tables at its first use; the commands open only a store that exists.
    assert.deepEqual(await store.grants!(), []);
    const given = leash(
      [
        "grant",
        "pay",
        "--as",
        "noor",
        "--uses",
        "1",
        "--for",
        "2h",
        "--args-schema",
        '{"properties":{"amount":{"maximum":50}}}',
        "--note",
        "month end",
        "--json",
        ...args,
      ],
      { cwd },
    );
    assert.equal(given.status, 0, given.stderr);
    const grant = JSON.parse(given.stdout) as GrantInfo;
    assert.equal(grant.tool, "pay");
    assert.equal(grant.maxUses, 1);
    assert.equal(grant.by, "noor");
    assert.deepEqual(grant.args, { properties: { amount: { maximum: 50 } } });
    const hours = (Date.parse(grant.expiresAt!) - Date.parse(grant.givenAt)) / 3_600_000;
    assert.ok(hours > 1.99 && hours <= 2, String(hours));
    const given2 = (await store.read(`grant:${grant.id}`))[0]!;
    assert.equal((given2.data as { origin?: { via?: string } }).origin?.via, "cli");

    const paid: number[] = [];
    const agent = payAgent(store, { onPay: (amount) => paid.push(amount) });
    assert.equal((await agent.run("pay the invoice", { runId: "by-grant" })).steps[0]?.outcome, "executed");
    assert.deepEqual(paid, [10]);

    const listed = leash(["grants", ...args], { cwd });
    assert.equal(listed.status, 0, listed.stderr);
    assert.match(listed.stdout, /No active standing grants/);
    const all = leash(["grants", "--all", ...args], { cwd });
    assert.match(all.stdout, new RegExp(`${grant.id}\\s+pay\\s+0/1 .* noor\\s+used up`));

    const second = leash(["grant", "pay", "--as", "ada", "--uses", "3", ...args], { cwd });
    assert.equal(second.status, 0, second.stderr);
    const id = second.stdout.split("\n")[0]!;
    assert.match(id, /^[0-9a-f]{32}$/);
    const active = JSON.parse(leash(["grants", "--json", ...args], { cwd }).stdout) as GrantInfo[];
    assert.deepEqual(
      active.map((item) => item.id),
      [id],
    );
    const revoked = leash(["revoke", id, "--as", "ada", "--note", "done", "--json", ...args], { cwd });
    assert.equal(revoked.status, 0, revoked.stderr);
    assert.equal((JSON.parse(revoked.stdout) as GrantInfo).revoked?.by, "ada");
    assert.deepEqual(JSON.parse(leash(["grants", "--json", ...args], { cwd }).stdout), []);
    const unknown = leash(["revoke", "nope", "--as", "ada", ...args], { cwd });
    assert.equal(unknown.status, 2);
    assert.equal(errorLine(unknown).code, "grant_not_found");
  },
);

eachStore("leash grant refuses bad options naming them and stores nothing", async (_t, target) => {
  const { cwd, args, store } = target;
  // A PostgreSQL store makes its tables at its first use; the commands open only a store that exists.
  assert.deepEqual(await store.grants!(), []);
  const cases: [string[], string][] = [
    [["--uses", "2", "--for", "3 weeks"], "--for"],
    [["--uses", "2", "--expires", "soon"], "expiresAt"],
    [["--uses", "2", "--args-schema", "{not json"], "--args-schema"],
    [["--uses", "2", "--args-schema", '{"type":7}'], "args"],
    [["--uses", "2", "--expires", "2030-01-01T00:00:00Z", "--for", "2h"], "--expires"],
  ];
  for (const [options, named] of cases) {
    const result = leash(["grant", "pay", "--as", "noor", ...options, ...args], { cwd });
    assert.equal(result.status, 2, `${options.join(" ")}: ${result.stderr}`);
    assert.ok(errorLine(result).message.includes(named), result.stderr);
  }
  assert.deepEqual(await store.grants!(), []);
});
