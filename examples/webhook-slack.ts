// A bridge from leash's webhooks to a Slack incoming webhook: it verifies each event's signature
// (Standard Webhooks, with node:crypto only), drops an event id it has seen, and posts one line to
// Slack with the run's inbox page. The page answers nothing by itself: whoever reads the channel
// still signs in to the inbox to approve.
//
//   LEASH_WEBHOOK_SECRET=whsec_... SLACK_WEBHOOK_URL=https://hooks.slack.com/services/... \
//     npx tsx examples/webhook-slack.ts            # listens on 127.0.0.1:8787 (PORT to change)
//   leash serve --webhook http://127.0.0.1:8787/ --webhook-secret-file secret --base https://inbox.example.com
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { header, verifyWebhook } from "./webhook-verify.js";

/** An event as leash posts it. */
interface LeashEvent {
  type: "approval_requested" | "run_ended" | "gave_up";
  timestamp: string;
  data: { runId: string; url: string; status?: string; request?: { tool?: string }; sponsor?: string };
}

/** Text for Slack's mrkdwn: `&`, `<` and `>` escaped, so run data cannot make links or mentions. */
function slackText(text: string): string {
  return text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
}

/** One line for the channel. */
export function slackMessage(event: LeashEvent): { text: string } {
  const run = slackText(event.data.runId);
  const page = `<${encodeURI(event.data.url)}|open it in the inbox>`;
  switch (event.type) {
    case "approval_requested":
      return {
        text: `Run ${run} waits for approval of \`${slackText(event.data.request?.tool ?? "a call")}\`: ${page}`,
      };
    case "run_ended":
      return { text: `Run ${run} ended: ${slackText(event.data.status ?? "ended")}. ${page}` };
    case "gave_up":
      return {
        text: `Run ${run} gave up${event.data.sponsor === undefined ? "" : ` (sponsor: ${slackText(event.data.sponsor)})`}: ${page}`,
      };
  }
}

const secrets = (process.env.LEASH_WEBHOOK_SECRET ?? "").split(/\s+/).filter((secret) => secret !== "");
const slackUrl = process.env.SLACK_WEBHOOK_URL ?? "";
if (secrets.length === 0 || slackUrl === "") {
  console.log(
    "Set LEASH_WEBHOOK_SECRET (whsec_..., several separated by spaces) and SLACK_WEBHOOK_URL to run the bridge.",
  );
} else {
  // Delivery is at least once: the same event may come twice (a retry after a lost answer). This
  // bridge remembers ids in memory; keep them in a database if it restarts often.
  const seen = new Set<string>();
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => {
      void (async () => {
        const body = Buffer.concat(chunks).toString("utf8");
        if (request.method !== "POST" || !verifyWebhook(secrets, request.headers, body)) {
          response.writeHead(401).end();
          return;
        }
        const id = header(request.headers, "webhook-id");
        if (!seen.has(id)) {
          const answer = await fetch(slackUrl, {
            method: "POST",
            headers: { "content-type": "application/json" },
            body: JSON.stringify(slackMessage(JSON.parse(body) as LeashEvent)),
          }).catch(() => undefined);
          // Slack did not take it: a non-2xx makes leash try again later, under the same id.
          if (answer === undefined || !answer.ok) {
            response.writeHead(502).end();
            return;
          }
          seen.add(id);
        }
        response.writeHead(204).end();
      })();
    });
  });
  const port = Number(process.env.PORT ?? 8787);
  server.listen(port, "127.0.0.1", () => {
    const { port: listening } = server.address() as AddressInfo;
    console.log(`Bridging leash webhooks to Slack on http://127.0.0.1:${listening}/`);
  });
}
