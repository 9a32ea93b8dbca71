// Typed tools: `tool({ parameters })` with a zod 4 schema (or any Standard Schema that converts to
// JSON Schema), converted once to JSON Schema. This file is type-checked with the rest of the tests,
// so the `@ts-expect-error` lines below prove that `execute`'s arguments are typed from the schema.
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { z } from "zod";
import { Agent, Decision, Policy, Toolset, isLeashError, modelPlanner, tool } from "../../src/index.js";
import { says, scriptedModel } from "../../src/testing/index.js";
import type { CallApprovalRequest, Json, Planner } from "../../src/index.js";

const NOTE = z.object({
  topic: z.string().min(1),
  words: z.number().int().min(1).default(3),
  tags: z.array(z.enum(["urgent", "later"])).optional(),
});

function noteTool(seen: { topic: string; words?: number }[] = []) {
  return tool({
    name: "note",
    description: "Note a topic.",
    parameters: NOTE,
    effect: "write",
    execute: ({ topic, words }) => {
      seen.push({ topic, ...(words === undefined ? {} : { words }) });
      return `${topic.toUpperCase()}:${words ?? "-"}`;
    },
  });
}

function planOf(...decisions: Decision[]): Planner {
  return (state) => decisions[state.steps.length] ?? Decision.finish(state.steps.at(-1)?.result ?? null);
}

function refusal(run: () => unknown): string {
  try {
    run();
  } catch (error) {
    assert.ok(isLeashError(error, "invalid_tool"), `expected LeashError invalid_tool, got ${String(error)}`);
    return error.message;
  }
  assert.fail("expected the tool to be refused");
}

describe("typed tools: the schema", () => {
  test("converts a zod schema once to what z.toJSONSchema gives for its input", () => {
    const note = noteTool();
    assert.deepEqual(note.parameters, z.toJSONSchema(NOTE, { io: "input" }));
    assert.deepEqual(note.describe().parameters, z.toJSONSchema(NOTE, { io: "input" }));
  });

  test("shows models the converted JSON Schema in the tool's description", () => {
    const [described] = new Toolset([noteTool()]).describe();
    assert.deepEqual(described?.parameters, z.toJSONSchema(NOTE, { io: "input" }));
    assert.equal(JSON.stringify(described), JSON.stringify(structuredClone(described)), "plain JSON, no schema object");
  });

  test("keeps a plain JSON Schema exactly as given", () => {
    const schema = { type: "object", properties: { a: { type: "number" } }, required: ["a"] };
    const add = tool({ name: "add", parameters: schema, execute: ({ a }) => Number(a) + 1 });
    assert.deepEqual(add.parameters, schema);
  });

  test("converts any Standard Schema that implements Standard JSON Schema, asking for draft 2020-12", () => {
    const targets: string[] = [];
    const custom = {
      "~standard": {
        version: 1 as const,
        vendor: "custom",
        validate: (value: unknown) => ({ value }),
        jsonSchema: {
          input: (options: { target: string }) => {
            targets.push(options.target);
            return { type: "object", properties: { city: { type: "string" } }, required: ["city"] };
          },
          output: () => ({}),
        },
        types: undefined as unknown as { input: { city: string }; output: { city: string } },
      },
    };
    const weather = tool({ name: "weather", parameters: custom, execute: ({ city }) => city.length });
    assert.deepEqual(targets, ["draft-2020-12"]);
    assert.deepEqual(weather.parameters, {
      type: "object",
      properties: { city: { type: "string" } },
      required: ["city"],
    });
  });

  test("refuses a Standard Schema that cannot give JSON Schema, naming the spec it needs", () => {
    const validateOnly = {
      "~standard": { version: 1 as const, vendor: "valibot", validate: (value: unknown) => ({ value }) },
    };
    const message = refusal(() => tool({ name: "plain", parameters: validateOnly, execute: () => null }));
    assert.match(message, /tool `plain`/);
    assert.match(message, /valibot/);
    assert.match(message, /Standard JSON Schema/);
    assert.match(message, /@standard-schema\/spec 1\.1/);
  });

  test("refuses a zod schema that has no JSON Schema form, with zod's reason", () => {
    const message = refusal(() =>
      tool({ name: "when", parameters: z.object({ at: z.date() }), execute: ({ at }) => at.getTime() }),
    );
    assert.match(message, /tool `when`/);
    assert.match(message, /Date cannot be represented in JSON Schema/);
  });

  test("accepts a zod schema of any JSON Schema type, as it accepts such JSON Schema", () => {
    // leash takes whatever JSON Schema takes; a model sees exactly the converted schema.
    const echo = tool({ name: "echo", parameters: z.string(), execute: (text) => text.length });
    assert.deepEqual(echo.parameters, z.toJSONSchema(z.string(), { io: "input" }));
  });
});

describe("typed tools: in a run", () => {
  const allowWrites = () => new Policy({ allowEffects: ["read", "write"], approvalFor: [] });

  test("validates arguments against the converted schema: invalid ones are step invalid_arguments", async () => {
    const seen: { topic: string; words?: number }[] = [];
    const agent = new Agent({
      tools: [noteTool(seen)],
      policy: allowWrites(),
      planner: planOf(
        Decision.act("note", { topic: "" }),
        Decision.act("note", { topic: "brakes", words: 2.5 }),
        Decision.act("note", { topic: "brakes", tags: ["soon"] }),
        Decision.act("note", { topic: "brakes", words: 2 }),
      ),
    });
    const state = await agent.run("note the brakes");
    assert.equal(state.status, "completed");
    assert.deepEqual(
      state.steps.map((step) => step.outcome),
      ["invalid_arguments", "invalid_arguments", "invalid_arguments", "executed", "finished"],
    );
    assert.match(String(state.steps[0]?.error?.message), /topic/);
    assert.deepEqual(seen, [{ topic: "brakes", words: 2 }]);
    assert.equal(state.answer, "BRAKES:2");
  });

  test("hands execute the parsed arguments: zod's defaults are filled in", async () => {
    const seen: { topic: string; words?: number }[] = [];
    const agent = new Agent({
      tools: [noteTool(seen)],
      policy: allowWrites(),
      planner: planOf(Decision.act("note", { topic: "chain" })),
    });
    const state = await agent.run("note the chain");
    assert.equal(state.answer, "CHAIN:3");
    assert.deepEqual(seen, [{ topic: "chain", words: 3 }]);
    // What was decided, approved and audited is the call as made, not as parsed.
    assert.deepEqual(state.steps[0]?.decision.type === "act" ? state.steps[0].decision.args : null, { topic: "chain" });
  });

  test("a refinement JSON Schema cannot say refuses the call at the gates: it never runs", async () => {
    const ran: string[] = [];
    const read = tool({
      name: "read_file",
      parameters: z.object({ path: z.string().refine((path) => !path.includes(".."), "No path may climb out.") }),
      execute: ({ path }) => {
        ran.push(path);
        return path;
      },
    });
    const agent = new Agent({
      tools: [read],
      planner: planOf(
        Decision.act("read_file", { path: "../../etc/passwd" }),
        Decision.act("read_file", { path: "notes.md" }),
      ),
    });
    const state = await agent.run("read");
    assert.deepEqual(
      state.steps.map((step) => step.outcome),
      ["invalid_arguments", "executed", "finished"],
    );
    assert.match(state.steps[0]?.error?.message ?? "", /path: No path may climb out\./);
    assert.deepEqual(ran, ["notes.md"]);
  });

  test("a transform runs before execute, which gets its output", async () => {
    const shout = tool({
      name: "shout",
      parameters: z.object({ word: z.string().transform((word) => word.toUpperCase()) }),
      execute: ({ word }) => `${word}!`,
    });
    const state = await new Agent({ tools: [shout], planner: planOf(Decision.act("shout", { word: "brakes" })) }).run(
      "shout",
    );
    assert.equal(state.answer, "BRAKES!");
  });

  test("sends a model the converted JSON Schema, and runs the call the model makes", async () => {
    const model = scriptedModel(says.tool("note", { topic: "pads", words: 2 }), says.text("Noted."));
    const agent = new Agent({ tools: [noteTool()], policy: allowWrites(), planner: modelPlanner({ model }) });
    const state = await agent.run("note the pads");
    assert.deepEqual(
      state.steps.map((step) => step.outcome),
      ["executed", "finished"],
    );
    assert.equal(state.steps[0]?.result, "PADS:2");
    assert.deepEqual(model.requests[0]?.tools[0]?.parameters, z.toJSONSchema(NOTE, { io: "input" }));
    model.assertDone();
  });

  test("gives the same approval digest for the same call on two constructions of the tool", async () => {
    async function pendingDigest(): Promise<CallApprovalRequest> {
      let id = 0;
      const agent = new Agent({
        tools: [noteTool()],
        policy: new Policy({ allowEffects: ["read", "write"] }),
        planner: planOf(Decision.act("note", { topic: "saddle", words: 4 })),
        clock: () => new Date("2026-01-01T00:00:00Z"),
        randomId: () => `fixed-${++id}`,
      });
      const paused = await agent.run("note the saddle");
      assert.equal(paused.status, "awaiting_approval");
      return paused.pending as CallApprovalRequest;
    }
    const first = await pendingDigest();
    const second = await pendingDigest();
    assert.match(first.digest, /^[0-9a-f]{64}$/);
    assert.equal(second.digest, first.digest);
    assert.deepEqual(second.args, { topic: "saddle", words: 4 } satisfies Json);
  });
});

describe("typed tools: types", () => {
  test("types execute's arguments from the zod schema's input, and a wrong property is a type error", () => {
    const typed = tool({
      name: "typed",
      parameters: z.object({ topic: z.string(), count: z.number().optional() }),
      execute: ({ topic, count }) => {
        const upper: string = topic.toUpperCase();
        const maybe: number | undefined = count;
        // @ts-expect-error `topic` is a string, so it cannot be used as a number
        const wrong: number = topic;
        return [upper, maybe ?? 0, wrong];
      },
    });
    // @ts-expect-error `topic` is a string, not a number
    tool({
      name: "mistyped",
      parameters: z.object({ topic: z.string() }),
      execute: ({ topic }: { topic: number }) => topic,
    });
    tool({
      name: "unknown_property",
      parameters: z.object({ topic: z.string() }),
      // @ts-expect-error `title` does not exist on the schema's input
      execute: ({ title }) => String(title),
    });
    // Plain JSON Schema keeps the untyped JSON record.
    tool({
      name: "untyped",
      parameters: { type: "object" },
      execute: (args) => {
        const value: Json | undefined = args.anything;
        return value ?? null;
      },
    });
    assert.equal(typed.name, "typed");
  });
});
