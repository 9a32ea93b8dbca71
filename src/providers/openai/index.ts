// leash/openai: model clients over the `openai` package (an optional peer, never imported here).
// openaiResponses is exported from ./responses.js by its own file.
export { openaiChat, type OpenAIChatOptions } from "./chat.js";
export type { OpenAIChatClient } from "./chat-wire.js";
