// The shape of `@openai/agents`' `FunctionTool`, written out structurally: `leash/openai-agents`
// imports neither `@openai/agents` nor `@openai/agents-core`, so a tool made by either fits, and the
// tools `gateTools` makes are what the SDK's runner reads (`runner/toolExecution` of agents-core 0.20).

/** The SDK's `RunContext`, as far as leash passes it on: the app's own context object. */
export interface AgentsRunContextLike {
  readonly context?: unknown;
}

/** The third argument of a function tool's `invoke`: the model's call and the SDK's abort signal. */
export interface AgentsToolCallDetails {
  readonly toolCall?: {
    readonly type?: "function_call";
    readonly callId?: string;
    readonly name?: string;
    readonly arguments?: string;
  };
  readonly signal?: AbortSignal;
}

/**
 * A function tool of `@openai/agents` as `leashTool` reads it: made by the SDK's `tool({ ... })`. Its
 * `parameters` is the JSON Schema the SDK made of the tool's zod or JSON schema; `invoke` takes the
 * model's argument text.
 */
export interface AgentsFunctionToolLike {
  readonly type: "function";
  readonly name: string;
  readonly description?: string;
  readonly parameters: object;
  // `never` parameters, so that a tool of any context and result type fits.
  readonly invoke: (runContext: never, input: string, details?: never) => unknown;
}

/**
 * The JSON Schema of a gate tool's arguments in the form the SDK types a function tool's `parameters`:
 * an object schema whose `properties`, `required` and `additionalProperties` are spelt out.
 */
export interface AgentsObjectSchema {
  readonly [keyword: string]: unknown;
  readonly type: "object";
  readonly properties: Record<string, unknown>;
  readonly required: string[];
  readonly additionalProperties: boolean;
}

/**
 * One tool of `gateTools`: a function tool for `@openai/agents` whose approval and calls go through
 * the gate's session. `strict` is false: the gate's schemas are leash's JSON Schemas, which the model
 * need not follow to the letter, since leash validates every call's arguments itself.
 */
export interface AgentsGateTool {
  readonly type: "function";
  readonly name: string;
  readonly description: string;
  readonly parameters: AgentsObjectSchema;
  readonly strict: false;
  readonly invoke: (runContext: unknown, input: string, details?: AgentsToolCallDetails) => Promise<string>;
  readonly needsApproval: (runContext: unknown, input: unknown, callId?: string) => Promise<boolean>;
  readonly isEnabled: (runContext: unknown, agent: unknown) => Promise<boolean>;
}
