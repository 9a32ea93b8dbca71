import { Command } from "commander";
import { messageOf } from "../../errors/index.js";
import { CliError } from "../cli-error.js";
import { listenFailure } from "../listen-failure.js";
import { storeLocation, withCommonOptions } from "../common-options.js";
import type { CommonOptions } from "../common-options.js";
import { loadAgent } from "../../operate/load-agent.js";
import type { LoadedAgent } from "../../operate/load-agent.js";
import { openExistingStore } from "../../operate/open-store.js";
import { printErrorJsonLine, printErrorLines, printJsonLine, printLines } from "../print.js";
import type { ApproverCheck } from "../../inbox/answer-from-inbox.js";
import { openApproverRegistry } from "../../inbox/approver-registry.js";
import { isLoopback } from "../../inbox/security-headers.js";
import { startInbox } from "../../inbox/serve-inbox.js";
import { startNotifier } from "../../notify/deliverer.js";
import type { NotifierLogger } from "../../notify/deliverer.js";
import { checkBaseUrl, checkHttpUrl } from "../../notify/notify-urls.js";
import { readWebhookSecretFile } from "../../notify/webhook-secret.js";
import type { WebhookSecrets } from "../../notify/webhook-secret.js";

interface ServeOptions extends CommonOptions {
  port: string;
  host: string;
  agent?: string;
  webhook?: string;
  webhookSecretFile?: string;
  base?: string;
}

/** `--webhook URL --webhook-secret-file FILE [--base URL]`, checked before anything starts. */
function webhookOf(options: ServeOptions): { url: string; secrets: WebhookSecrets; base?: string } | undefined {
  if ((options.webhook === undefined) !== (options.webhookSecretFile === undefined))
    throw new CliError(
      "invalid_option",
      options.webhook === undefined
        ? "--webhook-secret-file needs --webhook URL: the address events are posted to."
        : "--webhook needs --webhook-secret-file FILE: events are signed, and the file holds the secret (whsec_...).",
    );
  const base = options.base === undefined ? undefined : checkBaseUrl(options.base, "--base");
  if (options.webhook === undefined) return undefined;
  const url = checkHttpUrl(options.webhook, "--webhook").href;
  const secrets = readWebhookSecretFile(options.webhookSecretFile as string);
  return { url, secrets, ...(base === undefined ? {} : { base }) };
}

/** The notifier's log lines on stderr: text, or one JSON object a line under `--json`. */
function notifierLogger(json: boolean): NotifierLogger {
  const say = (level: string, message: string): void => {
    if (json) printErrorJsonLine({ notify: level, message });
    else printErrorLines([`leash: webhook: ${message}`]);
  };
  return {
    info: (message) => say("info", message),
    warn: (message) => say("warn", message),
    error: (message) => say("error", message),
  };
}

function portOf(text: string): number {
  const port = Number(text);
  if (!/^\d+$/.test(text) || !Number.isSafeInteger(port) || port > 65535)
    throw new CliError("invalid_option", "Expected --port to be a port number from 0 to 65535 (0 picks a free one).");
  return port;
}

/** The app's policy, from the agent the module exports: the inbox applies its `mayApprove`. */
function policyOf(loaded: LoadedAgent, path: string): ApproverCheck {
  const policy = (loaded.agent as { policy?: unknown }).policy;
  if (typeof policy !== "object" || policy === null || typeof (policy as ApproverCheck).mayApprove !== "function")
    throw new CliError("invalid_agent_module", `The agent ${path} exports has no policy with mayApprove.`);
  return policy as ApproverCheck;
}

/** Resolves on the first SIGTERM or SIGINT. */
function stopSignal(): Promise<string> {
  return new Promise((resolve) => {
    const stop = (signal: string): void => {
      process.off("SIGTERM", stop).off("SIGINT", stop);
      resolve(signal);
    };
    process.on("SIGTERM", stop).on("SIGINT", stop);
  });
}

/**
 * `leash serve`: the web inbox where approvers sign in with their token, read runs and their trails,
 * and approve or deny the requests that wait for a person. Loopback by default; SIGTERM or SIGINT
 * closes it.
 */
export function serveCommand(): Command {
  const command = new Command("serve")
    .description("serve the web inbox: approvers sign in, read runs and answer the requests that wait for them")
    .option("--port <port>", "the port to listen on (0 picks a free one)", "7777")
    .option("--host <address>", "the address to listen on (anything but loopback opens it to the network)", "127.0.0.1")
    .option("--agent <path>", "the app's agent module: its policy's mayApprove decides who may answer")
    .option("--webhook <url>", "post signed events (approval_requested, run_ended, gave_up) to this http(s) URL")
    .option(
      "--webhook-secret-file <file>",
      "the webhook's secret(s), whsec_... one per line (the file readable by its owner only)",
    )
    .option(
      "--base <url>",
      "the inbox's address as people reach it through a proxy: named in events, and its host and origin answered beside the listening address (default: the address it listens on)",
    );
  return withCommonOptions(command).action(async (options: ServeOptions) => {
    const port = portOf(options.port);
    if (options.host.trim() === "") throw new CliError("invalid_option", "Expected --host to name an address.");
    const webhook = webhookOf(options);
    const base = options.base === undefined ? undefined : checkBaseUrl(options.base, "--base");
    const location = storeLocation(options);
    const store = await openExistingStore(location);
    const closers: (() => Promise<void>)[] = [() => store.close()];
    try {
      const registry = await openApproverRegistry(location);
      closers.unshift(() => registry.close());
      let policy: ApproverCheck | undefined;
      if (options.agent !== undefined) {
        const loaded = await loadAgent(options.agent, location);
        closers.unshift(() => loaded.close());
        policy = policyOf(loaded, options.agent);
      }
      // Only a hint: a registry that cannot be read now is the inbox's to answer per request (503),
      // as it answers a store that fails later, so the inbox starts anyway and says why it could not look.
      const approvers = await registry.list().then(
        (list) => ({ type: "read" as const, count: list.length }),
        (error: unknown) => ({ type: "unreadable" as const, error }),
      );
      const noApprovers = approvers.type === "read" && approvers.count === 0;
      const stopped = stopSignal();
      const inbox = await startInbox({
        store,
        location,
        registry,
        host: options.host,
        port,
        ...(policy === undefined ? {} : { policy }),
        ...(base === undefined ? {} : { base }),
      }).catch((error: unknown) => {
        throw listenFailure(options.host, port, error);
      });
      closers.unshift(() => inbox.close());
      if (webhook !== undefined) {
        // Beside the inbox, on its own timer: stopped first at shutdown, after its attempt in flight.
        const notifier = await startNotifier(store, {
          url: webhook.url,
          secrets: webhook.secrets,
          base: webhook.base ?? inbox.url,
          logger: notifierLogger(options.json === true),
        });
        closers.unshift(() => notifier.stop());
      }
      if (options.json) printJsonLine({ url: inbox.url });
      else printLines([`leash inbox: ${inbox.url}`]);
      // An inbox nobody can sign in to is the first thing a new store shows: say how to let someone in.
      if (noApprovers) {
        const message = `No one can sign in yet: ${location.label} has no approvers. Add one with \`leash approvers add NAME ${location.args}\`, which prints their sign-in token once.`;
        if (options.json) printErrorJsonLine({ warning: "no_approvers", message });
        else printErrorLines([`leash: ${message}`]);
      }
      if (approvers.type === "unreadable")
        printErrorLines([`leash: warning: the approvers could not be read at start: ${messageOf(approvers.error)}`]);
      if (!isLoopback(options.host))
        printErrorLines([
          `leash: warning: the inbox listens on ${options.host}, not loopback: anyone who can reach this address can try to sign in, over plain HTTP.`,
        ]);
      await stopped;
    } finally {
      for (const close of closers) await close().catch(() => undefined);
    }
  });
}
