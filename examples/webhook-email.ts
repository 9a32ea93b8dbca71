// Email from leash's webhooks: verifies each event (Standard Webhooks, node:crypto only, the same
// check as webhook-verify.ts), drops ids it has seen, and mails the people who approve through the
// machine's sendmail (`sendmail -t`, which Postfix, Exim and msmtp all provide). The mail carries the
// run's inbox page, which shows the request to a signed-in person and answers nothing.
//
//   LEASH_WEBHOOK_SECRET=whsec_... MAIL_TO=approvers@example.com MAIL_FROM=leash@example.com \
//     npx tsx examples/webhook-email.ts            # listens on 127.0.0.1:8788 (PORT to change)
import { spawn } from "node:child_process";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { verifyWebhook } from "./webhook-verify.js";

interface LeashEvent {
  type: "approval_requested" | "run_ended" | "gave_up";
  timestamp: string;
  data: { runId: string; url: string; status?: string; request?: { tool?: string } };
}

/** A header's value on one line: a line break in run data must not add a header of its own. */
function oneLine(text: string): string {
  return text.replace(/[\r\n\u2028\u2029]+/g, " ").slice(0, 200);
}

/** The message, headers and text, for `sendmail -t`. */
export function mailOf(event: LeashEvent, from: string, to: string): string {
  const subject =
    event.type === "approval_requested"
      ? `Approval needed: run ${event.data.runId} (${event.data.request?.tool ?? "a call"})`
      : event.type === "run_ended"
        ? `Run ${event.data.runId} ended: ${event.data.status ?? "ended"}`
        : `Run ${event.data.runId} gave up`;
  return [
    `From: ${oneLine(from)}`,
    `To: ${oneLine(to)}`,
    `Subject: ${oneLine(subject)}`,
    "Content-Type: text/plain; charset=utf-8",
    "",
    `${subject}.`,
    "",
    `Read it, and answer it if you may, in the inbox (sign in first): ${event.data.url}`,
    "",
    `When: ${event.timestamp}`,
    "",
  ].join("\r\n");
}

function sendmail(message: string): Promise<boolean> {
  return new Promise((resolve) => {
    const child = spawn("sendmail", ["-t", "-i"], { stdio: ["pipe", "ignore", "inherit"] });
    child.on("error", () => resolve(false));
    child.on("close", (code) => resolve(code === 0));
    child.stdin.end(message);
  });
}

const secrets = (process.env.LEASH_WEBHOOK_SECRET ?? "").split(/\s+/).filter((secret) => secret !== "");
const to = process.env.MAIL_TO ?? "";
const from = process.env.MAIL_FROM ?? "leash@localhost";
if (secrets.length === 0 || to === "") {
  console.log("Set LEASH_WEBHOOK_SECRET (whsec_...) and MAIL_TO (and MAIL_FROM) to run the mailer.");
} else {
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
        const id = String(request.headers["webhook-id"]);
        if (!seen.has(id)) {
          // A mail not handed over is a non-2xx: leash tries again later, under the same id.
          if (!(await sendmail(mailOf(JSON.parse(body) as LeashEvent, from, to)))) {
            response.writeHead(502).end();
            return;
          }
          seen.add(id);
        }
        response.writeHead(204).end();
      })();
    });
  });
  const port = Number(process.env.PORT ?? 8788);
  server.listen(port, "127.0.0.1", () => {
    const { port: listening } = server.address() as AddressInfo;
    console.log(`Mailing leash webhooks to ${to}, listening on http://127.0.0.1:${listening}/`);
  });
}
