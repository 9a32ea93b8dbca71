// Real processes racing on one PostgreSQL schema: eight resume the same approved run at the same
// moment; exactly one runs the action, once.
import { describe, test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Approval, verifyAudit } from "../../src/index.js";
import type { RunState } from "../../src/index.js";
import { PostgresStore } from "../../src/stores/postgres/index.js";
import { readEffects, storeAgent } from "../fixtures/stores/store-agent.js";
import { dropSchema, freshSchemaName, withPostgres } from "./database.js";
import { startFixture } from "../stores/fixture-process.js";

const RACERS = 8;

interface Report {
  resumed: boolean;
  status?: string;
  outcome?: string | null;
  name?: string;
  code?: string;
  message?: string;
}

withPostgres("PostgresStore with concurrent processes", (url) => {
  describe("PostgresStore with concurrent processes", () => {
    test("eight processes resume one approved run at once: one runs the action once, the others get a StateError and change nothing", async () => {
      const directory = mkdtempSync(join(tmpdir(), "leash-pg-race-"));
      const effects = join(directory, "effects.jsonl");
      const schema = freshSchemaName();
      try {
        const setup = new PostgresStore({ connectionString: url, schema });
        const paused = await storeAgent({ store: setup, tool: "write", effectsFile: effects }).run("write the note", {
          runId: "raced",
        });
        assert.equal(paused.status, "awaiting_approval");
        await setup.answer("raced", Approval.grant(paused.pending!.digest, "allen"));
        const before = await setup.load("raced");
        await setup.close();

        const racers = Array.from({ length: RACERS }, () =>
          startFixture("postgres/resume-child.ts", [url, schema, "raced", effects]),
        );
        await Promise.all(racers.map((racer) => racer.waitFor((line) => line === "ready", { timeoutMs: 60_000 })));
        // The start signal goes to every racer in the same tick; each is already waiting on its stdin.
        for (const racer of racers) racer.child.stdin.write("go\n");
        const reports = await Promise.all(
          racers.map(async (racer) => {
            const line = await racer.waitFor((printed) => printed.startsWith("{"), { timeoutMs: 60_000 });
            assert.equal(await racer.exited, 0, racer.stderr());
            return JSON.parse(line) as Report;
          }),
        );

        const winners = reports.filter((report) => report.resumed);
        const losers = reports.filter((report) => !report.resumed);
        assert.equal(winners.length, 1, JSON.stringify(reports));
        assert.deepEqual(winners[0], { resumed: true, status: "completed", outcome: "executed" });
        for (const loser of losers) {
          assert.equal(loser.name, "StateError", JSON.stringify(loser));
          assert.ok(loser.code === "stale_state" || loser.code === "run_ended", JSON.stringify(loser));
        }
        assert.equal(readEffects(effects).length, 1, "the approved write ran once");

        const store = new PostgresStore({ connectionString: url, schema });
        try {
          const final = (await store.load("raced")) as RunState;
          assert.equal(final.status, "completed");
          const trail = await store.read("raced");
          assert.deepEqual(verifyAudit(trail), []);
          assert.deepEqual(final.auditHead, { seq: trail.at(-1)?.seq, digest: trail.at(-1)?.digest });
          // The winner's claim follows the paused head, and there is one call. A racer that loads the run
          // only after that claim finds it `running`, which a resume without a lease treats as a crashed
          // run to recover: on a loaded machine it may take the run over once the call has ended (the
          // winner then stops with stale_state). That is a recovery, never a second claim of the
          // approval, and the call still ran once.
          const resumes = trail.filter((record) => record.event === "run_resumed");
          assert.ok(resumes.length >= 1);
          for (const later of resumes.slice(1)) assert.equal((later.data as { reason?: string }).reason, "recovery");
          assert.equal(trail.filter((record) => record.event === "tool_started").length, 1);
          assert.equal(trail.find((record) => record.event === "run_resumed")?.seq, (before?.auditHead?.seq ?? -2) + 1);
        } finally {
          await store.close();
        }
      } finally {
        rmSync(directory, { recursive: true, force: true });
        await dropSchema(url, schema);
      }
    });
  });
});
