// `leash/openai-agents`: a gate's tools for the OpenAI Agents SDK's own loop (`run()`), a leash tool
// made of one of its function tools, and a model wrapper that charges each model call to the session.
// Nothing here imports `@openai/agents` or `@openai/agents-core`: both fit the structural types.
export { leashTool, type AgentsLeashToolOptions } from "./leash-tool.js";
export { gateTools } from "./gate-tools.js";
export { chargedModel, agentsUsage, type ChargedModelOptions, type AgentsModelLike } from "./charged-model.js";
export type {
  AgentsFunctionToolLike,
  AgentsGateTool,
  AgentsObjectSchema,
  AgentsRunContextLike,
  AgentsToolCallDetails,
} from "./function-tool.js";
export type { GateSessionLike, GateToolLike, GateCallAnswerLike, GateChargeLike } from "../common/gate-session-like.js";
