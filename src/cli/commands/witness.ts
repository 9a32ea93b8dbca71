import { Command } from "commander";
import { CliError } from "../cli-error.js";
import { checkLogKey } from "../evidence/key-option.js";
import { readKeyFile } from "../evidence/read-key.js";
import { listenFailure } from "../listen-failure.js";
import { printJsonLine, printLines } from "../print.js";

interface WitnessCommandOptions {
  port: string;
  host: string;
  keyFile: string;
  db?: string;
  log: string[];
  config?: string;
  json?: boolean;
}

function portOf(text: string): number {
  const port = Number(text);
  if (!/^\d+$/.test(text) || port > 65535)
    throw new CliError("invalid_option", "Expected --port to be a port number from 0 to 65535 (0 picks a free one).");
  return port;
}

/**
 * `leash witness --port P --key-file FILE [--db FILE] --log ORIGIN=VERIFIERKEY…`: a C2SP tlog-witness
 * that cosigns the checkpoints of the logs given, keeping the latest per log in the SQLite file `--db`.
 * It prints its URL and its cosigner verifier key, and serves until SIGTERM or SIGINT (exit 0).
 */
export function witnessCommand(): Command {
  return new Command("witness")
    .description("serve a C2SP tlog-witness: cosign the checkpoints of the logs given, refusing rollbacks and forks")
    .requiredOption("--port <port>", "the port to listen on (0: any free port)")
    .option("--host <address>", "the address to listen on", "127.0.0.1")
    .requiredOption("--key-file <file>", "the witness's signer key (from `leash keygen`): it signs the cosignatures")
    .option(
      "--db <file>",
      "the SQLite file of the latest checkpoint cosigned per log (default: in memory, lost on exit)",
    )
    .option(
      "--log <origin=key>",
      "a log to witness: its origin, `=`, its verifier key (repeat for each log or key)",
      (value: string, previous: string[]) => [...previous, value],
      [] as string[],
    )
    .option("--config <file>", 'a JSON file { "logs": { "<origin>": ["<verifier key>", ...] } }')
    .option("--json", "print the start line as one JSON document")
    .action(async (options: WitnessCommandOptions) => {
      const port = portOf(options.port);
      const signerKey = readKeyFile(options.keyFile);
      if (!signerKey.startsWith("PRIVATE+KEY+"))
        throw new CliError(
          "invalid_option",
          `The key file ${options.keyFile} holds no signer key (a signer key starts with PRIVATE+KEY+). Give --key-file the file \`leash keygen --out FILE\` wrote for the witness; the verifier key keygen printed is not the one to share: the witness prints its own when it starts.`,
        );
      const { startWitness, witnessLogs } = await import("../../witness/index.js");
      // A witness's own cosigner key given for a log is named as such before the logs are read.
      for (const entry of options.log) {
        const key = /=([^=+\s]+\+[0-9a-f]{8}\+.*)$/s.exec(entry)?.[1];
        if (key !== undefined) checkLogKey(`--log ${entry.slice(0, entry.length - key.length - 1)}=KEY`, key.trim());
      }
      const logs = witnessLogs(options.log, options.config);
      const witness = await startWitness({
        logs,
        signerKey,
        port,
        host: options.host,
        ...(options.db === undefined ? {} : { db: options.db }),
      }).catch((error: unknown) => {
        const code = (error as { code?: unknown }).code;
        if (typeof code === "string" && /^E[A-Z]+$/.test(code)) throw listenFailure(options.host, port, error);
        throw error;
      });
      const origins = Object.keys(logs);
      if (options.json) {
        printJsonLine({ url: witness.url, verifierKey: witness.verifierKey, logs: origins, db: options.db ?? null });
      } else {
        printLines([
          `Witness listening on ${witness.url}`,
          `Verifier key: ${witness.verifierKey}`,
          "That is the witness's cosigner verifier key: give it to whoever checks its cosignatures (leash checkpoint --witness URL=KEY, leash verify --witness-key KEY), not the key leash keygen printed.",
          `It witnesses ${origins.length === 1 ? "1 log" : `${origins.length} logs`}: ${origins.join(", ")}.`,
          options.db === undefined
            ? "It keeps the latest checkpoint it cosigned per log in memory, lost when it stops; give --db FILE to keep it."
            : `It keeps the latest checkpoint it cosigned per log in ${options.db}.`,
        ]);
      }
      await new Promise<void>((done) => {
        process.once("SIGTERM", done);
        process.once("SIGINT", done);
      });
      await witness.close();
    });
}
