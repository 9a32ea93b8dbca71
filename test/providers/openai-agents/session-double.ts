// A stand-in for a gate's session with the members `gateTools` uses and the rules of API.md 18 that
// the adapter depends on: a write call needs a person's grant recorded in leash, the same call id
// never runs a tool twice, and a refusal names its outcome. The real Gate's own tests hold it to more.
import type { Json } from "../../../src/json/index.js";
import type { Tool } from "../../../src/tools/tool.js";
import type { GateCallAnswerLike } from "../../../src/providers/openai-agents/index.js";

export class SessionDouble {
  readonly tools: Tool[];
  readonly granted = new Set<string>();
  readonly asked: string[] = [];
  readonly charges: { tokens: number; cost: number; model?: string }[] = [];
  readonly runs: { callId: string; tool: string; args: Json }[] = [];
  private readonly answers = new Map<string, GateCallAnswerLike>();

  constructor(
    tools: Tool[],
    private readonly allowEffects: string[] = ["read", "write"],
  ) {
    this.tools = tools;
  }

  private refusal(tool: Tool | undefined, name: string, args: Json): GateCallAnswerLike | undefined {
    if (tool === undefined) return { status: "refused", outcome: "unknown_tool", message: `No tool \`${name}\`.` };
    if (!tool.validator.validate(args).valid) {
      return {
        status: "refused",
        outcome: "invalid_arguments",
        message: `The arguments of \`${name}\` do not fit its schema.`,
      };
    }
    if (!this.allowEffects.includes(tool.effect)) {
      return {
        status: "refused",
        outcome: "effect_denied",
        message: `The policy does not allow the effect \`${tool.effect}\`.`,
      };
    }
    return undefined;
  }

  needsApproval(callId: string, name: string, args: Json): Promise<boolean> {
    const tool = this.tools.find((candidate) => candidate.name === name);
    if (this.refusal(tool, name, args) !== undefined || tool?.effect === "read") return Promise.resolve(false);
    if (this.granted.has(callId)) return Promise.resolve(false);
    this.asked.push(callId);
    return Promise.resolve(true);
  }

  async call(callId: string, name: string, args: Json): Promise<GateCallAnswerLike> {
    const known = this.answers.get(callId);
    if (known !== undefined) return known;
    const tool = this.tools.find((candidate) => candidate.name === name);
    const refused = this.refusal(tool, name, args);
    if (refused !== undefined) return this.keep(callId, refused);
    if (tool?.effect !== "read" && !this.granted.has(callId)) {
      return { status: "awaiting_approval", request: { digest: `digest-of-${callId}`, tool: name } };
    }
    this.runs.push({ callId, tool: name, args });
    const context = {
      runId: "session",
      step: this.runs.length - 1,
      principal: undefined,
      signal: new AbortController().signal,
      idempotencyKey: `key-${callId}`,
      fencingToken: 1,
    };
    const result = await (tool as Tool).execute(args as Record<string, Json>, context);
    return this.keep(callId, { status: "executed", result });
  }

  charge(usage: { tokens: number; cost: number; model?: string }): void {
    this.charges.push(usage);
  }

  private keep(callId: string, answer: GateCallAnswerLike): GateCallAnswerLike {
    this.answers.set(callId, answer);
    return answer;
  }
}
