#!/usr/bin/env node
/**
 * The `resilient-socket` command: `resilient-socket <ws-url> [options]` or `resilient-socket --demo`.
 * `resilient-socket --help` lists the flags and the exit codes.
 */
import { main } from './main.js';

const code = await main(process.argv.slice(2));
process.exitCode = code;
// Everything is closed by now and Node exits by itself. Should anything still hold the process
// (a stdin that will not close), this unref'd timer ends it without delaying a normal exit.
setTimeout(() => process.exit(code), 1_000).unref();
