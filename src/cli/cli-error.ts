/** Exit status of a usage or input error: a bad option, a missing file, an unknown run. */
export const EXIT_USAGE = 2;

/** Exit status of a failed check (a trail that does not verify) or of a failure while working on a run. */
export const EXIT_FAILURE = 1;

/**
 * Exit status of an operational failure of the store: a database that cannot be reached or read, a
 * store that is busy, a sink that fails. Nothing was decided: try again. Apart from 1, so that
 * `verify` exits 1 only when it found problems.
 */
export const EXIT_OPERATIONAL = 3;

/**
 * An error of the command line itself (not of leash's core): a code for scripts to match on and the
 * exit status the process ends with. Printed as one line, `leash: <message> (<code>)`.
 */
export class CliError extends Error {
  readonly code: string;
  readonly exitCode: number;

  constructor(code: string, message: string, exitCode: number = EXIT_USAGE) {
    super(message);
    this.name = new.target.name;
    this.code = code;
    this.exitCode = exitCode;
  }
}
