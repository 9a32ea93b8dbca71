import { Command, Option } from "commander";
import { storeLocation, withCommonOptions } from "../common-options.js";
import type { CommonOptions } from "../common-options.js";
import { CliError } from "../cli-error.js";
import { withExistingStore } from "../../operate/open-store.js";
import { escapeText } from "../../operate/escape-text.js";
import { NOTIFICATION_STATUSES } from "../../stores/notification-info.js";
import type { NotificationEvent, NotificationStatus } from "../../stores/notification-info.js";
import { integerOption } from "./bench-corpus.js";
import { formatTable, printJson, printLines, shorten } from "../print.js";

/** A page when `--limit` is not given: the outbox keeps a week of delivered events, too many to print at once. */
const DEFAULT_LIMIT = 50;

interface NotificationsOptions extends CommonOptions {
  failed?: boolean;
  status?: NotificationStatus;
  limit?: number;
  cursor?: string;
}

/** One event as a row: what a person checks when a receiver says it heard nothing. */
function rowOf(event: NotificationEvent): string[] {
  return [
    event.id,
    event.type,
    shorten(event.runId, 40),
    event.status,
    String(event.attempts),
    event.status === "pending" ? (event.nextAttemptAt ?? "-") : "-",
    event.lastError === null ? "-" : shorten(event.lastError, 60),
  ].map(escapeText);
}

/**
 * `leash notifications [--failed] [--status S] [--limit N] [--cursor C]`: the store's outbox, newest
 * first, one page at a time: each event's id (the `webhook-id` receivers see), type, run, status,
 * attempts, next attempt and last error.
 */
export function notificationsCommand(): Command {
  const command = new Command("notifications")
    .description("list the webhook events of the store's outbox, newest first (--failed: those that gave up)")
    .option("--failed", "only the events whose delivery gave up (the same as --status failed)")
    .addOption(new Option("--status <status>", "only the events of this status").choices([...NOTIFICATION_STATUSES]))
    .option(
      "--limit <n>",
      `at most this many events (default ${DEFAULT_LIMIT}), then the cursor of the next page`,
      integerOption(1),
    )
    .option("--cursor <cursor>", "start after the page this cursor ends (printed as More: ...)");
  return withCommonOptions(command).action(async (options: NotificationsOptions) => {
    if (options.failed === true && options.status !== undefined && options.status !== "failed")
      throw new CliError(
        "invalid_option",
        `--failed lists failed events; it cannot be used with --status ${options.status}.`,
      );
    const status = options.failed === true ? "failed" : options.status;
    const location = storeLocation(options);
    const limit = options.limit ?? DEFAULT_LIMIT;
    const page = await withExistingStore(location, async (store) => {
      if (typeof store.notifications !== "function")
        throw new CliError("invalid_option", `${location.label} keeps no outbox: this store has no notifications.`);
      return store.notifications({
        limit,
        ...(status === undefined ? {} : { status }),
        ...(options.cursor === undefined ? {} : { cursor: options.cursor }),
      });
    });
    const next = page.next ?? null;
    if (options.json)
      return printJson({ db: location.label, status: status ?? null, notifications: page.events, next });
    if (page.events.length === 0) {
      const where = options.cursor === undefined ? "" : " after this cursor";
      return printLines([
        status === undefined
          ? `No webhook events in ${location.label}${where}.`
          : `No webhook event is ${status} in ${location.label}${where}.`,
      ]);
    }
    printLines(
      formatTable([
        ["ID", "TYPE", "RUN", "STATUS", "ATTEMPTS", "NEXT ATTEMPT", "LAST ERROR"],
        ...page.events.map(rowOf),
      ]),
    );
    if (next !== null) {
      const parts = [location.args];
      if (status !== undefined) parts.push(`--status ${status}`);
      if (options.limit !== undefined) parts.push(`--limit ${options.limit}`);
      printLines(["", escapeText(`More: leash notifications ${parts.join(" ")} --cursor ${next}`)]);
    }
  });
}
