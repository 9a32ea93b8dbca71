// leash/openai: model clients over the `openai` package (an optional peer, never imported here).
export { openaiChat, type OpenAIChatOptions } from "./chat.js";
export type { OpenAIChatClient } from "./chat-wire.js";
export { openaiResponses } from "./responses.js";
export type { OpenAIResponsesClient, OpenAIResponsesOptions } from "./responses.js";
