// `leash/ai-sdk`: a model client over any AI SDK language model. Nothing here imports `ai` or
// `@ai-sdk/*`: the user passes a model object made by a provider package they installed.
export { aiSdkModel, type AiSdkModelOptions } from "./ai-sdk-model.js";
export type {
  AiSdkLanguageModel,
  AiSdkCallOptions,
  AiSdkMessage,
  AiSdkFunctionTool,
  AiSdkGenerateResult,
  AiSdkStreamResult,
} from "./language-model.js";
