#!/usr/bin/env node
/**
 * The `leash` bin: inspect runs, answer approvals, resume, verify trails, run the demo and the
 * benchmarks. See `leash --help`.
 */
import { runCli } from "./run-cli.js";

const code = await runCli(process.argv);
// Exit once stdout and stderr are flushed: an app module loaded by `resume` may hold handles open
// (a database pool, a timer) that would otherwise keep the process alive after the work is done.
process.stdout.write("", () => process.stderr.write("", () => process.exit(code)));
