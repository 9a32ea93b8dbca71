import type { Hono } from "hono";
import { LeashError } from "../errors/leash-error.js";
import { interruptedSteps } from "../operate/interrupted-steps.js";
import { answerFromInbox } from "./answer-from-inbox.js";
import type { InboxEnv, InboxParts } from "./inbox-context.js";
import { listQuery, listRuns } from "./list-runs.js";
import { runChain } from "./run-chain.js";

/**
 * The JSON routes for scripts (a Bearer token, or a cookie session with `X-CSRF-Token` on a POST):
 * the run list, a run with its chain status, and an answer. Errors are `{ error: { code, message } }`.
 */
export function addApiRoutes(app: Hono<InboxEnv>, parts: InboxParts): void {
  app.get("/api/runs", async (c) => {
    const query = listQuery(c.req.query("status"), c.req.query("page"), c.req.query("cursor"));
    const list = await listRuns(parts.store, query, c.get("approver"));
    // `next` is the cursor of the next page (`?cursor=`), `null` at the end; no count of pages.
    return c.json({ runs: list.runs, page: list.page, next: list.next ?? null });
  });

  app.get("/api/runs/:id", async (c) => {
    const runId = c.req.param("id");
    const state = await parts.store.load(runId);
    if (state === null) throw new LeashError("run_not_found", `There is no run ${runId} in this store.`);
    const chain = await runChain(parts.store, state);
    // `chain.ok` is true only for a run whose saved state agrees with its verified chain; `coverage`
    // says which part is covered when it is not.
    const coverage = {
      verified: chain.ok,
      chainHolds: chain.chainHolds,
      stateAgrees: chain.stateAgrees,
      text: chain.coverage,
      disagreeing: chain.disagreeing,
      unchecked: chain.unchecked,
    };
    return c.json({
      run: state.toJSON(),
      interruptedSteps: interruptedSteps(state).length,
      chain: { ok: chain.ok, problems: chain.problems },
      coverage,
    });
  });

  app.post("/api/runs/:id/answer", async (c) => {
    let body: unknown;
    try {
      body = await c.req.json();
    } catch {
      throw new LeashError("invalid_option", "Expected a JSON body { digest, decision, note?, raise_to?, args? }.");
    }
    if (typeof body !== "object" || body === null || Array.isArray(body))
      throw new LeashError("invalid_option", "Expected a JSON body { digest, decision, note?, raise_to?, args? }.");
    // Only these fields are read: an `approver` in the body is ignored, the signed-in name is recorded.
    const { digest, decision, note, raise_to: raiseTo, args } = body as Record<string, unknown>;
    const answered = await answerFromInbox(
      parts,
      c.req.param("id"),
      c.get("approver"),
      { digest, decision, note, raiseTo, args },
      c.get("address"),
      c.get("roles"),
    );
    // A cookie session's token is spent by an answer: the next one is in this header.
    const session = c.get("session");
    if (session !== undefined) c.header("X-CSRF-Token", parts.sessions.rotateCsrf(session));
    return c.json({
      run: answered.state.toJSON(),
      recorded: answered.recorded,
      ...(answered.notice === undefined ? {} : { notice: answered.notice }),
    });
  });
}
