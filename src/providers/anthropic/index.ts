// leash/anthropic: the Anthropic Messages API adapter. @anthropic-ai/sdk is an optional peer: nothing
// here imports it; the client you construct is typed structurally.
export { anthropicMessages, type AnthropicMessagesOptions, type AnthropicThinking } from "./anthropic-messages.js";
export type { AnthropicClientLike } from "./anthropic-client.js";
export { INVALID_JSON_KEY } from "./anthropic-request.js";
