import type { Decision, ModelTurn } from "../decisions/decision.js";
import type { Json } from "../json/index.js";
import type { RunState, Step } from "../state/run-state.js";
import { untouchedSource } from "../state/lazy-copy.js";
import type { ModelAssistantMessage, ModelMessage, ModelToolMessage } from "./model-client.js";
import { copyJson } from "../json/index.js";
import { trustMessage } from "./trusted-messages.js";

/** The `tool` of a tool message that answers a hand-back: adapters name it with their hand-back tool. */
const HAND_BACK_TOOL = "hand_back";

/** What a tool message says of a call the run never took. */
const SKIPPED_CONTENT = "This call was not taken: the run did not reach it.";

/** The model answer being answered: its call ids in order, and those answered so far. */
interface OpenTurn {
  calls: { id: string; tool: string }[];
  answered: Set<string>;
}

/** The conversation of a run's settled steps, built in order; appending never changes what is there. */
class Conversation {
  readonly messages: ModelMessage[] = [];
  /** The task message last asked for, kept so that every request of the run starts with the same object. */
  task: ModelMessage | undefined;
  /** How many steps it holds. */
  steps = 0;
  open: OpenTurn | undefined;

  add(step: Step): void {
    const { decision } = step;
    const id = decision.callId;
    if (decision.turn !== undefined) this.#begin(decision.turn);
    else if (id === undefined || this.open === undefined || !this.#expects(id)) this.#begin(synthesizedTurn(step));
    this.#answer(step, decision.callId ?? syntheticId(step));
    this.steps += 1;
  }

  /** Answers every call of the open turn not answered yet as `skipped`, into `into`. */
  skipRest(into: ModelMessage[]): void {
    if (this.open === undefined) return;
    for (const call of this.open.calls) {
      if (this.open.answered.has(call.id)) continue;
      into.push(
        trustMessage({ callId: call.id, content: SKIPPED_CONTENT, outcome: "skipped", role: "tool", tool: call.tool }),
      );
    }
  }

  #expects(id: string): boolean {
    const open = this.open;
    return open !== undefined && !open.answered.has(id) && open.calls.some((call) => call.id === id);
  }

  #begin(turn: ModelTurn): void {
    this.skipRest(this.messages);
    // Every message is built with its keys in RFC 8785's order, so that its digest (see
    // messagesDigest) is written by the native JSON writer rather than key by key.
    const message = { calls: copyJson(turn.calls) } as ModelAssistantMessage;
    if (turn.handBack !== undefined) message.handBack = copyJson(turn.handBack);
    if (turn.providerState !== undefined) message.providerState = copyJson(turn.providerState);
    message.role = "assistant";
    if (turn.text !== undefined) message.text = turn.text;
    this.messages.push(trustMessage(message));
    const calls = turn.calls.map((call) => ({ id: call.id, tool: call.tool }));
    if (turn.handBack !== undefined) calls.push({ id: turn.handBack.id, tool: HAND_BACK_TOOL });
    this.open = { calls, answered: new Set() };
  }

  #answer(step: Step, id: string): void {
    const { decision } = step;
    const outcome = step.outcome ?? "skipped";
    const refusal = step.error?.message ?? outcome;
    if (decision.type === "finish" && decision.callId === undefined) {
      // A plain-text answer: a refusal is told as a user message after it.
      if (outcome === "answer_rejected") this.messages.push(trustMessage({ content: refusal, role: "user" }));
      return;
    }
    this.open?.answered.add(id);
    const told: Json = outcome === "executed" ? copyJson(step.result) : outcome === "finished" ? null : refusal;
    const content = step.edited === undefined ? told : editedContent(step.edited, outcome, told);
    const tool = decision.type === "act" ? decision.tool : HAND_BACK_TOOL;
    const message: ModelToolMessage = { callId: id, content, outcome, role: "tool", tool };
    this.messages.push(trustMessage(message));
  }
}

/** What the model is told of a call a person edited when approving it. */
const EDITED_NOTE =
  "A person changed the arguments of this call when approving it: it was taken with the arguments below, not the ones you proposed.";

/**
 * A tool message's content for a call a person edited: the model is told that the arguments were
 * changed, by whom and to what, beside the result (or the refusal) of the edited call. Every
 * adapter sends a tool message's content as it is, so each provider's model reads the same.
 */
function editedContent(edited: { args: Json; by: string }, outcome: string, told: Json): Json {
  const note = { args: copyJson(edited.args), by: edited.by, note: EDITED_NOTE };
  return outcome === "executed" ? { arguments_edited: note, result: told } : { arguments_edited: note, refused: told };
}

/** The id a step that no model asked for (a rule planner's, mixed in) is given in the conversation. */
function syntheticId(step: Step): string {
  return `step_${step.index}`;
}

/** The answer a step no model gave is shown as: a call, a hand-back, or text. */
function synthesizedTurn(step: Step): ModelTurn {
  const decision: Decision = step.decision;
  const id = decision.callId ?? syntheticId(step);
  if (decision.type === "act") {
    const { tool, args } = decision;
    return { calls: [decision.invalidJson === true ? { args, id, invalidJson: true, tool } : { args, id, tool }] };
  }
  if (decision.callId !== undefined) return { calls: [], handBack: { id, output: decision.answer } };
  const { answer } = decision;
  return { calls: [], text: typeof answer === "string" ? answer : JSON.stringify(answer) };
}

// The conversation so far of each run's live steps, kept as the run goes: the steps of a state are
// appended to and a step with an outcome never changes, so each request only adds what is new.
const built = new WeakMap<readonly Step[], Conversation>();

/**
 * The conversation a run's saved state gives a model: the task, then per model answer one
 * assistant message (its text, its calls with their ids, its hand-back, its opaque state), then one
 * tool message per call id, in order, before anything else. A tool message carries the result of an
 * `executed` step, else the step's error message (a withheld result's reason, never the result);
 * a call the run never took is answered `skipped`; a refused plain-text answer is followed by a user
 * message giving the reason. Steps no model asked for are shown as calls of their own.
 *
 * The messages are frozen and shared: a planner's untouched copy of the state reuses what was built
 * for the steps before, so a request costs what its new steps cost, not what the whole run does.
 */
export function conversationOf(state: RunState, task: string): ModelMessage[] {
  const linked = untouchedSource(state.steps);
  const steps = linked?.source ?? state.steps;
  const length = linked?.length ?? state.steps.length;
  let conversation = linked === undefined ? undefined : built.get(linked.source);
  if (conversation === undefined || conversation.steps > length) {
    conversation = new Conversation();
    if (linked !== undefined) built.set(linked.source, conversation);
  }
  // Only settled steps are kept; a step still open (it cannot be, when a planner is asked) is left out.
  while (conversation.steps < length) {
    const step = steps[conversation.steps];
    if (step === undefined || step === null || step.outcome === null) break;
    conversation.add(step);
  }
  if (conversation.task?.role !== "user" || conversation.task.content !== task)
    conversation.task = trustMessage({ content: task, role: "user" });
  const messages = [conversation.task, ...conversation.messages];
  conversation.skipRest(messages);
  return messages;
}

/** A call or a hand-back of the model's last answer that no step has taken yet. */
export type QueuedCall =
  | { type: "call"; id: string; tool: string; args: Json; invalidJson?: true; reason?: string }
  | { type: "handBack"; id: string; output: Json };

/**
 * The calls of the model's last answer not taken yet, in order, then its hand-back: read from the
 * saved state, so a resume in any process, after a pause or a crash, takes them in order. Empty when
 * every call was taken or the run went another way since (a step that is not one of the answer's).
 */
export function queuedCalls(state: RunState): QueuedCall[] {
  const linked = untouchedSource(state.steps);
  const steps = linked?.source ?? state.steps;
  const length = linked?.length ?? state.steps.length;
  const taken = new Set<string>();
  for (let index = length - 1; index >= 0; index--) {
    const step = steps[index] as Step;
    const id = step.decision.callId;
    if (id === undefined || step.outcome === null) return [];
    taken.add(id);
    const { turn } = step.decision;
    if (turn === undefined) continue;
    const ids = new Set(turn.calls.map((call) => call.id));
    if (turn.handBack !== undefined) ids.add(turn.handBack.id);
    for (const seen of taken) if (!ids.has(seen)) return [];
    const queue: QueuedCall[] = [];
    for (const call of turn.calls) {
      if (taken.has(call.id)) continue;
      const queued: QueuedCall = { type: "call", id: call.id, tool: call.tool, args: copyJson(call.args) };
      if (call.invalidJson === true) queued.invalidJson = true;
      if (turn.text !== undefined) queued.reason = turn.text;
      queue.push(queued);
    }
    if (turn.handBack !== undefined && !taken.has(turn.handBack.id))
      queue.push({ type: "handBack", id: turn.handBack.id, output: copyJson(turn.handBack.output) });
    return queue;
  }
  return [];
}
