import { hash } from "node:crypto";
import { createServer, type IncomingMessage, type Server, type ServerResponse } from "node:http";
import { isLeashError, messageOf } from "../errors/index.js";
import { parseCosignerSigner } from "../evidence/cosigner-keys.js";
import { parseVerifierKey } from "../evidence/note-keys.js";
import { MAX_NOTE_BYTES } from "../evidence/signed-note.js";
import { addCheckpoint, type WitnessAnswer, type WitnessContext } from "./add-checkpoint.js";
import { WitnessState } from "./witness-state.js";

/** The largest request body read: a note and 63 proof lines, with room to spare. */
const MAX_BODY_BYTES = MAX_NOTE_BYTES + 64 * 1024;

/** How to start a witness. */
export interface WitnessOptions {
  /** The logs witnessed: origin → the verifier keys (their text) trusted for its checkpoints. */
  logs: Readonly<Record<string, readonly string[]>>;
  /** The witness's cosigner signer key (a `cosignerKeygen` key, or a `keygen` one used as a cosigner). */
  signerKey: string;
  /** The SQLite file of its state; absent, in memory (forgotten on restart). */
  db?: string;
  /** The port (0: any free one); default 0. */
  port?: number;
  /** The address listened on; default 127.0.0.1. */
  host?: string;
}

/** A witness that is serving. */
export interface RunningWitness {
  /** The submission (and monitoring) prefix, e.g. `http://127.0.0.1:4123`. */
  url: string;
  /** The witness's cosigner verifier key, for clients to check its cosignatures. */
  verifierKey: string;
  /** Stops serving and closes the state. */
  close(): Promise<void>;
}

/**
 * Starts a C2SP tlog-witness: `POST /add-checkpoint` cosigns a checkpoint consistent with the latest
 * it cosigned for the log, and `GET /<hex SHA-256 of the origin>/checkpoint` serves that latest
 * checkpoint with its cosignature. Resolves once listening.
 *
 * @example
 * const witness = await startWitness({ logs: { "example.com/leash": [logVerifierKey] }, signerKey, db: "w.db" });
 * console.log(witness.url, witness.verifierKey);
 */
export async function startWitness(options: WitnessOptions): Promise<RunningWitness> {
  const signer = parseCosignerSigner(options.signerKey);
  const logs = new Map(Object.entries(options.logs).map(([origin, keys]) => [origin, keys.map(parseVerifierKey)]));
  const state = WitnessState.open(options.db);
  const context: WitnessContext = { logs, signerKey: options.signerKey, state };
  const server = createServer((request, response) => {
    answer(context, request)
      .then((result) => send(response, result))
      .catch((error: unknown) => send(response, failure(error)));
  });
  try {
    await new Promise<void>((resolve, reject) => {
      server.once("error", reject);
      server.listen(options.port ?? 0, options.host ?? "127.0.0.1", () => resolve());
    });
  } catch (error) {
    state.close();
    throw error;
  }
  const address = server.address();
  const port = typeof address === "object" && address !== null ? address.port : options.port;
  const host = (options.host ?? "127.0.0.1").includes(":") ? `[${options.host}]` : (options.host ?? "127.0.0.1");
  return { url: `http://${host}:${port}`, verifierKey: signer.text, close: () => closeAll(server, state) };
}

async function answer(context: WitnessContext, request: IncomingMessage): Promise<WitnessAnswer> {
  const path = new URL(request.url ?? "/", "http://witness").pathname;
  if (path === "/add-checkpoint") {
    if (request.method !== "POST") return plain(405, "add-checkpoint takes a POST.");
    const body = await readBody(request);
    if (body === undefined) return plain(413, `The body is larger than ${MAX_BODY_BYTES} bytes.`);
    let text: string;
    try {
      text = new TextDecoder("utf-8", { fatal: true }).decode(body);
    } catch {
      return plain(400, "Malformed request: the body is not UTF-8.");
    }
    return addCheckpoint(context, text);
  }
  const monitor = /^\/([0-9a-f]{64})\/checkpoint$/.exec(path);
  if (monitor !== null && request.method === "GET") {
    for (const origin of context.logs.keys()) {
      if (hash("sha256", origin, "hex") !== monitor[1]) continue;
      const latest = context.state.latest(origin);
      if (latest !== undefined) return { status: 200, body: latest.note, contentType: "text/plain; charset=utf-8" };
    }
    return plain(404, "This witness has cosigned no checkpoint of that log.");
  }
  return plain(404, "Not found: this witness serves POST /add-checkpoint and GET /<origin hash>/checkpoint.");
}

async function readBody(request: IncomingMessage): Promise<Buffer | undefined> {
  const chunks: Buffer[] = [];
  let length = 0;
  for await (const chunk of request as AsyncIterable<Buffer>) {
    length += chunk.length;
    if (length > MAX_BODY_BYTES) return undefined;
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}

function failure(error: unknown): WitnessAnswer {
  // A busy or failed database decided nothing: the client may try again.
  if (isLeashError(error, "store_busy")) return plain(503, messageOf(error));
  return plain(500, `The witness failed: ${messageOf(error)}`);
}

function send(response: ServerResponse, result: WitnessAnswer): void {
  if (response.headersSent) return;
  // A body too large is not read to its end: close the connection rather than drain it.
  if (result.status === 413) response.setHeader("Connection", "close");
  response.writeHead(result.status, { "Content-Type": result.contentType }).end(result.body);
}

function plain(status: number, message: string): WitnessAnswer {
  return { status, body: `${message}\n`, contentType: "text/plain; charset=utf-8" };
}

async function closeAll(server: Server, state: WitnessState): Promise<void> {
  server.closeAllConnections();
  await new Promise((done) => server.close(done));
  state.close();
}
