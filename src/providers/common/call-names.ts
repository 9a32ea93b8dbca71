import type { ModelMessage } from "../../models/model-client.js";

/**
 * The tool name of every call id in a conversation: each call's tool, and the hand-back tool's name
 * for a hand-back's id. A provider that names the tool in a tool result (the AI SDK's prompt) takes
 * it from here, so a tool message answering a hand-back names the hand-back tool.
 */
export function callNames(messages: readonly ModelMessage[], handBackName: string): Map<string, string> {
  const names = new Map<string, string>();
  for (const message of messages) {
    if (message.role !== "assistant") continue;
    for (const call of message.calls) names.set(call.id, call.tool);
    if (message.handBack !== undefined) names.set(message.handBack.id, handBackName);
  }
  return names;
}
