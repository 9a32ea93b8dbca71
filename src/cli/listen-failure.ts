import { CliError, EXIT_OPERATIONAL } from "./cli-error.js";

/** Why a server could not listen, as a sentence's end: what Node's error code means for the person. */
function reasonOf(error: unknown): string {
  const code = (error as { code?: unknown } | null)?.code;
  switch (code) {
    case "EADDRINUSE":
      return "another process listens there already; stop it, or pick another port (--port 0 picks a free one)";
    case "EACCES":
      return "this user may not listen on that port (ports below 1024 need privileges); pick another with --port";
    case "EADDRNOTAVAIL":
      return "the address is not one of this machine's; give one of its own with --host";
    default: {
      const message = error instanceof Error ? error.message : String(error);
      return `the system said: ${message.replace(/[.\s]+$/, "")}`;
    }
  }
}

/**
 * The error of a server that could not listen on `host:port` (`leash serve`, `leash witness`):
 * `listen_failed`, exit 3, with a whole sentence that says why and what to do.
 */
export function listenFailure(host: string, port: number, error: unknown): CliError {
  return new CliError("listen_failed", `Could not listen on ${host}:${port}: ${reasonOf(error)}.`, EXIT_OPERATIONAL);
}
