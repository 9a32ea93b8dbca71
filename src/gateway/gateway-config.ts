import { readFileSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { Agent } from "../agent/agent.js";
import { Decision } from "../decisions/decision.js";
import { EFFECTS } from "../tools/tool.js";
import { LeashError } from "../errors/leash-error.js";
import type { Effect } from "../tools/tool.js";
import type { Limits } from "../limits/limits.js";
import type { McpSource, McpToolOverride } from "../mcp/index.js";
import { checkBaseUrl, checkHttpUrl } from "../notify/notify-urls.js";
import { readWebhookSecretFile, webhookSecrets } from "../notify/webhook-secret.js";
import type { WebhookSecrets } from "../notify/webhook-secret.js";

/** One upstream MCP server of the gateway: where it is, and which of its tools to offer. */
export interface UpstreamConfig {
  /** The server's name: its tools are offered as `<name>__<tool>`. */
  name: string;
  source: McpSource;
  include?: string[];
  exclude?: string[];
  overrides?: Record<string, McpToolOverride>;
  scopes?: string[];
  timeoutMs?: number;
  /** Whether the server's annotations are believed (`trust`); the gateway's default is `"trusted"`. */
  trust?: "trusted" | "untrusted";
}

/** A bearer token kept in a file (its content, trimmed), and the name of the client that holds it. */
export interface HttpTokenFile {
  /** The file's absolute path (`http.tokenFile`, relative to the config's folder). */
  tokenFile: string;
  /** The client's name (`http.client`), recorded with its calls and answers; `"token-file"` by default. */
  client: string;
}

/** The gateway's configuration, checked. */
export interface GatewayConfig {
  servers: UpstreamConfig[];
  policy: { grantedScopes: string[]; allowEffects: Effect[]; approvalFor?: Effect[]; approvers?: string[] };
  limits: Limits;
  /** How long a call waits for a person's answer before it answers with the run to approve. */
  waitMs: number;
  /** How often a waiting call reads the store for an answer. */
  pollMs: number;
  /**
   * The approver's name under which answers given at the client (MCP elicitation) are recorded; absent,
   * the gateway never asks the client.
   */
  elicitAs?: string;
  /**
   * Whether an answer given at the client (recorded `via: "mcp_elicitation"`) counts as an approval
   * (`approval.elicitationApproves`); false by default: the person at the client is the one whose
   * calls are held, so their own answer approves nothing unless the config says so.
   */
  elicitationApproves: boolean;
  /** The inbox's address (`approval.inbox`), named in the answer to a waiting call; absent, none is named. */
  inbox?: string;
  /** How `--http` knows its clients (`http.tokenFile`, `http.client`); absent, by the approver tokens of the store. */
  httpAuth?: HttpTokenFile;
  /** Origins a browser page may call `--http` from (`http.allowedOrigins`); none by default. */
  allowedOrigins: string[];
  /** How long an `--http` session may stay idle before the gateway closes it, in ms (`http.sessionIdleMs`). */
  sessionIdleMs: number;
  /** The largest request body `--http` reads, and the largest stdio message, in bytes (`maxMessageBytes`). */
  maxMessageBytes: number;
  /**
   * How long a stopping gateway (SIGTERM, SIGINT, stdin's end) lets the calls being executed finish
   * before it exits anyway, in milliseconds (`shutdownMs`).
   */
  shutdownMs: number;
  /**
   * Signed webhooks of the store's outbox (`notify: { url, secretFile | secret, base? }`): where events
   * are posted, the secrets that sign them, and the inbox's address events link to (default
   * `approval.inbox`, then `http://127.0.0.1:7777`); absent, none are sent.
   */
  notify?: { url: string; secrets: WebhookSecrets; base: string };
}

/** The largest message the gateway reads when the config does not say: 4 MiB. */
export const DEFAULT_MAX_MESSAGE_BYTES = 4 * 1024 * 1024;

/** How long a stopping gateway lets calls in flight finish when the config does not say: 10 s. */
export const DEFAULT_SHUTDOWN_MS = 10_000;

/**
 * How long a call waits for an answer when the config does not say: 50 s, under the 60 s an SDK
 * Client waits for a request by default, so the client hears which run to approve before it gives up.
 */
export const DEFAULT_WAIT_MS = 50_000;

/** How long an `--http` session may stay idle when the config does not say: 30 minutes. */
export const DEFAULT_SESSION_IDLE_MS = 30 * 60_000;
const DEFAULT_POLL_MS = 500;
const SERVER_NAME = /^[A-Za-z0-9_-]{1,32}$/;

type Fields = Record<string, unknown>;

function fail(file: string, message: string): never {
  throw new LeashError("invalid_config", `The gateway config ${file} is not usable: ${message}`);
}

function object(file: string, value: unknown, where: string): Fields {
  if (typeof value !== "object" || value === null || Array.isArray(value)) fail(file, `${where} must be an object.`);
  return value as Fields;
}

function only(file: string, fields: Fields, where: string, known: readonly string[]): void {
  for (const key of Object.keys(fields))
    if (!known.includes(key)) fail(file, `${where} has an unknown field \`${key}\` (known: ${known.join(", ")}).`);
}

/**
 * Refuses a field of one part of the config that is not in that part's list of
 * {@link GATEWAY_CONFIG_FIELDS}: a misspelt field (`allowEffect`) would silently keep its default.
 */
function checkConfigFields(
  file: string,
  fields: Fields,
  where: string,
  part: keyof typeof GATEWAY_CONFIG_FIELDS,
): void {
  only(file, fields, where, GATEWAY_CONFIG_FIELDS[part]);
}

function strings(file: string, value: unknown, where: string): string[] | undefined {
  if (value === undefined) return undefined;
  if (!Array.isArray(value) || !value.every((item) => typeof item === "string" && item !== ""))
    fail(file, `${where} must be an array of non-empty strings.`);
  return value as string[];
}

function record(file: string, value: unknown, where: string): Record<string, string> | undefined {
  if (value === undefined) return undefined;
  const fields = object(file, value, where);
  for (const [key, item] of Object.entries(fields))
    if (typeof item !== "string") fail(file, `${where}.${key} must be a string.`);
  return fields as Record<string, string>;
}

function effects(file: string, value: unknown, where: string): Effect[] | undefined {
  const list = strings(file, value, where);
  for (const item of list ?? [])
    if (!(EFFECTS as readonly string[]).includes(item))
      fail(file, `${where} has \`${item}\`; effects are ${EFFECTS.join(", ")}.`);
  return list as Effect[] | undefined;
}

function positive(file: string, value: unknown, where: string, fallback: number): number {
  if (value === undefined) return fallback;
  if (typeof value !== "number" || !Number.isInteger(value) || value <= 0)
    fail(file, `${where} must be a positive integer.`);
  return value;
}

/** A positive integer a Node timer can wait (at most 2^31 - 1 ms; a longer one fires at once). */
function timerMs(file: string, value: unknown, where: string, fallback: number): number {
  const ms = positive(file, value, where, fallback);
  if (ms > 2 ** 31 - 1) fail(file, `${where} must be a positive integer up to 2147483647 (2^31 - 1).`);
  return ms;
}

function sourceOf(file: string, fields: Fields, where: string, base: string): McpSource {
  if ((fields.command === undefined) === (fields.url === undefined))
    fail(file, `${where} needs either \`command\` (stdio) or \`url\` (Streamable HTTP), not both.`);
  if (fields.url !== undefined) {
    if (typeof fields.url !== "string" || !URL.canParse(fields.url)) fail(file, `${where}.url must be a URL.`);
    const headers = record(file, fields.headers, `${where}.headers`);
    return { url: fields.url, ...(headers === undefined ? {} : { headers }) };
  }
  if (typeof fields.command !== "string" || fields.command === "") fail(file, `${where}.command must be a string.`);
  const args = fields.args === undefined ? undefined : strings(file, fields.args, `${where}.args`);
  const env = record(file, fields.env, `${where}.env`);
  if (fields.cwd !== undefined && typeof fields.cwd !== "string") fail(file, `${where}.cwd must be a string.`);
  return {
    command: fields.command,
    ...(args === undefined ? {} : { args }),
    ...(env === undefined ? {} : { env }),
    // A relative folder is taken from the config file's folder, wherever the gateway starts.
    ...(fields.cwd === undefined ? {} : { cwd: resolve(base, fields.cwd) }),
  };
}

const SERVER_FIELDS = [
  "command",
  "args",
  "env",
  "cwd",
  "url",
  "headers",
  "include",
  "exclude",
  "overrides",
  "scopes",
  "timeoutMs",
  "trust",
];

/** The fields each part of a gateway config may hold; a new config field is added to its part's list. */
export const GATEWAY_CONFIG_FIELDS = {
  config: ["servers", "policy", "limits", "approval", "http", "maxMessageBytes", "shutdownMs", "notify"],
  notify: ["url", "secretFile", "secret", "base"],
  http: ["allowedOrigins", "sessionIdleMs", "tokenFile", "client"],
  policy: ["grantedScopes", "allowEffects", "approvalFor", "approvers"],
  approval: ["waitMs", "pollMs", "elicitAs", "elicitationApproves", "inbox"],
  server: SERVER_FIELDS,
  override: ["effect", "idempotent", "scopes"],
} as const satisfies Record<string, readonly string[]>;

function serverOf(file: string, name: string, value: unknown, base: string): UpstreamConfig {
  const where = `servers.${name}`;
  if (!SERVER_NAME.test(name)) fail(file, `the server name \`${name}\` must be 1 to 32 letters, digits, _ or -.`);
  const fields = object(file, value, where);
  checkConfigFields(file, fields, where, "server");
  const server: UpstreamConfig = { name, source: sourceOf(file, fields, where, base) };
  const include = strings(file, fields.include, `${where}.include`);
  const exclude = strings(file, fields.exclude, `${where}.exclude`);
  const scopes = strings(file, fields.scopes, `${where}.scopes`);
  if (include !== undefined) server.include = include;
  if (exclude !== undefined) server.exclude = exclude;
  if (scopes !== undefined) server.scopes = scopes;
  if (fields.overrides !== undefined) {
    const overrides = object(file, fields.overrides, `${where}.overrides`);
    for (const [tool, override] of Object.entries(overrides)) {
      const at = `${where}.overrides.${tool}`;
      checkConfigFields(file, object(file, override, at), at, "override");
    }
    server.overrides = overrides as never;
  }
  if (fields.trust !== undefined) {
    if (fields.trust !== "trusted" && fields.trust !== "untrusted")
      fail(file, `${where}.trust must be "trusted" or "untrusted".`);
    server.trust = fields.trust;
  }
  if (fields.timeoutMs !== undefined) server.timeoutMs = positive(file, fields.timeoutMs, `${where}.timeoutMs`, 1);
  return server;
}

/** The limits, checked as an agent checks them (the gateway uses the public API only). */
function checkedLimits(file: string, value: unknown): Limits {
  const limits = object(file, value ?? {}, "`limits`") as Limits;
  try {
    new Agent({ tools: [], planner: () => Decision.finish(null), limits });
  } catch (error) {
    fail(file, (error as Error).message);
  }
  return limits;
}

/** `approval.elicitationApproves` (a boolean, false by default) and `approval.inbox` (an http(s) URL). */
function elicitationOf(file: string, approval: Fields): { elicitationApproves: boolean; inbox?: string } {
  const approves = approval.elicitationApproves ?? false;
  if (typeof approves !== "boolean") fail(file, "approval.elicitationApproves must be true or false.");
  const inbox = approval.inbox;
  if (inbox === undefined) return { elicitationApproves: approves };
  if (typeof inbox !== "string" || !URL.canParse(inbox) || !/^https?:$/.test(new URL(inbox).protocol))
    fail(file, "approval.inbox must be the inbox's http:// or https:// address.");
  return { elicitationApproves: approves, inbox };
}

/** `http.tokenFile` (a path, from the config's folder) and `http.client` (the name of its holder). */
function httpAuthOf(file: string, http: Fields, base: string): { httpAuth?: HttpTokenFile } {
  if (http.tokenFile === undefined) {
    if (http.client !== undefined) fail(file, "http.client names the holder of http.tokenFile, which is not given.");
    return {};
  }
  if (typeof http.tokenFile !== "string" || http.tokenFile === "")
    fail(file, "http.tokenFile must be the path of a file that holds the bearer token.");
  const client = http.client ?? "token-file";
  if (typeof client !== "string" || !/^[A-Za-z0-9_.@-]{1,64}$/.test(client))
    fail(file, "http.client must be 1 to 64 letters, digits or . _ @ -.");
  return { httpAuth: { tokenFile: resolve(base, http.tokenFile), client } };
}

/**
 * `notify`: the webhook's URL, its secret (`secretFile`, a path from the config's folder, or `secret`,
 * one `whsec_...` string or several), and `base`. A problem is the config's (`invalid_config`), named by
 * its field; a secret is never quoted.
 */
function notifyOf(file: string, value: unknown, base: string, inbox: string | undefined): GatewayConfig["notify"] {
  if (value === undefined) return undefined;
  const notify = object(file, value, "`notify`");
  checkConfigFields(file, notify, "notify", "notify");
  if ((notify.secretFile === undefined) === (notify.secret === undefined))
    fail(file, "notify needs its secret as either `secretFile` (a file of whsec_... lines) or `secret`, not both.");
  try {
    const url = checkHttpUrl(notify.url, "notify.url").href;
    const inboxBase = checkBaseUrl(notify.base ?? inbox ?? "http://127.0.0.1:7777", "notify.base");
    if (notify.secretFile !== undefined && (typeof notify.secretFile !== "string" || notify.secretFile === ""))
      fail(file, "notify.secretFile must be the path of the file that holds the secret.");
    const secrets =
      notify.secretFile !== undefined
        ? readWebhookSecretFile(resolve(base, notify.secretFile))
        : webhookSecrets(notify.secret as string | string[]);
    return { url, secrets, base: inboxBase };
  } catch (error) {
    if (error instanceof LeashError && error.code === "invalid_option") fail(file, error.message);
    throw error;
  }
}

function optionalNotify(notify: GatewayConfig["notify"]): { notify?: NonNullable<GatewayConfig["notify"]> } {
  return notify === undefined ? {} : { notify };
}

/** Checks a parsed config; `file` names it in messages, and relative `cwd`s are taken from `base`. */
export function checkGatewayConfig(value: unknown, file: string, base: string): GatewayConfig {
  const fields = object(file, value, "the config");
  checkConfigFields(file, fields, "the config", "config");
  const http = object(file, fields.http ?? {}, "`http`");
  checkConfigFields(file, http, "http", "http");
  const allowedOrigins = strings(file, http.allowedOrigins, "http.allowedOrigins") ?? [];
  const servers = object(file, fields.servers, "`servers`");
  const names = Object.keys(servers);
  if (names.length === 0) fail(file, "`servers` lists no server.");
  const policy = object(file, fields.policy ?? {}, "`policy`");
  checkConfigFields(file, policy, "policy", "policy");
  const approval = object(file, fields.approval ?? {}, "`approval`");
  checkConfigFields(file, approval, "approval", "approval");
  if (approval.elicitAs !== undefined && (typeof approval.elicitAs !== "string" || approval.elicitAs.trim() === ""))
    fail(file, "approval.elicitAs must name the approver of answers given at the client.");
  const limits = checkedLimits(file, fields.limits);
  const approvalFor = effects(file, policy.approvalFor, "policy.approvalFor");
  const approvers = strings(file, policy.approvers, "policy.approvers");
  return {
    servers: names.map((name) => serverOf(file, name, servers[name], base)),
    policy: {
      grantedScopes: strings(file, policy.grantedScopes, "policy.grantedScopes") ?? [],
      allowEffects: effects(file, policy.allowEffects, "policy.allowEffects") ?? ["read"],
      ...(approvalFor === undefined ? {} : { approvalFor }),
      ...(approvers === undefined ? {} : { approvers }),
    },
    limits,
    waitMs: positive(file, approval.waitMs, "approval.waitMs", DEFAULT_WAIT_MS),
    pollMs: positive(file, approval.pollMs, "approval.pollMs", DEFAULT_POLL_MS),
    ...(approval.elicitAs === undefined ? {} : { elicitAs: approval.elicitAs }),
    ...elicitationOf(file, approval),
    ...httpAuthOf(file, http, base),
    allowedOrigins,
    sessionIdleMs: timerMs(file, http.sessionIdleMs, "http.sessionIdleMs", DEFAULT_SESSION_IDLE_MS),
    maxMessageBytes: positive(file, fields.maxMessageBytes, "maxMessageBytes", DEFAULT_MAX_MESSAGE_BYTES),
    shutdownMs: timerMs(file, fields.shutdownMs, "shutdownMs", DEFAULT_SHUTDOWN_MS),
    ...optionalNotify(notifyOf(file, fields.notify, base, elicitationOf(file, approval).inbox)),
  };
}

/**
 * Reads and checks the gateway's config file (JSON). A file that is missing, is not JSON or says
 * something wrong is a `LeashError` `invalid_config` (the command line exits 2) that says what to fix.
 *
 * @example
 * const config = readGatewayConfig("gateway.json");
 */
export function readGatewayConfig(path: string): GatewayConfig {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (error) {
    throw new LeashError("invalid_config", `Could not read the gateway config ${path}: ${(error as Error).message}`);
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw new LeashError("invalid_config", `The gateway config ${path} is not JSON: ${(error as Error).message}`);
  }
  return checkGatewayConfig(parsed, path, dirname(resolve(path)));
}
