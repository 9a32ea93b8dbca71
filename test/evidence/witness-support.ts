import { spawn, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createInterface } from "node:readline";
import { keygen } from "../../src/index.js";
import { signNote } from "../../src/evidence/index.js";
import { bin, requireBuiltBin } from "../cli/cli-helpers.js";
import { specProof, specRoot } from "./spec-checker.js";

/** A log for the tests: random leaf hashes, its roots and proofs from the spec checker, its key. */
export class TestLog {
  readonly leaves: Buffer[] = [];
  readonly keys: { signerKey: string; verifierKey: string };

  constructor(
    readonly origin = "example.com/leash",
    keys?: { signerKey: string; verifierKey: string },
  ) {
    this.keys = keys ?? keygen(origin);
  }

  /** Appends `count` random leaves and returns the log. */
  grow(count: number): this {
    for (let index = 0; index < count; index++) this.leaves.push(randomBytes(32));
    return this;
  }

  /** A copy holding the same first `size` leaves, signed by the same key: a fork once it grows. */
  fork(size: number): TestLog {
    const other = new TestLog(this.origin, this.keys);
    other.leaves.push(...this.leaves.slice(0, size));
    return other;
  }

  /** The signed checkpoint of the first `size` leaves (default all). */
  checkpoint(size = this.leaves.length, signerKey = this.keys.signerKey): string {
    const root = specRoot(this.leaves.slice(0, size)).toString("base64");
    return signNote(`${this.origin}\n${size}\n${root}\n`, signerKey);
  }

  /** The consistency proof from `oldSize` to `size` (default all). */
  proof(oldSize: number, size = this.leaves.length): Buffer[] {
    return specProof(oldSize, this.leaves.slice(0, size));
  }

  /** The `add-checkpoint` body from `oldSize` to the checkpoint of `size` (no proof when there is none). */
  body(oldSize: number, size = this.leaves.length, note = this.checkpoint(size)): string {
    const lines =
      oldSize === 0 || oldSize >= size ? [] : this.proof(oldSize, size).map((hash) => `${hash.toString("base64")}\n`);
    return `old ${oldSize}\n${lines.join("")}\n${note}`;
  }
}

/** A witness in another process: the built bin, `leash witness`. */
export interface WitnessProcess {
  url: string;
  verifierKey: string;
  child: ChildProcess;
  /** Resolves with the exit code (or the signal) once the process ends. */
  exited: Promise<number | string>;
}

/** A folder with a witness key file in it, removed by `remove`. */
export function witnessFolder(name = "witness.example/w1"): { dir: string; keyFile: string; remove: () => void } {
  const dir = mkdtempSync(join(tmpdir(), "leash-witness-"));
  const keyFile = join(dir, "witness.key");
  writeFileSync(keyFile, `${keygen(name).signerKey}\n`, { mode: 0o600 });
  return { dir, keyFile, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

/** Starts `leash witness --port 0` and waits for the lines that give its URL and verifier key. */
export async function startWitnessProcess(args: string[]): Promise<WitnessProcess> {
  requireBuiltBin();
  const child = spawn(process.execPath, [bin, "witness", "--port", "0", ...args], {
    stdio: ["ignore", "pipe", "pipe"],
    env: { ...process.env, LEASH_DEBUG: "" },
  });
  const exited = new Promise<number | string>((resolve) =>
    child.once("exit", (code, signal) => resolve(code ?? signal ?? -1)),
  );
  let stderr = "";
  child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  const lines = createInterface({ input: child.stdout });
  let url: string | undefined;
  let verifierKey: string | undefined;
  for await (const line of lines) {
    url ??= /^Witness listening on (\S+)$/.exec(line)?.[1];
    verifierKey ??= /^Verifier key: (\S+)$/.exec(line)?.[1];
    if (url !== undefined && verifierKey !== undefined) break;
  }
  if (url === undefined || verifierKey === undefined) {
    throw new Error(`leash witness did not start (exit ${String(await exited)}): ${stderr}`);
  }
  return { url, verifierKey, child, exited };
}

/** Stops a witness with SIGTERM and returns its exit code. */
export async function stopWitness(witness: WitnessProcess): Promise<number | string> {
  if (witness.child.exitCode === null && witness.child.signalCode === null) witness.child.kill("SIGTERM");
  return witness.exited;
}

/** POSTs a body to the witness's add-checkpoint and returns the status, the body and its media type. */
export async function post(url: string, body: string): Promise<{ status: number; text: string; type: string }> {
  const response = await fetch(`${url}/add-checkpoint`, { method: "POST", body });
  return { status: response.status, text: await response.text(), type: response.headers.get("content-type") ?? "" };
}

/** What a test registers its clean-up with: node:test's test context. */
export interface AfterHook {
  after: (fn: () => Promise<void> | void) => void;
}

/** The arguments of `leash witness` for one log, its key in `keyFile` and its state in `db` (none: no `--db`). */
export function witnessArgs(keyFile: string, db: string | undefined, origin: string, verifierKey: string): string[] {
  return ["--key-file", keyFile, ...(db === undefined ? [] : ["--db", db]), "--log", `${origin}=${verifierKey}`];
}

/**
 * A witness of the log `origin` (signed by `verifierKey`) in another process, with a key of its own
 * named `name` in a folder of its own and its state in `witness.db` there (`db: false`: no `--db`);
 * stopped and its folder removed after the test.
 */
export async function witnessOf(
  t: AfterHook,
  origin: string,
  verifierKey: string,
  options: { name?: string; db?: boolean } = {},
): Promise<WitnessProcess & { dir: string; keyFile: string }> {
  const folder = witnessFolder(options.name);
  const db = options.db === false ? undefined : join(folder.dir, "witness.db");
  const witness = await startWitnessProcess(witnessArgs(folder.keyFile, db, origin, verifierKey));
  t.after(async () => {
    await stopWitness(witness);
    folder.remove();
  });
  return { ...witness, dir: folder.dir, keyFile: folder.keyFile };
}

/** Two witnesses of the log, each in its own process with its own key and database. */
export async function twoWitnesses(t: AfterHook, origin: string, verifierKey: string): Promise<WitnessProcess[]> {
  const witnesses: WitnessProcess[] = [];
  for (const name of ["witness.example/w1", "witness.example/w2"]) {
    witnesses.push(await witnessOf(t, origin, verifierKey, { name }));
  }
  return witnesses;
}
