// `leash/ai-sdk`: a model client over any AI SDK language model, and a gate's tools for the AI SDK's
// own loop (`generateText`, `streamText`, `ToolLoopAgent`). Nothing here imports `ai` or `@ai-sdk/*`:
// the user passes a model object made by a provider package they installed, and tools made by `ai`.
export { aiSdkModel, type AiSdkModelOptions } from "./ai-sdk-model.js";
export type {
  AiSdkLanguageModel,
  AiSdkCallOptions,
  AiSdkMessage,
  AiSdkFunctionTool,
  AiSdkGenerateResult,
  AiSdkStreamResult,
} from "./language-model.js";
export { leashTool, type AiSdkToolLike, type LeashToolOptions } from "./leash-tool.js";
export {
  gateTools,
  type AiSdkGateTool,
  type AiSdkGateToolSet,
  type AiSdkGateInputSchema,
  type AiSdkApprovalOptions,
  type AiSdkExecuteOptions,
  type GateToolsOptions,
} from "./gate-tools.js";
export { gateEnded } from "./gate-ended.js";
export { chargeUsage, type ChargeUsageOptions, type AiSdkStepLike } from "./charge-usage.js";
export type {
  GateSessionLike,
  GateToolLike,
  GateToolsLike,
  GateCallAnswerLike,
  GateChargeLike,
} from "../common/gate-session-like.js";
