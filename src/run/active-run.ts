import type { AuditHead, AuditRecord } from "../audit/audit-record.js";
import { makeRecord } from "../audit/audit-record.js";
import type { AuditSink } from "../audit/audit-sink.js";
import { isLeashError, LeashError, messageOf } from "../errors/index.js";
import type { RunState } from "../state/run-state.js";
import type { AgentCore, CompiledSkill } from "./agent-core.js";
import type { PlannerContext } from "../models/planner.js";
import { makeCallModel } from "./call-model.js";
import type { ForcedEnd, LiveRun } from "./live-run.js";
import type { Toolset } from "../tools/toolset.js";
import type { GuardedWork } from "../guards/guard.js";
import type { GrantUse } from "../stores/grant-info.js";
import type { BudgetCharge, BudgetSpent } from "../stores/budget-info.js";
import { isEmptyCharge } from "../stores/budget-info.js";

/** Writes records to a separate sink; a failure that is not a {@link LeashError} becomes `audit_failed`. */
async function appendRecords(audit: AuditSink, records: AuditRecord[]): Promise<void> {
  try {
    await audit.append(records);
  } catch (error) {
    if (isLeashError(error)) throw error;
    throw new LeashError("audit_failed", `Could not write to the audit sink: ${messageOf(error)}`, {
      details: { runId: records[0]?.run ?? null },
      cause: error,
    });
  }
}

/** How many times a claim's records are written on a trail that another writer moved on. */
const CLAIM_APPEND_ATTEMPTS = 5;

/**
 * Whether this process may still write for the run: `open` while it drives it; `ending` once its
 * `run_ended` is recorded (only the checkpoint that writes it is left); `sealed` once that is
 * durable, or once the run was let go (a pause saved, a lease lost). A sealed run writes nothing.
 */
export type RunSeal = "open" | "ending" | "sealed";
/**
 * One run being driven in this process: the live state, the audit records not yet written, and the
 * durable checkpoint that writes both.
 */
export class ActiveRun implements LiveRun {
  readonly core: AgentCore;
  readonly state: RunState;
  readonly tools: Toolset;
  readonly skill: CompiledSkill | undefined;
  readonly controller = new AbortController();
  forcedEnd: ForcedEnd | undefined;
  /** Whether the last checkpoint failed (a store down, a race lost): set for the driver's containment. */
  checkpointFailed = false;
  /** Model calls of this run not settled yet. */
  readonly modelCalls = new Set<Promise<unknown>>();
  /** The planner's door to a model for this run, made once. */
  readonly callModel: PlannerContext["callModel"] = makeCallModel(this);
  #unwritten: AuditRecord[] = [];
  #head: AuditHead | null;
  /** The store revision this process last wrote or loaded. */
  #savedRevision: number;
  #segmentStart: number;
  #stored: boolean;
  #seal: RunSeal = "open";
  /** Why the run was let go before its end, when it was (a lease lost): what a late write is told. */
  #letGo: LeashError | undefined;
  /** What stops listening for a hold on the run (a lease) once it is let go. */
  readonly #onLetGo: (() => void)[] = [];
  /**
   * What the run spent since its shared budget was last charged (tool calls' declared cost and
   * count, a decision's own usage; a withdrawn call's charge given back, negative): taken from the
   * budget with the next checkpoint, so the budget and the run's own counts move together (a crash
   * before it loses it with the state that counted it). A model call's usage is taken at once
   * ({@link takeUncharged}).
   */
  #uncharged: BudgetSpent = { cost: 0, tokens: 0, toolCalls: 0 };

  constructor(
    core: AgentCore,
    state: RunState,
    options: { head: AuditHead | null; stored: boolean; skill: CompiledSkill | undefined },
  ) {
    this.core = core;
    this.state = state;
    this.skill = options.skill;
    this.tools = options.skill?.tools ?? core.tools;
    this.#head = options.head;
    this.#savedRevision = state.revision;
    this.#stored = options.stored;
    this.#segmentStart = core.clock().getTime();
  }

  /** The time now, as ISO 8601, from the injected clock. */
  now(): string {
    return this.#iso(this.core.clock());
  }

  // The last time written out: a run records several times within one millisecond, and the same
  // instant always gives the same text.
  #isoMs = Number.NaN;
  #isoText = "";

  #iso(date: Date): string {
    const ms = date.getTime();
    if (ms !== this.#isoMs) {
      this.#isoText = date.toISOString();
      this.#isoMs = ms;
    }
    return this.#isoText;
  }

  /** Running time of the run so far, counting this process's segment. */
  elapsedMs(): number {
    return this.state.elapsedMs + Math.max(0, this.core.clock().getTime() - this.#segmentStart);
  }

  /**
   * Takes time that is not the run's own (a person deciding in an async approver) out of its running
   * time, so `maxDurationMs` counts running time only.
   */
  excludeFromElapsed(ms: number): void {
    if (ms > 0) this.#segmentStart += ms;
  }

  /** What guards are told about this run. */
  work(): GuardedWork {
    const work: GuardedWork = { agent: this.core.name, task: this.state.runId };
    if (this.state.skill !== undefined) work.skill = this.state.skill;
    if (this.state.principal !== undefined) work.person = this.state.principal;
    return work;
  }

  /** Whether records were made since the last checkpoint (a denied step's, say) and await one. */
  get hasUnwritten(): boolean {
    return this.#unwritten.length > 0;
  }

  /** The records made since the last checkpoint, not written yet (those a failed checkpoint put back). */
  unwrittenRecords(): readonly AuditRecord[] {
    return this.#unwritten.slice();
  }

  /** Whether this process may still change the run (see {@link RunSeal}). */
  get isOpen(): boolean {
    return this.#seal === "open";
  }

  /**
   * Refuses work that comes in after the run ended or was let go (a model call a planner left
   * running, a guard's late answer): the late caller gets `code` (`run_ended` by default; a model
   * call gets `limit_reached`, as every model call the run cannot make does), or the reason the run
   * was let go, and neither the state nor the trail changes.
   */
  assertOpen(code: "run_ended" | "limit_reached" = "run_ended"): void {
    if (this.#seal === "open") return;
    const { runId } = this.state;
    throw (
      this.#letGo ??
      new LeashError(code, `Run \`${runId}\` has ended or paused here; nothing more is done or written for it.`, {
        details: { runId },
      })
    );
  }

  /**
   * Lets the run go: nothing more is recorded or saved by this process, and the run's signal is
   * aborted so tools that honour it stop. Used once a pause is saved (the next driver is a resume),
   * and when another process holds the run now (a lease lost): the run stays as last saved, for that
   * process to go on with, as after a crash.
   */
  letGo(reason?: LeashError): void {
    if (this.#seal === "sealed") return;
    this.#seal = "sealed";
    this.#letGo = reason;
    this.#unwritten = [];
    for (const release of this.#onLetGo.splice(0)) release();
    if (!this.controller.signal.aborted) {
      this.controller.abort(reason ?? new LeashError("run_ended", `Run \`${this.state.runId}\` has ended.`));
    }
  }

  /** Calls `release` once the run is let go (ended, paused or lost): listeners on a hold stop there. */
  whenLetGo(release: () => void): void {
    if (this.#seal === "sealed") release();
    else this.#onLetGo.push(release);
  }

  /** Adds what the run spent to its budget's next charge; nothing when the run has no budget. */
  chargeBudget(charge: Partial<BudgetSpent>): void {
    if (this.state.budget === undefined) return;
    const uncharged = this.#uncharged;
    this.#uncharged = {
      cost: uncharged.cost + (charge.cost ?? 0),
      tokens: uncharged.tokens + (charge.tokens ?? 0),
      toolCalls: uncharged.toolCalls + (charge.toolCalls ?? 0),
    };
  }

  /** What the run spent since its budget was last charged. */
  unchargedBudget(): BudgetSpent {
    return { ...this.#uncharged };
  }

  /**
   * Takes what the run spent and has not charged yet from its shared budget now, in a transaction of
   * its own (`check: "none"`): a model call's usage, known only after the call, reaches the budget as
   * soon as the call returns, so the other runs sharing it see it before their next model call (they
   * pass it by at most the calls in flight), and a crash before the run's next save cannot lose it
   * (the budget may then count a call whose record the run never saved: over, never under). A store
   * that fails here leaves the amount to the next checkpoint, which fails as loudly if it is down.
   */
  async takeUncharged(): Promise<void> {
    const key = this.state.budget;
    const { store } = this.core;
    if (key === undefined || store?.chargeBudget === undefined || isEmptyCharge(this.#uncharged)) return;
    const charge: BudgetCharge = { key, ...this.#uncharged, check: "none" };
    try {
      await store.chargeBudget(charge);
    } catch {
      return;
    }
    this.#charged(charge);
  }

  /**
   * Takes a tool call's charge from the run's shared budget in a transaction of its own, for a run
   * whose trail is a separate sink (with the store as sink, the charge rides on the intent's save):
   * a budget with no room for it refuses it (`limit_reached`, see `budgetRefusalOf`) and takes nothing.
   */
  async takeToolCharge(cost: number): Promise<void> {
    const key = this.state.budget;
    const { store } = this.core;
    if (key === undefined || store?.chargeBudget === undefined) return;
    await store.chargeBudget({ key, cost, tokens: 0, toolCalls: 1, check: "tool" });
  }

  /** The charge a checkpoint takes from the budget: what is uncharged, or nothing to take. */
  #budgetCharge(check: "tool" | "none"): BudgetCharge | undefined {
    const key = this.state.budget;
    if (key === undefined || (check === "none" && isEmptyCharge(this.#uncharged))) return undefined;
    return { key, ...this.#uncharged, check };
  }

  /** Takes a charge the store took off what is uncharged (more may have come in while it was taken). */
  #charged(charge: BudgetCharge | undefined): void {
    if (charge === undefined) return;
    const uncharged = this.#uncharged;
    this.#uncharged = {
      cost: uncharged.cost - charge.cost,
      tokens: uncharged.tokens - charge.tokens,
      toolCalls: uncharged.toolCalls - charge.toolCalls,
    };
  }

  /** Adds a record to the run's chain; it is written at the next checkpoint. Refused once the run ended. */
  record(event: string, data: unknown): AuditRecord {
    this.assertOpen();
    const record = makeRecord(this.state.runId, this.#head, event, data, this.now());
    this.#unwritten.push(record);
    this.#head = { seq: record.seq, digest: record.digest };
    this.state.auditHead = this.#head;
    // After the end's own record, only the checkpoint that writes it is left.
    if (event === "run_ended") this.#seal = "ending";
    return record;
  }

  /**
   * Claims a stored run for this process before anything is written to the trail: a compare-and-set
   * save that a concurrent resumer loses, so the loser writes nothing at all. With a store that is
   * also the sink the claim carries the resume's first records (one transaction); with a separate
   * sink the claimed state still points at the trail's current head, so a crash right after the claim
   * leaves a state that the trail still holds. `settle` changes the state once it is claimed (it
   * takes out the recorded answers the records audit): with a separate sink the change is saved only
   * after the records are written, so a crash leaves each answer either kept in the state or in
   * the trail.
   */
  async claim(records: [event: string, data: unknown][], settle?: () => void): Promise<void> {
    this.assertOpen();
    const { store, storeIsSink } = this.core;
    if (store !== undefined && !storeIsSink && this.#stored) {
      const expectedRevision = this.#savedRevision;
      this.state.revision = expectedRevision + 1;
      this.state.updatedAt = this.now();
      await store.save(this.state, { expectedRevision });
      this.#savedRevision = this.state.revision;
      settle?.();
      for (const [event, data] of records) this.record(event, data);
      await this.#appendClaimed();
      await this.checkpoint();
      return;
    }
    settle?.();
    for (const [event, data] of records) this.record(event, data);
    await this.checkpoint();
  }

  /**
   * Writes a claim's records to a separate sink. The claim's save owns the run, but a process still
   * driving it may have appended its records between that save and this append (it then loses at
   * its own save and writes nothing more): the sink refuses this append with `stale_state`. That is
   * the trail ahead of the state, as a resume tolerates: the records are rebuilt on the trail's
   * current head (same events and data) and written again, a bounded number of times.
   */
  async #appendClaimed(): Promise<void> {
    const { audit } = this.core;
    for (let attempt = 1; this.#unwritten.length > 0; attempt += 1) {
      const records = this.#unwritten;
      try {
        await appendRecords(audit, records);
        this.#unwritten = [];
        this.#publish(records);
        return;
      } catch (error) {
        this.checkpointFailed = true;
        if (attempt >= CLAIM_APPEND_ATTEMPTS || !isLeashError(error, "stale_state")) throw error;
        const last = (await audit.read(this.state.runId)).at(-1);
        // Only a trail that moved on past where these records start is another writer's doing.
        if (last === undefined || last.seq < records[0]!.seq) throw error;
        let head: AuditHead = { seq: last.seq, digest: last.digest };
        this.#unwritten = records.map((record) => {
          const rebuilt = makeRecord(this.state.runId, head, record.event, record.data, record.at);
          head = { seq: rebuilt.seq, digest: rebuilt.digest };
          return rebuilt;
        });
        this.#head = head;
        this.state.auditHead = head;
      }
    }
  }

  /**
   * Makes the state and every record so far durable. With a store that is also the sink, the save
   * carries the records and both commit in one transaction; with a separate sink the records are
   * written first, so a crash can leave the trail ahead of the state but never behind it.
   *
   * What the run spent since the last checkpoint is taken from its shared budget with it: in the
   * same transaction as the save when the store is the sink (`budgetCheck: "tool"` for the save of a
   * call's intent, which the store refuses whole when the budget has no room for the call), else in
   * a transaction of its own just before the records are written, so the budget is never charged
   * less than the trail says was spent.
   */
  async checkpoint(options: { grantUses?: readonly GrantUse[]; budgetCheck?: "tool" } = {}): Promise<void> {
    if (this.#seal === "sealed") this.assertOpen();
    const now = this.core.clock();
    this.state.elapsedMs += Math.max(0, now.getTime() - this.#segmentStart);
    this.#segmentStart = now.getTime();
    this.state.updatedAt = this.#iso(now);
    this.#refuseNumbersThatAreNotJson();
    const records = this.#unwritten;
    this.#unwritten = [];
    const { store, audit, storeIsSink } = this.core;
    const expectedRevision = this.#savedRevision;
    this.state.revision = expectedRevision + 1;
    // A failed write leaves what it did not write to be written again, so a run that ends after a
    // failure still carries an unbroken chain.
    let written = false;
    try {
      if (store !== undefined && storeIsSink) {
        const { grantUses } = options;
        if (this.#stored) {
          const budgetCharge = this.#budgetCharge(options.budgetCheck ?? "none");
          await store.save(this.state, {
            expectedRevision,
            records,
            ...(grantUses === undefined ? {} : { grantUses }),
            ...(budgetCharge === undefined ? {} : { budgetCharge }),
          });
          this.#charged(budgetCharge);
        } else await store.create(this.state, { records });
      } else {
        const budgetCharge = this.#stored ? this.#budgetCharge("none") : undefined;
        if (budgetCharge !== undefined && store?.chargeBudget !== undefined) {
          await store.chargeBudget(budgetCharge);
          this.#charged(budgetCharge);
        }
        if (records.length > 0) await appendRecords(audit, records);
        written = true;
        if (store !== undefined) {
          // Standing grants' uses, with a separate sink, commit with the state that holds the step
          // they approve, before any record of them is made (the next checkpoint writes those).
          const { grantUses } = options;
          if (this.#stored)
            await store.save(
              this.state,
              grantUses === undefined ? { expectedRevision } : { expectedRevision, grantUses },
            );
          else await store.create(this.state);
        }
      }
    } catch (error) {
      this.state.revision = expectedRevision;
      if (!written) this.#unwritten = records.concat(this.#unwritten);
      else this.#publish(records);
      this.checkpointFailed = true;
      throw error;
    }
    this.#publish(records);
    this.checkpointFailed = false;
    this.#stored = true;
    this.#savedRevision = this.state.revision;
    // The end is durable: the run is sealed, and work still in flight for it is told to stop.
    if (this.#seal === "ending") this.letGo();
  }

  /**
   * Takes back the last record made, not written (a standing grant's use its store refused with the
   * checkpoint that carried it): the chain's head goes back to the record before it, as if it had
   * never been made.
   */
  takeBack(record: AuditRecord): void {
    const at = this.#unwritten.lastIndexOf(record);
    if (at !== this.#unwritten.length - 1 || at < 0)
      throw new LeashError("internal_error", "Only the last record made and not written can be taken back.");
    this.#unwritten.pop();
    this.#head = record.prev === null ? null : { seq: record.seq - 1, digest: record.prev };
    this.state.auditHead = this.#head;
    this.checkpointFailed = false;
  }

  /** Hands records that are in the trail now to the live feed (`agent.on("record")`). */
  #publish(records: readonly AuditRecord[]): void {
    const { feed } = this.core;
    if (records.length > 0 && feed.wantsRecords()) feed.records(records);
  }

  /**
   * A store writes the state with JSON.stringify, which turns Infinity and NaN into null: a state so
   * saved could never load again. The inputs are bounded, so this should never fire; if it does, the
   * numbers are capped and the checkpoint throws, so the driver ends the run `failed` instead.
   */
  #refuseNumbersThatAreNotJson(): void {
    const { usage } = this.state;
    const bad = [usage.tokens, usage.cost, this.state.elapsedMs].some((number) => !Number.isFinite(number));
    if (!bad) return;
    const cap = (number: number): number => (Number.isFinite(number) ? number : Number.MAX_SAFE_INTEGER);
    usage.tokens = cap(usage.tokens);
    usage.cost = cap(usage.cost);
    this.state.elapsedMs = cap(this.state.elapsedMs);
    throw new LeashError("internal_error", "The run's usage or elapsed time grew past a finite number.");
  }
}
