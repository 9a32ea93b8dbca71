import { deepFreeze } from "../json/index.js";
import { LeashError } from "../errors/index.js";
import type { Tool, ToolDescription } from "./tool.js";
import { toolRevision } from "./tool.js";
import type { Json } from "../json/index.js";

// Tools of any argument type live together in one set; arguments are checked against each tool's
// schema before its execute is called, so the set itself does not need to know their types.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type AnyTool = Tool<any>;

/** A set of tools with unique names. */
export class Toolset {
  readonly #tools: Map<string, AnyTool>;
  #described: ToolDescription[] | undefined;
  #revision = -1;

  constructor(tools: Iterable<AnyTool> = []) {
    this.#tools = new Map();
    for (const item of tools) {
      if (typeof item !== "object" || item === null || typeof item.describe !== "function") {
        throw new LeashError("invalid_tool", "Expected every tool to be made by `tool(...)`.");
      }
      if (this.#tools.has(item.name)) {
        throw new LeashError("invalid_tool", `Two tools are named \`${item.name}\`; tool names must be unique.`);
      }
      this.#tools.set(item.name, item);
    }
  }

  /** The tool with this name, if any. */
  get(name: string): Tool<Record<string, Json>> | undefined {
    return this.#tools.get(name);
  }

  /** Whether a tool of this name is in the set. */
  has(name: string): boolean {
    return this.#tools.has(name);
  }

  /** The tools' names, in the order given. */
  names(): string[] {
    return [...this.#tools.keys()];
  }

  /** The tools, in the order given. */
  list(): AnyTool[] {
    return [...this.#tools.values()];
  }

  /** A set holding only the named tools (a skill's subset); unknown names are refused. */
  subset(names: readonly string[]): Toolset {
    return new Toolset(
      names.map((name) => {
        const found = this.#tools.get(name);
        if (found === undefined) throw new LeashError("invalid_skill", `The agent has no tool named \`${name}\`.`);
        return found;
      }),
    );
  }

  /**
   * Every tool as plain JSON, ready for a model's tool-calling interface: a fresh array of descriptions
   * made once and deeply frozen, since they are handed to the planner at every step.
   */
  describe(): ToolDescription[] {
    // Made again after a tool was redefined in place (a tool from an MCP server that changed).
    if (this.#revision !== toolRevision()) this.#described = undefined;
    this.#revision = toolRevision();
    this.#described ??= deepFreeze(this.list().map((item) => item.describe()));
    return this.#described.slice();
  }

  get size(): number {
    return this.#tools.size;
  }
}
