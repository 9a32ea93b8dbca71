import { Command } from "commander";
import { openApproverRegistry } from "../../inbox/approver-registry.js";
import type { ApproverRegistry } from "../../inbox/approver-registry.js";
import { checkRoles, ROLES } from "../../inbox/approver-roles.js";
import { CliError } from "../cli-error.js";
import { storeLocation, withCommonOptions } from "../common-options.js";
import type { CommonOptions } from "../common-options.js";
import { escapeText } from "../../operate/escape-text.js";
import { formatTable, printJson, printLines } from "../print.js";

/** Runs `body` with the registry beside the store's runs, and closes it after, whatever happens. */
async function withRegistry<T>(options: CommonOptions, body: (registry: ApproverRegistry) => Promise<T>): Promise<T> {
  const registry = await openApproverRegistry(storeLocation(options));
  try {
    return await body(registry);
  } finally {
    await registry.close();
  }
}

/** `--role R`, repeated: each one given, in order. */
function collect(value: string, previous: string[]): string[] {
  return [...previous, value];
}

function addCommand(): Command {
  const command = new Command("add")
    .description("add an approver and print their sign-in token, once (only its hash is kept)")
    .argument("<name>", "the approver's name: 1 to 64 letters, digits, . _ @ -")
    .option(
      "--role <role>",
      `a role of theirs, repeated for several: ${ROLES.join(", ")} (default: approver)`,
      collect,
      [] as string[],
    );
  return withCommonOptions(command).action(async (name: string, options: CommonOptions & { role: string[] }) => {
    const roles = options.role.length === 0 ? undefined : checkRoles(options.role);
    const added = await withRegistry(options, (registry) =>
      registry.add(name, roles === undefined ? undefined : { roles }),
    );
    if (options.json) return printJson({ name: added.name, token: added.token, roles: added.roles });
    printLines([
      `Approver ${added.name} added, with the roles ${added.roles.join(", ")}. Their token:`,
      "",
      `  ${added.token}`,
      "",
      "It is shown only this once: leash keeps only its hash. Give it to them privately;",
      "they sign in to the inbox (leash serve) with it, or send it as `Authorization: Bearer TOKEN`.",
    ]);
  });
}

function listCommand(): Command {
  const command = new Command("list").description(
    "list the approvers, their roles and when they were added (never their tokens)",
  );
  return withCommonOptions(command).action(async (options: CommonOptions) => {
    const approvers = await withRegistry(options, (registry) => registry.list());
    if (options.json) return printJson({ approvers });
    if (approvers.length === 0) return printLines(["No approvers yet. Add one with: leash approvers add NAME"]);
    printLines(
      formatTable([
        ["NAME", "ROLES", "ADDED"],
        ...approvers.map((approver) => [approver.name, approver.roles.join(","), approver.createdAt].map(escapeText)),
      ]),
    );
  });
}

function removeCommand(): Command {
  const command = new Command("remove")
    .description("remove an approver: their token stops working at once")
    .argument("<name>", "the approver's name");
  return withCommonOptions(command).action(async (name: string, options: CommonOptions) => {
    const removed = await withRegistry(options, (registry) => registry.remove(name));
    if (!removed) throw new CliError("approver_not_found", `There is no approver named ${name}.`);
    if (options.json) return printJson({ name, removed: true });
    printLines([`Approver ${name} removed; their token no longer signs in.`]);
  });
}

function rolesCommand(): Command {
  const command = new Command("roles")
    .description(`replace an approver's roles (${ROLES.join(", ")}); their sessions hold the new ones at once`)
    .argument("<name>", "the approver's name")
    .argument("<roles...>", `one or more of ${ROLES.join(", ")}`);
  return withCommonOptions(command).action(async (name: string, given: string[], options: CommonOptions) => {
    const roles = checkRoles(given);
    const kept = await withRegistry(options, (registry) => registry.setRoles(name, roles));
    if (options.json) return printJson({ name, roles: kept });
    printLines([`Approver ${name} now has the roles ${kept.join(", ")}.`]);
  });
}

/** `leash approvers add|list|roles|remove`: the people who may sign in to the inbox, each with a token and roles of their own. */
export function approversCommand(): Command {
  return new Command("approvers")
    .description("add, list, give roles to or remove the people who sign in to the inbox (leash serve)")
    .addCommand(addCommand())
    .addCommand(listCommand())
    .addCommand(rolesCommand())
    .addCommand(removeCommand());
}
