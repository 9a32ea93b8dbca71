/**
 * leash/testing: a model that answers from a script, so that runs driven by `modelPlanner` can be
 * tested without a provider.
 */
export { scriptedModel, ScriptedModel } from "./scripted-model.js";
export type { ScriptedModelOptions, ScriptedStep, ScriptFunction } from "./scripted-model.js";
export { says, ScriptStep } from "./says.js";
export type { SaysOptions, ScriptedUsage } from "./says.js";
