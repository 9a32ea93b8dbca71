import { says, scriptedModel } from "../../testing/index.js";
import type { ScriptedModel } from "../../testing/index.js";
import type { Repair } from "./workshop.js";
import { EVERYDAY_PRICE } from "./workshop.js";

// Each answer reports a little usage, so that `leash show` has spending to show.
const usage = { usage: { inputTokens: 420, outputTokens: 24 } };

/**
 * What the model says before the pause: a note that blames the customer (the guard stops it), a
 * look at where the key is kept (the guard keeps the answer from the model), then a fair note (a
 * write, which waits for a person).
 */
export function modelBeforeThePause(repair: Repair): ScriptedModel {
  return scriptedModel(
    { name: "Everyday", price: EVERYDAY_PRICE },
    says.tool("NoteRepair", { repair: repair.id, note: "Worn pads: the customer's fault." }, usage),
    says.tool("WhereIsTheKey", { repair: repair.id }, usage),
    says.tool("NoteRepair", { repair: repair.id, note: "Worn pads." }, usage),
  );
}

/** What the model says once the approved note is written: the estimate. */
export function modelAfterTheApproval(): ScriptedModel {
  return scriptedModel(
    { name: "Everyday", price: EVERYDAY_PRICE },
    says.handBack({ hours: 1, summary: "Pads." }, usage),
  );
}
