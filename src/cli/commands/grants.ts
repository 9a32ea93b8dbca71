import { readFileSync } from "node:fs";
import { Command } from "commander";
import { LeashError } from "../../errors/leash-error.js";
import type { GrantInfo, GrantOptions } from "../../stores/grant-info.js";
import type { RunStore } from "../../stores/run-store.js";
import { cliOrigin } from "../../operate/answer-origin.js";
import { activeFirst, expiryAfter, grantStatus, usesLeft } from "../../operate/grant-expiry.js";
import { withExistingStore } from "../../operate/open-store.js";
import { shortJson } from "../../operate/short-json.js";
import { CliError } from "../cli-error.js";
import { storeLocation, withCommonOptions } from "../common-options.js";
import type { CommonOptions } from "../common-options.js";
import { formatTable, printJson, printLines } from "../print.js";
import { integerOption } from "./bench-corpus.js";

type GrantStore = RunStore & Required<Pick<RunStore, "grant" | "revokeGrant" | "grants">>;

/** The store's grant methods, or a refusal for a store that keeps none. */
function grantStore(store: RunStore): GrantStore {
  if (store.grant === undefined || store.revokeGrant === undefined || store.grants === undefined)
    throw new CliError("invalid_option", "This store keeps no standing grants.");
  return store as GrantStore;
}

/** A grant as lines of text, its id first. */
function grantLines(grant: GrantInfo, now: Date): string[] {
  const lines = [
    grant.id,
    `  tool     ${grant.tool}`,
    `  uses     ${grant.uses} of ${grant.maxUses} (${usesLeft(grant)} left), ${grantStatus(grant, now)}`,
    `  by       ${grant.by}, given ${grant.givenAt}`,
    `  expires  ${grant.expiresAt ?? "never"}`,
  ];
  if (grant.args !== undefined) lines.push(`  args     ${shortJson(grant.args, 200, "see --json")}`);
  if (grant.principal !== undefined) lines.push(`  principal ${grant.principal}`);
  if (grant.agent !== undefined) lines.push(`  agent    ${grant.agent}`);
  if (grant.note !== undefined) lines.push(`  note     ${grant.note}`);
  if (grant.revoked !== undefined)
    lines.push(
      `  revoked  by ${grant.revoked.by} at ${grant.revoked.at}${grant.revoked.note === undefined ? "" : `: ${grant.revoked.note}`}`,
    );
  return lines;
}

interface GrantCommandOptions extends CommonOptions {
  as: string;
  uses: number;
  expires?: string;
  for?: string;
  argsSchema?: string;
  argsSchemaFile?: string;
  principal?: string;
  agent?: string;
  note?: string;
}

/** The schema of `--args-schema` or `--args-schema-file`, parsed; the store checks that it compiles. */
function argsSchema(options: GrantCommandOptions): unknown {
  if (options.argsSchema !== undefined && options.argsSchemaFile !== undefined)
    throw new CliError("invalid_option", "Give --args-schema or --args-schema-file, not both.");
  let text = options.argsSchema;
  if (options.argsSchemaFile !== undefined) {
    try {
      text = readFileSync(options.argsSchemaFile, "utf8");
    } catch (error) {
      throw new CliError("invalid_option", `Could not read --args-schema-file: ${(error as Error).message}`);
    }
  }
  if (text === undefined) return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    throw new LeashError("invalid_option", "Expected `--args-schema` to be a JSON Schema as JSON text.");
  }
}

/** `leash grant TOOL`: gives a standing grant, recorded with the command line's origin. */
export function grantCommand(): Command {
  const command = new Command("grant")
    .description("approve ahead of time: up to N calls of a tool whose arguments fit a schema, until it expires")
    .argument("<tool>", "the leash tool the grant approves calls of")
    .requiredOption("--as <name>", "who gives it: the approver each use records")
    .requiredOption("--uses <n>", "how many calls it approves in all (1 to 1,000,000)", integerOption(1))
    .option("--expires <iso>", "when it stops approving, ISO 8601")
    .option("--for <duration>", "or how long from now it approves: 30m, 2h, 7d")
    .option("--args-schema <json>", "a JSON Schema the call's arguments must satisfy")
    .option("--args-schema-file <file>", "the same, read from a file")
    .option("--principal <name>", "only runs working as this principal")
    .option("--agent <name>", "only runs of the agent of this name")
    .option("--note <text>", "why it is given");
  return withCommonOptions(command).action(async (tool: string, options: GrantCommandOptions) => {
    if (options.expires !== undefined && options.for !== undefined)
      throw new CliError("invalid_option", "Give --expires or --for, not both.");
    const args = argsSchema(options);
    const given: Record<string, unknown> = { tool, maxUses: options.uses, by: options.as };
    if (args !== undefined) given.args = args;
    if (options.expires !== undefined) given.expiresAt = options.expires;
    if (options.for !== undefined) given.expiresAt = expiryAfter(options.for, new Date());
    for (const key of ["principal", "agent", "note"] as const)
      if (options[key] !== undefined) given[key] = options[key];
    const grant = await withExistingStore(storeLocation(options), (store) =>
      grantStore(store).grant(given as unknown as GrantOptions, { origin: cliOrigin() }),
    );
    if (options.json) printJson(grant);
    else printLines(grantLines(grant, new Date()));
  });
}

interface GrantsCommandOptions extends CommonOptions {
  all?: boolean;
}

/** `leash grants`: the active standing grants (all of them with `--all`, active first). */
export function grantsCommand(): Command {
  const command = new Command("grants")
    .description("list the standing grants that can still approve (all of them with --all)")
    .option("--all", "also the revoked, expired and used-up ones");
  return withCommonOptions(command).action(async (options: GrantsCommandOptions) => {
    const now = new Date();
    const grants = await withExistingStore(storeLocation(options), (store) =>
      grantStore(store).grants(options.all === true ? {} : { active: true }),
    );
    const listed = activeFirst(grants, now);
    if (options.json) {
      printJson(listed);
      return;
    }
    if (listed.length === 0) {
      printLines([options.all === true ? "No standing grants." : "No active standing grants."]);
      return;
    }
    const rows = listed.map((grant) => [
      grant.id,
      grant.tool,
      `${usesLeft(grant)}/${grant.maxUses}`,
      grant.expiresAt ?? "never",
      grant.by,
      grantStatus(grant, now),
    ]);
    printLines(formatTable([["ID", "TOOL", "LEFT", "EXPIRES", "BY", "STATUS"], ...rows]));
  });
}

interface RevokeCommandOptions extends CommonOptions {
  as: string;
  note?: string;
}

/** `leash revoke ID`: revokes a standing grant; it approves nothing more. */
export function revokeCommand(): Command {
  const command = new Command("revoke")
    .description("revoke a standing grant: it approves nothing more")
    .argument("<id>", "the grant's id, as leash grants prints it")
    .requiredOption("--as <name>", "who revokes it")
    .option("--note <text>", "why");
  return withCommonOptions(command).action(async (id: string, options: RevokeCommandOptions) => {
    const revoked = await withExistingStore(storeLocation(options), (store) =>
      grantStore(store).revokeGrant(id, {
        by: options.as,
        ...(options.note === undefined ? {} : { note: options.note }),
      }),
    );
    if (options.json) printJson(revoked);
    else printLines(grantLines(revoked, new Date()));
  });
}
