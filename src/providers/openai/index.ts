// Temporary: the final index (openaiChat and openaiResponses) comes with the Chat Completions adapter.
export { openaiResponses } from "./responses.js";
export type { OpenAIResponsesClient, OpenAIResponsesOptions } from "./responses.js";
