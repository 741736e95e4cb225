/**
 * `resilient-socket <url>`: one ResilientSocket between the terminal (or a pipe) and a server.
 * Input lines are sent (buffered while down); received messages go to stdout; status and events
 * go to stderr (or, with `--json`, everything goes to stdout as one JSON object per line).
 */
import { createInterface, type Interface } from 'node:readline';
import { MAX_TIMER_DELAY } from '../backoff/policy.js';
import type { BackoffPolicyLike } from '../backoff/types.js';
import { byteLengthOf, type Data } from '../data.js';
import { ResilientSocket } from '../node.js';
import type { ResilientSocketOptions } from '../resilient-socket/options.js';
import type { WebSocketConstructorLike } from '../transports/websocket-like.js';
import type { CliOptions } from './args.js';
import { createBackoff } from './backoff.js';
import { ExitCode } from './exit-codes.js';
import { usageErrorFrom } from './flags.js';
import { Output } from './output.js';
import { statusLine } from './status.js';

/** The process around the CLI, injectable for tests. */
export interface CliIO {
  readonly stdin: NodeJS.ReadableStream & { isTTY?: boolean };
  readonly stdout: NodeJS.WritableStream & { isTTY?: boolean };
  readonly stderr: NodeJS.WritableStream & { isTTY?: boolean };
  /** Registers a Ctrl-C handler; returns a function that removes it. */
  onInterrupt(handler: () => void): () => void;
  /** Loads `ws` (needed for headers); `undefined` when it is not installed. */
  loadWs(): WebSocketConstructorLike | undefined;
}

/** Runs a session until it is done; resolves with the exit code. */
export function runSession(options: CliOptions, io: CliIO): Promise<number> {
  return new Session(options, io).run();
}

class Session {
  readonly #options: CliOptions;
  readonly #io: CliIO;
  readonly #out: Output;
  readonly #interactive: boolean;
  #socket: ResilientSocket | undefined;
  #lines: Interface | undefined;
  #inputOver = false;
  #received = 0;
  #dropped = 0;
  #exitCode: number | undefined;
  #statusTimer: ReturnType<typeof setInterval> | undefined;
  #deadline: ReturnType<typeof setTimeout> | undefined;
  #lingering: ReturnType<typeof setTimeout> | undefined;
  #finished!: (code: number) => void;

  constructor(options: CliOptions, io: CliIO) {
    this.#options = options;
    this.#io = io;
    this.#interactive = options.send.length === 0 && io.stdin.isTTY === true && !options.json;
    this.#out = new Output(io, { json: options.json, quiet: options.quiet });
  }

  run(): Promise<number> {
    const done = new Promise<number>((resolve) => {
      this.#finished = resolve;
    });
    const socket = this.#createSocket();
    if (socket === undefined) return Promise.resolve(ExitCode.Usage);
    this.#socket = socket;
    this.#watch(socket);
    const removeInterrupt = this.#io.onInterrupt(() => this.#end(ExitCode.Interrupted, 'interrupted'));
    if (Number.isFinite(this.#options.timeout)) {
      this.#deadline = setTimeout(
        () => this.#end(ExitCode.Timeout, `timed out after ${this.#options.timeout} ms`),
        timerDelay(this.#options.timeout),
      );
    }
    if (this.#options.send.length > 0) {
      for (const message of this.#options.send) this.#send(message);
      this.#inputOver = true;
      this.#maybeDone();
    } else {
      this.#readInput();
    }
    return done.finally(removeInterrupt);
  }

  #createSocket(): ResilientSocket | undefined {
    const o = this.#options;
    const hasHeaders = Object.keys(o.headers).length > 0;
    // Headers need ws; otherwise the package chooses (the global WebSocket, then ws).
    const WebSocket = hasHeaders ? this.#io.loadWs() : undefined;
    if (hasHeaders && WebSocket === undefined) {
      this.#out.problem('`--header` needs the ws package: npm install ws (or npx -p resilient-socket -p ws …)');
      return undefined;
    }
    const backoff: BackoffPolicyLike = createBackoff(o);
    const socketOptions: ResilientSocketOptions = {
      backoff,
      maxRetries: o.maxRetries,
      connectTimeout: o.connectTimeout,
      heartbeat: o.heartbeat === false ? false : { interval: o.heartbeat, timeout: Math.min(o.heartbeat, 10_000) },
      // Typed input is what the user wants delivered: queue a lot of it rather than drop any.
      buffer: { maxMessages: 10_000, maxBytes: 16 * 1_048_576 },
      binaryType: 'arraybuffer',
      ...(o.protocols.length > 0 ? { protocols: [...o.protocols] } : {}),
      ...(hasHeaders ? { wsOptions: { headers: { ...o.headers } } } : {}),
      ...(WebSocket ? { WebSocket } : {}),
    };
    try {
      return new ResilientSocket(o.url, socketOptions);
    } catch (error) {
      // An option the library refuses came from a flag: a usage error naming it (main prints it).
      const usage = usageErrorFrom(error);
      if (usage) throw usage;
      this.#out.problem((error as Error).message);
      return undefined;
    }
  }

  #watch(socket: ResilientSocket): void {
    const out = this.#out;
    // An attempt that never opened is told by its error line; only a connection that was open is
    // told closed (JSON records every close).
    let open = false;
    socket.on('connecting', ({ attempt, url }) =>
      out.event('connecting', `connecting to ${url} (attempt ${attempt})`, { attempt, url }),
    );
    socket.on('open', ({ attempt, reconnected }) => {
      open = true;
      out.event('open', reconnected ? `reconnected (attempt ${attempt})` : 'connected', { attempt, reconnected });
      this.#maybeDone();
    });
    socket.on('close', ({ code, reason, willReconnect }) => {
      const why = reason ? `${code} ${reason}` : `${code}`;
      const text = open ? `connection closed (${why})${willReconnect ? '' : ', not retrying'}` : undefined;
      open = false;
      out.event('close', text, { code, reason, willReconnect });
    });
    socket.on('reconnecting', ({ attempt, delay }) =>
      out.event('reconnecting', `attempt ${attempt} in ${Math.round(delay)} ms`, { attempt, delay: Math.round(delay) }),
    );
    socket.on('error', (error) =>
      out.event('error', `${error.code}: ${error.message}`, { code: error.code, message: error.message }, true),
    );
    socket.on('drop', ({ reason, messages }) => {
      this.#dropped += messages.length;
      out.event(
        'drop',
        `dropped ${messages.length} message(s) (${reason}): ${messages.map(preview).join(', ')}`,
        {
          reason,
          messages: messages.map((m) => Output.encode(m)),
        },
        true,
      );
    });
    socket.on('giveup', ({ attempts, error }) => {
      out.event(
        'giveup',
        `gave up after ${attempts} attempt(s): ${error.message}`,
        { attempts, code: error.code },
        true,
      );
      this.#end(ExitCode.GaveUp, 'gave up');
    });
    socket.on('state', ({ previous, current, reason }) => {
      out.state(statusLine(socket), { previous, current, reason });
      this.#tickStatus(current === 'reconnecting');
    });
    socket.on('message', (data: Data) => {
      // Replies that arrive while closing are still printed (a server answers before it sees our
      // close frame), but never more than `--count`.
      if (this.#received >= this.#options.count) return;
      this.#received += 1;
      out.message(data);
      if (this.#received >= this.#options.count) this.#end(ExitCode.Ok, `received ${this.#received} message(s)`);
    });
  }

  /** While waiting out a backoff delay, redraw the status line so its countdown moves. */
  #tickStatus(on: boolean): void {
    if (!this.#interactive) return;
    if (on && this.#statusTimer === undefined) {
      this.#statusTimer = setInterval(() => {
        if (this.#socket) this.#out.state(statusLine(this.#socket));
      }, 200);
    } else if (!on && this.#statusTimer !== undefined) {
      clearInterval(this.#statusTimer);
      this.#statusTimer = undefined;
    }
  }

  #readInput(): void {
    const lines = createInterface({
      input: this.#io.stdin,
      ...(this.#interactive ? { output: this.#io.stderr, terminal: true } : { terminal: false }),
    });
    this.#lines = lines;
    this.#out.attach(this.#interactive ? lines : undefined);
    if (this.#socket) this.#out.state(statusLine(this.#socket));
    lines.on('line', (line) => this.#onLine(line));
    lines.on('close', () => {
      this.#lines = undefined;
      this.#out.attach(undefined);
      this.#inputOver = true;
      this.#maybeDone();
    });
    // readline turns Ctrl-C into 'SIGINT' on the interface when it owns a terminal.
    lines.on('SIGINT', () => this.#end(ExitCode.Interrupted, 'interrupted'));
  }

  #onLine(line: string): void {
    const socket = this.#socket;
    if (!socket) return;
    if (this.#interactive && line.startsWith('/') && !line.startsWith('//')) {
      this.#command(socket, line.slice(1).trim().split(/\s+/)[0] ?? '');
      return;
    }
    this.#send(this.#interactive && line.startsWith('//') ? line.slice(1) : line);
  }

  #command(socket: ResilientSocket, command: string): void {
    if (command === 'quit' || command === 'exit') this.#end(ExitCode.Ok, 'quit');
    else if (command === 'reconnect') socket.reconnect();
    else if (command === 'stats') this.#out.info(JSON.stringify(socket.stats));
    else if (command === 'help') this.#out.info('/quit, /reconnect, /stats, /help; //text sends "/text"');
    else this.#out.info(`unknown command /${command}; /help lists them`);
  }

  #send(message: string): void {
    const socket = this.#socket;
    if (!socket || socket.state === 'closing' || socket.state === 'closed') return;
    const result = socket.send(message);
    this.#out.sent(message, result, socket.bufferedCount);
  }

  /** Non-interactive runs end once the input is over and everything has been written out. */
  #maybeDone(): void {
    const socket = this.#socket;
    if (!this.#inputOver || !socket || this.#lingering !== undefined || this.#exitCode !== undefined) return;
    if (socket.state !== 'open' || socket.bufferedCount > 0) return;
    if (!Number.isFinite(this.#options.count) || this.#options.wait > 0) {
      this.#lingering = setTimeout(() => this.#end(ExitCode.Ok, 'input ended'), timerDelay(this.#options.wait));
    }
  }

  /** Ends the run once: stops input and timers, closes the socket, and settles with the exit code. */
  #end(code: number, why: string): void {
    if (this.#exitCode !== undefined) return;
    this.#exitCode = code;
    this.#tickStatus(false);
    clearTimeout(this.#deadline);
    clearTimeout(this.#lingering);
    this.#lines?.close();
    this.#out.attach(undefined);
    const socket = this.#socket;
    const finish = () => {
      // Undelivered messages turn a clean end into exit code 3; failures keep their own code.
      const final = code === ExitCode.Ok && this.#dropped > 0 ? ExitCode.Undelivered : code;
      this.#out.event('exit', `${why}; exit code ${final}`, { code: final, reason: why });
      this.#finished(final);
    };
    if (!socket || socket.state === 'closed') {
      finish();
      return;
    }
    // The socket enters `closed` first and then reports what closing ended, in the same turn: the
    // connection's `close`, the messages still queued (`drop`). Settle after those, so that the
    // drops count towards the exit code and the exit line is the last one.
    socket.on('state', ({ current }) => {
      if (current === 'closed') queueMicrotask(finish);
    });
    socket.close();
  }
}

/** A short, printable form of a message for event lines. */
function preview(data: Data): string {
  const text = typeof data === 'string' ? data : `<${byteLengthOf(data)} bytes>`;
  return JSON.stringify(text.length > 40 ? `${text.slice(0, 37)}...` : text);
}

/**
 * `ms` as a timer can wait it: at most 2^31 − 1 ms (about 24.8 days), as the library clamps its own
 * timers (Node's setTimeout fires after 1 ms for anything longer).
 */
function timerDelay(ms: number): number {
  return Math.min(ms, MAX_TIMER_DELAY);
}
