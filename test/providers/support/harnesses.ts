// Every provider harness by name, for the shared suite and for child processes that rebuild a client.
import type { ProviderHarness } from "./harness.js";

/** Where each harness lives (relative to this file) and the name it is exported under. */
const HARNESSES: Record<string, { module: string; name: string }> = {
  openaiChat: { module: "../openai/chat-harness.js", name: "openaiChatHarness" },
  openaiResponses: { module: "../openai/responses-harness.js", name: "openaiResponsesHarness" },
  anthropicMessages: { module: "../anthropic/harness.js", name: "anthropicHarness" },
  aiSdkModel: { module: "../ai-sdk/harness.js", name: "aiSdkHarness" },
};

/** Loads the harness of one adapter by its name. */
export async function loadHarness(name: string): Promise<ProviderHarness> {
  const entry = HARNESSES[name];
  if (entry === undefined) throw new Error(`No provider harness is named \`${name}\`.`);
  const loaded = (await import(entry.module)) as Record<string, ProviderHarness | undefined>;
  const harness = loaded[entry.name];
  if (harness === undefined) throw new Error(`${entry.module} does not export \`${entry.name}\`.`);
  return harness;
}

/** The names of every harness, in the order the suite runs them. */
export const HARNESS_NAMES = ["openaiChat", "openaiResponses", "anthropicMessages", "aiSdkModel"] as const;
