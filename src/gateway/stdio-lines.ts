import type { Transport } from "@modelcontextprotocol/sdk/shared/transport.js";
import { JSONRPCMessageSchema } from "@modelcontextprotocol/sdk/types.js";
import type { JSONRPCMessage } from "@modelcontextprotocol/sdk/types.js";

/** How much of a refused message's start and end is kept, to find its request id. */
const KEEP = 256;
const ID_AT_END = /"id"\s*:\s*(-?\d+|"(?:[^"\\]|\\.)*")\s*\}\s*$/;
const ID_AT_START = /^\s*\{\s*"jsonrpc"\s*:\s*"2\.0"\s*,\s*"id"\s*:\s*(-?\d+|"(?:[^"\\]|\\.)*")/;

/**
 * The gateway's stdio transport: newline-delimited JSON-RPC on stdin and stdout, like the MCP SDK's,
 * except that a message longer than `limit` bytes is skipped to its end without being held in memory
 * and refused with a JSON-RPC error (when its id can be read), and a line that is not JSON-RPC is
 * answered with a parse error: the gateway says so on stderr and keeps serving. (The SDK's own
 * transport closes itself on a message past 10 MiB, and the gateway ended without a word.)
 */
export class StdioLines implements Transport {
  onmessage?: (message: JSONRPCMessage) => void;
  onerror?: (error: Error) => void;
  onclose?: () => void;
  readonly #limit: number;
  readonly #say: (line: string) => void;
  readonly #input: NodeJS.ReadableStream;
  readonly #output: NodeJS.WritableStream;
  #parts: Buffer[] = [];
  #size = 0;
  /** While a message past the limit is skipped: its start and its latest end. */
  #skipped: { head: Buffer; tail: Buffer } | undefined;

  constructor(
    limit: number,
    say: (line: string) => void,
    input: NodeJS.ReadableStream = process.stdin,
    output: NodeJS.WritableStream = process.stdout,
  ) {
    this.#limit = limit;
    this.#say = say;
    this.#input = input;
    this.#output = output;
  }

  start(): Promise<void> {
    this.#input.on("data", this.#data);
    return Promise.resolve();
  }

  readonly #data = (chunk: Buffer | string): void => {
    const bytes = typeof chunk === "string" ? Buffer.from(chunk) : chunk;
    let start = 0;
    while (start <= bytes.length) {
      const newline = bytes.indexOf(10, start);
      const end = newline === -1 ? bytes.length : newline;
      this.#take(bytes.subarray(start, end));
      if (newline === -1) return;
      this.#lineEnded();
      start = newline + 1;
    }
  };

  #take(piece: Buffer): void {
    if (piece.length === 0) return;
    if (this.#skipped !== undefined) {
      this.#skipped.tail = Buffer.concat([this.#skipped.tail, piece]).subarray(-KEEP);
      return;
    }
    if (this.#size + piece.length <= this.#limit) {
      this.#parts.push(piece);
      this.#size += piece.length;
      return;
    }
    const seen = Buffer.concat([...this.#parts, piece.subarray(0, KEEP)]);
    this.#skipped = { head: seen.subarray(0, KEEP), tail: piece.subarray(-KEEP) };
    this.#parts = [];
    this.#size = 0;
  }

  #lineEnded(): void {
    const skipped = this.#skipped;
    const line = Buffer.concat(this.#parts).toString("utf8").replace(/\r$/, "");
    this.#parts = [];
    this.#size = 0;
    this.#skipped = undefined;
    if (skipped !== undefined) return this.#refuse(skipped);
    if (line.trim() === "") return;
    let message: JSONRPCMessage;
    try {
      message = JSONRPCMessageSchema.parse(JSON.parse(line));
    } catch (error) {
      this.#say(
        `a message on stdin is not JSON-RPC (${(error as Error).message.slice(0, 200)}); it was answered with a parse error.`,
      );
      void this.send({ jsonrpc: "2.0", id: null, error: { code: -32700, message: "Parse error" } } as never);
      return;
    }
    this.onmessage?.(message);
  }

  #refuse(skipped: { head: Buffer; tail: Buffer }): void {
    const found = ID_AT_END.exec(skipped.tail.toString("latin1")) ?? ID_AT_START.exec(skipped.head.toString("latin1"));
    const message = `leash: the message is larger than the gateway's limit of ${this.#limit} bytes (the config's maxMessageBytes); it was not read.`;
    this.#say(`refused a message on stdin larger than ${this.#limit} bytes (maxMessageBytes); serving on.`);
    if (found?.[1] === undefined) return;
    const id = JSON.parse(found[1]) as string | number;
    void this.send({ jsonrpc: "2.0", id, error: { code: -32600, message } });
  }

  send(message: JSONRPCMessage): Promise<void> {
    return new Promise((resolve) => {
      if (this.#output.write(`${JSON.stringify(message)}\n`)) resolve();
      else this.#output.once("drain", resolve);
    });
  }

  close(): Promise<void> {
    this.#input.off("data", this.#data);
    this.#parts = [];
    this.#skipped = undefined;
    this.onclose?.();
    return Promise.resolve();
  }
}
