/** The CLI without the process around it: `main(argv, io)` resolves with the exit code. */
import { loadWs } from '../transports/ws/load-ws.js';
import { parseCli, USAGE, UsageError } from './args.js';
import { runDemo } from './demo.js';
import { ExitCode } from './exit-codes.js';
import { forHumans } from './output.js';
import { type CliIO, runSession } from './session.js';

/** The package version, inlined at build time (see tsup.config.ts); `'dev'` when run from source. */
declare const __VERSION__: string | undefined;

/** The real process: stdio, Ctrl-C, and `ws` from the package's dependencies or the app's. */
export const processIO: CliIO = {
  stdin: process.stdin,
  stdout: process.stdout,
  stderr: process.stderr,
  onInterrupt(handler) {
    process.on('SIGINT', handler);
    return () => process.off('SIGINT', handler);
  },
  loadWs,
};

/** Runs the CLI with `argv` (the arguments after the command name). */
export async function main(argv: readonly string[], io: CliIO = processIO): Promise<number> {
  try {
    const options = parseCli(argv);
    switch (options.mode) {
      case 'help':
        io.stdout.write(USAGE);
        return ExitCode.Ok;
      case 'version':
        io.stdout.write(`${typeof __VERSION__ === 'string' ? __VERSION__ : 'dev'}\n`);
        return ExitCode.Ok;
      case 'demo':
        return (await runDemo({ clients: options.clients }, io)).code;
      default:
        return await runSession(options, io);
    }
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    io.stderr.write(`resilient-socket: ${forHumans(error.message)}\nRun \`resilient-socket --help\` for usage.\n`);
    return ExitCode.Usage;
  }
}
