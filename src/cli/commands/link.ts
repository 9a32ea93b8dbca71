import { Command } from "commander";
import {
  DEFAULT_LINK_BASE,
  DEFAULT_LINK_FOR,
  linkBase,
  linkLifetimeMs,
  makeApprovalLink,
} from "../../inbox/approval-link.js";
import { openApproverRegistry } from "../../inbox/approver-registry.js";
import { openLinkStore } from "../../inbox/link-store.js";
import { withExistingStore } from "../../operate/open-store.js";
import { storeLocation, withCommonOptions } from "../common-options.js";
import type { CommonOptions } from "../common-options.js";
import { printJson, printLines } from "../print.js";
import { integerOption } from "./bench-corpus.js";

/** Options of `leash link`. */
interface LinkOptions extends CommonOptions {
  as: string;
  for: string;
  base: string;
  step?: number;
  call?: string;
}

/** `leash link RUN --as NAME`: a one-time URL of the inbox that answers the run's waiting request as NAME, without a sign-in. */
export function linkCommand(): Command {
  const command = new Command("link")
    .description(
      "print a one-time URL of the inbox (leash serve) that answers the request a run waits on as NAME, without a sign-in",
    )
    .argument("<run>", "the run id")
    .requiredOption("--as <name>", "the person of leash approvers the link answers as (their roles must allow it)")
    .option("--for <duration>", "how long the link works: 30m, 2h, 7d (at most 7d)", DEFAULT_LINK_FOR)
    .option("--base <url>", "the inbox's address, as the person's browser reaches it", DEFAULT_LINK_BASE)
    .option(
      "--step <n>",
      "which waiting request: the step it was asked at (needed when a gate's session has several waiting)",
      integerOption(0),
    )
    .option(
      "--call <call-id>",
      "which waiting request: the call id of a gate session's call (as leash show prints it)",
    );
  return withCommonOptions(command).action(async (runId: string, options: LinkOptions) => {
    // Checked before anything is opened: a typo in --for or --base is a usage error wherever the store is.
    linkLifetimeMs(options.for);
    linkBase(options.base);
    const location = storeLocation(options);
    const made = await withExistingStore(location, async (store) => {
      const registry = await openApproverRegistry(location);
      try {
        const links = await openLinkStore(location);
        try {
          return await makeApprovalLink({
            store,
            location,
            registry,
            links,
            runId,
            name: options.as,
            duration: options.for,
            base: options.base,
            ...(options.step === undefined && options.call === undefined
              ? {}
              : {
                  select: {
                    ...(options.step === undefined ? {} : { step: options.step }),
                    ...(options.call === undefined ? {} : { callId: options.call }),
                  },
                }),
          });
        } finally {
          await links.close();
        }
      } finally {
        await registry.close();
      }
    });
    if (options.json) return printJson({ url: made.url, expiresAt: made.expiresAt });
    const what = made.request.kind === "limit" ? `limit ${made.request.limit}` : `tool ${made.request.tool}`;
    printLines([
      made.url,
      "",
      `It answers step ${made.request.step} (${what}) of run ${runId} as ${options.as}, once, until ${made.expiresAt} (link ${made.link.id}).`,
      "Opening it only shows the request; approving or denying is a button on that page. Only its hash is kept:",
      "this is the one time it is shown. Send it privately; anyone who holds it can answer as that person.",
    ]);
  });
}
