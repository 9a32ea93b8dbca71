/**
 * The peers of the overhead benchmark: the frameworks a user would pick instead of leash, each making
 * the same N no-op tool calls with its own scripted model, and leash's `modelPlanner` over the AI
 * SDK's mock model, scripted as the `generateText` peer's is. A development tool of this repository
 * (they need its dev dependencies), run with tsx by bench/overhead.ts and bench/profile.ts; the
 * shipped `leash bench overhead` measures leash alone.
 */
import type { Scenario } from "../../src/bench/scenario.js";
import { leashModelPlanner } from "./leash-model-planner.js";
import { aiSdkPeer } from "./peer-ai-sdk.js";
import { langGraphPeer } from "./peer-langgraph.js";
import { openaiAgentsPeer } from "./peer-openai-agents.js";

/** The scenarios that need dev dependencies, in table order: leash's `modelPlanner` row, then the peers. */
export function peerScenarios(): Scenario[] {
  return [leashModelPlanner, openaiAgentsPeer, aiSdkPeer, langGraphPeer];
}
