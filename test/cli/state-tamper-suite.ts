// An operator with write access to a store edits runs' saved states and step rows with SQL, and
// leaves every audit record as it was: verify, verify --checkpoint, verifyCheckpoint, show, the inbox
// page and GET /api/runs/:id must each name what disagrees, and none may say "verified" of it.
import assert from "node:assert/strict";
import { join } from "node:path";
import { verifyCheckpoint } from "../../src/index.js";
import { fillRunKinds } from "../helpers/run-kinds.js";
import { addApprover, serve } from "../inbox/serve-helpers.js";
import { leash } from "./cli-helpers.js";
import { test } from "node:test";
import { openCliStore, storeKinds, type CliStore } from "./cli-stores.js";
import { makeKeys } from "./evidence-helpers.js";
import { queryOf } from "./evidence-store-tamper.js";

interface Problem {
  problem: string;
  run?: string | null;
  step?: number;
  field?: string;
}

/** Rewrites one JSON column of a row with `change`, as plain SQL. */
async function editJson(
  target: CliStore,
  table: "runs" | "steps",
  run: string,
  change: (json: Record<string, unknown>) => void,
  step?: number,
): Promise<void> {
  const query = queryOf(target);
  const column = table === "runs" ? "state" : "step";
  const where = table === "runs" ? "run_id = ?" : "run_id = ? AND step_index = ?";
  const keys = table === "runs" ? [run] : [run, step];
  const [row] = await query(`SELECT ${column} AS value FROM ${table} WHERE ${where}`, keys);
  const json = JSON.parse(String(row!.value)) as Record<string, unknown>;
  change(json);
  await query(`UPDATE ${table} SET ${column} = ? WHERE ${where}`, [JSON.stringify(json), ...keys]);
}

/** A nested object of a row's JSON, to edit in place. */
const at = (value: unknown): Record<string, unknown> => value as Record<string, unknown>;

/** Each field kind of the brief, on a run of its own: the SQL edit and the step and field it must be named by. */
const TAMPERS: { run: string; step?: number; field: string; edit: (target: CliStore) => Promise<void> }[] = [
  {
    run: "completed-payment",
    step: 0,
    field: "result",
    edit: (target) => editJson(target, "steps", "completed-payment", (step) => void (step.result = { paid: 10000 }), 0),
  },
  {
    run: "denied",
    step: 0,
    field: "arguments",
    edit: (target) =>
      editJson(target, "steps", "denied", (step) => void (at(step.decision).args = { amount: 10000 }), 0),
  },
  {
    run: "withheld",
    step: 0,
    field: "outcome",
    edit: (target) => editJson(target, "steps", "withheld", (step) => void (step.outcome = "executed"), 0),
  },
  {
    run: "paused",
    step: 0,
    field: "pending.arguments",
    edit: (target) => editJson(target, "runs", "paused", (state) => void (at(state.pending).args = { amount: 10000 })),
  },
  {
    run: "answered",
    step: 0,
    field: "answers",
    edit: (target) =>
      editJson(target, "runs", "answered", (state) => void (at((state.answers as unknown[])[0]).note = "pay double")),
  },
  {
    run: "model",
    field: "usage",
    edit: (target) => editJson(target, "runs", "model", (state) => void (at(state.usage).tokens = 1)),
  },
];

function placeOf(problem: Problem): string {
  return `${problem.run}|${problem.step ?? "-"}|${problem.field}`;
}

/**
 * Defines the test on one kind of store: each kind has a file of its own, so that each stays within
 * the runner's time for one file on a loaded machine.
 */
export function stateTamperTest(kind: "sqlite" | "postgres"): void {
  if (!storeKinds().includes(kind)) return;
  test(`a saved state or step row edited with SQL is named by verify, verify --checkpoint, verifyCheckpoint, show, the inbox and the API, and an untouched one passes (${kind})`, async (t) => {
    const target = openCliStore(t, kind);
    await fillRunKinds(target.store);
    const { keyFile, verifierKey } = makeKeys(target.cwd);
    const signed = leash(
      ["checkpoint", ...target.args, "--key-file", keyFile, "--origin", "example.com/leash", "--out", "cp.note"],
      { cwd: target.cwd },
    );
    assert.equal(signed.status, 0, signed.stderr);
    const note = join(target.cwd, "cp.note");
    const noteText = (await import("node:fs")).readFileSync(note, "utf8");
    const verifyJson = () => leash(["verify", ...target.args, "--json"], { cwd: target.cwd });
    const checkpointJson = () =>
      leash(["verify", ...target.args, "--checkpoint", note, "--key", verifierKey, "--json"], { cwd: target.cwd });

    // Untouched: every kind of run passes everywhere.
    const before = verifyJson();
    assert.equal(before.status, 0, before.stdout);
    const beforeCheckpoint = checkpointJson();
    assert.equal(beforeCheckpoint.status, 0, beforeCheckpoint.stdout);
    assert.deepEqual(await verifyCheckpoint(target.store as never, noteText, { key: verifierKey }), []);
    for (const run of ["completed-payment", "answered", "model"]) {
      const show = leash(["show", run, ...target.args], { cwd: target.cwd });
      assert.match(show.stdout, /verified: the chain holds, and the saved state shown above agrees with it/, run);
    }

    for (const tamper of TAMPERS) await tamper.edit(target);
    const expected = TAMPERS.map((tamper) => placeOf({ problem: "state_mismatch", ...tamper })).sort();

    const plain = verifyJson();
    assert.equal(plain.status, 1);
    const found = (JSON.parse(plain.stdout) as { problems: Problem[] }).problems;
    for (const problem of found) assert.equal(problem.problem, "state_mismatch", plain.stdout);
    assert.deepEqual([...new Set(found.map(placeOf))].sort(), expected, plain.stdout);
    const text = leash(["verify", ...target.args], { cwd: target.cwd });
    assert.match(text.stdout, /state_mismatch \(run completed-payment, step 0, field result\): /);

    const checked = checkpointJson();
    assert.equal(checked.status, 1);
    const fromCheckpoint = JSON.parse(checked.stdout) as Problem[];
    assert.deepEqual([...new Set(fromCheckpoint.map(placeOf))].sort(), expected, checked.stdout);
    const fromLibrary = await verifyCheckpoint(target.store as never, noteText, { key: verifierKey });
    assert.deepEqual([...new Set(fromLibrary.map(placeOf))].sort(), expected);

    const partOf = (tamper: (typeof TAMPERS)[number]) =>
      tamper.step === undefined ? tamper.field : `step ${tamper.step} ${tamper.field}`;
    for (const tamper of TAMPERS) {
      const show = leash(["show", tamper.run, ...target.args], { cwd: target.cwd });
      assert.doesNotMatch(show.stdout, /verified: the chain holds/, tamper.run);
      const part = partOf(tamper);
      assert.ok(
        show.stdout.includes(`chain verified, but the saved state disagrees with it: ${part}`),
        `${tamper.run}: ${show.stdout}`,
      );
      const shownJson = JSON.parse(
        leash(["show", tamper.run, ...target.args, "--json"], { cwd: target.cwd }).stdout,
      ) as {
        audit: { verified: boolean; state: { problems: Problem[] } };
      };
      assert.equal(shownJson.audit.verified, false);
      assert.deepEqual(shownJson.audit.state.problems.map(placeOf), [placeOf({ problem: "", ...tamper })]);
    }

    // The requests come after every spawned command: a keep-alive connection left idle while a slow
    // command runs could be closed by the server under the next request.
    const token = await addApprover(target, "noor");
    const served = await serve(t, target);
    const headers = { Authorization: `Bearer ${token}` };
    for (const tamper of TAMPERS) {
      const part = partOf(tamper);
      const url = (path: string) => new URL(path, served.url);
      const api = (await (await fetch(url(`/api/runs/${tamper.run}`), { headers })).json()) as {
        chain: { ok: boolean; problems: Problem[] };
        coverage: { verified: boolean; chainHolds: boolean; stateAgrees: boolean; text: string; disagreeing: string[] };
      };
      assert.equal(api.chain.ok, false);
      assert.deepEqual(
        [api.coverage.verified, api.coverage.chainHolds, api.coverage.stateAgrees],
        [false, true, false],
        tamper.run,
      );
      assert.deepEqual(api.coverage.disagreeing, [part]);
      assert.deepEqual(api.chain.problems.map(placeOf), [placeOf({ problem: "", ...tamper })]);
      const page = await (await fetch(url(`/runs/${tamper.run}`), { headers })).text();
      assert.doesNotMatch(page, /<span class="ok">verified/, tamper.run);
      assert.ok(page.includes(`chain verified, but the saved state disagrees with it: ${part}`), tamper.run);
    }
    // The runs left alone are still verified beside the edited ones.
    const untouched = (await (await fetch(new URL("/api/runs/failed", served.url), { headers })).json()) as {
      chain: { ok: boolean; problems: unknown[] };
      coverage: { verified: boolean };
    };
    assert.deepEqual([untouched.chain, untouched.coverage.verified], [{ ok: true, problems: [] }, true]);
    const page = await (await fetch(new URL("/runs/failed", served.url), { headers })).text();
    assert.match(page, /data-field="chain"><span class="ok">verified/);
  });
}
