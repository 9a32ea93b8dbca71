// Every provider harness by name, for the shared suite and for child processes that rebuild a client.
import type { ProviderHarness } from "./harness.js";

/** Loads the harness of one adapter by its name. */
export async function loadHarness(name: string): Promise<ProviderHarness> {
  switch (name) {
    case "openaiChat":
      return (await import("../openai/chat-harness.js")).openaiChatHarness;
    case "openaiResponses":
      return (await import("../openai/responses-harness.js")).openaiResponsesHarness;
    case "anthropicMessages":
      return (await import("../anthropic/harness.js")).anthropicHarness;
    case "aiSdkModel":
      return (await import("../ai-sdk/harness.js")).aiSdkHarness;
    default:
      throw new Error(`No provider harness is named \`${name}\`.`);
  }
}

/** The names of every harness, in the order the suite runs them. */
export const HARNESS_NAMES = ["openaiChat", "openaiResponses", "anthropicMessages", "aiSdkModel"] as const;
