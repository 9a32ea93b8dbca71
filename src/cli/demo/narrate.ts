import { allow } from "../../guards/guard.js";
import type { Guard } from "../../guards/guard.js";
import type { ModelClient } from "../../models/model-client.js";
import { shortJson } from "../../operate/short-json.js";

/** Where the demo's lines go: stdout for a person, nowhere with `--json`. */
export type Tell = (line: string) => void;

/** A model that says what the model it wraps answered, as it answers. */
export function narratedModel(model: ModelClient, tell: Tell): ModelClient {
  return {
    name: model.name,
    generate: async (request, options) => {
      const response = await model.generate(request, options);
      for (const call of response.calls) tell(`   The model asks for ${call.tool} ${shortJson(call.args, 70)}.`);
      if (response.handBack !== undefined) tell(`   The model hands back ${shortJson(response.handBack, 70)}.`);
      return response;
    },
  };
}

/**
 * A guard that decides as the guard it wraps (under the same name, so the trace's lines are the
 * same) and says so when that guard blocks.
 */
export function narratedGuard(guard: Guard, tell: Tell): Guard {
  const narrated: Guard = {
    name: guard.name,
    beforeTool: async (work, tool, args) => {
      const verdict = (await guard.beforeTool?.(work, tool, args)) ?? allow();
      if (verdict.type === "block") tell(`   ${guard.name} stopped ${tool.name}: ${verdict.why} It did not run.`);
      return verdict;
    },
    afterTool: async (work, tool, result) => {
      const verdict = (await guard.afterTool?.(work, tool, result)) ?? allow();
      if (verdict.type === "block")
        tell(`   ${guard.name} kept what ${tool.name} answered from the model: ${verdict.why}`);
      return verdict;
    },
  };
  // The model-side checks are passed on as they are: the demo has nothing to say about them.
  if (guard.beforeModel !== undefined) narrated.beforeModel = guard.beforeModel.bind(guard);
  if (guard.afterModel !== undefined) narrated.afterModel = guard.afterModel.bind(guard);
  return narrated;
}
