import type { AuditHead } from "../../audit/audit-record.js";
import type { Json } from "../../json/json-value.js";
import type { RunState } from "../../state/run-state.js";
import type { RunStatus } from "../../state/outcomes.js";
import { listSummaries } from "../../stores/list-summaries.js";
import { trace } from "../../trace/trace.js";
import { SqliteStore } from "../../stores/sqlite/index.js";
import { answerRun } from "../../operate/answer-run.js";
import { checkRunTrail } from "../../operate/check-trail.js";
import { CliError, EXIT_FAILURE } from "../cli-error.js";
import { costText } from "../../operate/cost-text.js";
import { storeLocation } from "../common-options.js";
import { formatTable } from "../print.js";
import { shortJson } from "../../operate/short-json.js";
import type { TrailProblem } from "../verify/trail-report.js";
import { verifyStore } from "../verify/verify-store.js";
import { modelAfterTheApproval, modelBeforeThePause } from "./demo-script.js";
import { narratedGuard, narratedModel } from "./narrate.js";
import type { Tell } from "./narrate.js";
import { createEstimator, estimateRepair, MIA, NOOR, repairT7, shopRules, workshopTools } from "./workshop.js";

/** What `leash demo --json` prints: the run, what it said and ran, and its trail. */
interface DemoResult {
  db: string;
  runId: string;
  status: RunStatus;
  answer: Json | null;
  /** The note on T-7 at the end: the approved one, never the one that blames the customer. */
  note: string;
  said: string[];
  ran: string[];
  /** What the run spent, exact: the narration shows the cost rounded. */
  usage: { tokens: number; cost: number };
  steps: { index: number; asked: string; outcome: string | null }[];
  trail: { records: number; problems: TrailProblem[]; auditHead: AuditHead | null; headIsLast: boolean | null };
  /** Whether anything sent to the model held where the key is kept: it must be false. */
  modelToldWhereTheKeyIs: boolean;
}

async function withStore<T>(db: string, body: (store: SqliteStore) => Promise<T>): Promise<T> {
  const store = new SqliteStore(db);
  try {
    return await body(store);
  } finally {
    await store.close();
  }
}

/** The demo did not go as the workshop says it must: a bug of leash, never of the user. */
function failed(message: string): CliError {
  return new CliError("demo_failed", message, EXIT_FAILURE);
}

function intro(db: string, tell: Tell): void {
  tell("leash demo: a bicycle workshop's Estimator agent, end to end.");
  tell(`It writes one SQLite file, ${db}: each run's saved state and its hash-chained audit trail.`);
  tell("");
  tell("The workshop");
  tell("   Repair T-7: the rear brake does not bite. The spare key is kept under the saddle.");
  tell("   The Estimator has two tools: WhereIsTheKey (a read) and NoteRepair (a write).");
  tell("   Its policy lets it write only with a person's approval, and only Noor may approve.");
  tell('   The guard "Shop rules": no note blames the customer, and where a key is kept');
  tell("   never reaches the model.");
  tell("   The model is scripted, so the demo goes the same way every time, offline.");
}

/**
 * The workshop end to end on a SQLite file, each step told as it happens: a run of EstimateRepair
 * where a guard stops a note and keeps an answer from the model, a write that pauses for a person,
 * the inbox, Noor's approval recorded as `leash approve` records it, the resume by the app, and the
 * verified trail. Each step opens the file anew, as separate processes would.
 */
export async function runDemo(db: string, tell: Tell): Promise<DemoResult> {
  const repair = repairT7();
  const repairs = new Map([[repair.id, repair]]);
  const tools = workshopTools(repairs, (name, answer) => tell(`   ${name} ran and answered: ${answer}`));
  const guards = [narratedGuard(shopRules, tell)];
  const before = modelBeforeThePause(repair);
  const after = modelAfterTheApproval();
  intro(db, tell);

  tell("");
  tell("1. Mia asks the Estimator to estimate T-7 (the EstimateRepair skill).");
  const paused: RunState = await withStore(db, async (store) => {
    const estimator = createEstimator({
      store,
      model: narratedModel(before, tell),
      tools,
      guards,
      approvalFor: ["write"],
    });
    return (await estimator.do(estimateRepair, repair, { principal: MIA })).state;
  });
  const request = paused.pending;
  if (paused.status !== "awaiting_approval" || request?.kind !== "call")
    throw failed(`The run should wait for approval, but it is ${paused.status}.`);
  const { runId } = paused;
  tell(`   ${request.tool} writes, and the policy asks a person to approve every write:`);
  tell("   the run pauses (awaiting_approval). Its state is saved in the file; no note is written yet.");

  tell("");
  tell(`2. The inbox: leash runs --status awaiting_approval --db ${db}`);
  const inbox = await withStore(db, (store) => listSummaries(store, { status: "awaiting_approval", limit: 50 }));
  const rows = inbox.runs.map((run) => [run.runId, run.status, run.skill ?? "-", `${run.steps} steps`]);
  for (const line of formatTable(rows)) tell(`   ${line}`);
  tell(`   It asks to run ${request.tool} ${shortJson(request.args, 60)} (effect: ${request.effect}).`);
  tell(`   Request digest ${request.digest.slice(0, 16)}…: an answer is bound to this exact call`);
  tell("   after this exact history, and authorises nothing else.");

  tell("");
  tell(`3. Noor approves from the command line: leash approve ${runId} --as ${NOOR} --db ${db}`);
  await withStore(db, (store) =>
    answerRun(store, runId, { granted: true, approver: NOOR, note: "Worn pads; go ahead." }, storeLocation({ db })),
  );
  tell(`   The approval is recorded in the file, as ${NOOR}. No tool ran: approve only records the answer.`);

  tell("");
  tell("4. The app resumes the run (what `leash resume RUN --agent PATH` does with your app's agent).");
  tell("   Every gate runs again, and the approval matches the digest recomputed now.");
  const done: RunState = await withStore(db, async (store) => {
    const estimator = createEstimator({
      store,
      model: narratedModel(after, tell),
      tools,
      guards,
      approvalFor: ["write"],
    });
    return estimator.resume(runId);
  });
  if (done.status !== "completed") throw failed(`The resumed run should complete, but it is ${done.status}.`);
  tell(`   The skill's check accepts the estimate: the run is ${done.status}.`);
  tell(`   The note on T-7 reads ${JSON.stringify(repair.note)}; the note that blamed the customer was never written.`);

  tell("");
  tell(`5. The audit trail: leash verify ${db}`);
  const { report, records } = await withStore(db, async (store) => ({
    report: await verifyStore(store, db, undefined, undefined),
    records: await store.read(runId),
  }));
  const check = checkRunTrail(done, records);
  const problems = [...report.problems];
  tell(
    `   ${check.records} records for this run; verifyAudit finds ${problems.length === 0 ? "no problem" : `${problems.length} problems`} in the file.`,
  );
  if (check.headIsLast === true && done.auditHead !== null) {
    tell(`   The state's auditHead (seq ${done.auditHead.seq}) is the trail's last record: state and trail agree.`);
  }
  const told = JSON.stringify([before.requests, after.requests]).includes(repair.keyIsKept);
  tell(`   The model was ${told ? "TOLD" : "never told"} where the key is kept.`);
  if (problems.length > 0 || check.headIsLast !== true || told)
    throw failed("The trail does not verify, or the model was told where the key is.");

  tell("");
  tell("What the guards said (leash show lists these):");
  for (const line of trace(done).said) tell(`   ${line}`);
  tell(`Tools that ran: ${trace(done).ran.join(", ")}.`);
  tell(`Usage: ${done.usage.tokens} tokens, cost ${costText(done.usage.cost)} (the Everyday model's price).`);
  tell("");
  tell("Try next (`npx leash` in a checkout of leash or a project that depends on it):");
  tell(`   npx leash runs --db ${db}`);
  tell(`   npx leash show ${runId} --db ${db}`);
  tell(`   npx leash verify ${db}`);
  tell(`Delete ${db} when you are done.`);

  return {
    db,
    runId,
    status: done.status,
    answer: done.answer ?? null,
    note: repair.note,
    said: trace(done).said,
    ran: trace(done).ran,
    usage: done.usage,
    steps: done.steps.map((step) => ({
      index: step.index,
      asked: step.decision.type === "act" ? step.decision.tool : "finish",
      outcome: step.outcome,
    })),
    trail: { records: check.records, problems, auditHead: done.auditHead, headIsLast: check.headIsLast },
    modelToldWhereTheKeyIs: told,
  };
}
