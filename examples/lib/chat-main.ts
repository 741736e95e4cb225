/**
 * The command-line entry of the chat examples (`examples/chat/`, `examples/react-chat/`,
 * `examples/vue-chat/`): builds the library if needed, starts the example's servers on 127.0.0.1
 * (PORT is the page, WS_PORT, by default PORT + 1, the chat server), prints the URLs, and runs
 * the keys: c + Enter crashes the chat server (it stays down), r + Enter restarts it, q + Enter
 * (or Ctrl-C) quits.
 */
import { log, onKeys, portFrom } from './cli.js';
import { ensureBuilt } from './ensure-build.js';

/** What the entry needs of an example's servers. */
export interface ChatExampleServer {
  readonly url: string;
  readonly wsUrl: string;
  crash(): Promise<void>;
  restart(): Promise<void>;
  stop(): Promise<void>;
}

export interface ChatExampleOptions<Server extends ChatExampleServer> {
  /** What the page is, at the start of its line (`Chat page`, `React chat`). */
  readonly label: string;
  /** The page's port when PORT is not set. */
  readonly port: number;
  /** Starts the example's servers. */
  readonly start: (options: { port: number; wsPort: number; log: (line: string) => void }) => Promise<Server>;
  /** More lines to print after the URLs, as `[name, text]`. */
  readonly more?: (server: Server) => ReadonlyArray<readonly [string, string]>;
}

const row = (name: string, text: string) => `${`${name}:`.padEnd(14)}${text}`;

export async function runChatExample<Server extends ChatExampleServer>(
  options: ChatExampleOptions<Server>,
): Promise<void> {
  ensureBuilt();
  const port = portFrom('PORT', options.port);
  const server = await options.start({ port, wsPort: portFrom('WS_PORT', port === 0 ? 0 : port + 1), log });
  const rows = [
    row(options.label, `${server.url}?name=alice   (open a second tab with ?name=bob)`),
    row('Chat server', server.wsUrl),
    row('Terminal', `npm run cli -- "${server.wsUrl}?name=carol"`),
    ...(options.more?.(server) ?? []).map(([name, text]) => row(name, text)),
  ];
  console.log(`
${rows.join('\n')}

Keys (then Enter): c = crash the chat server (it stays down), r = restart it, q = quit
`);
  onKeys({ c: () => server.crash(), r: () => server.restart() }, 'keys: c = crash, r = restart, q = quit', () =>
    server.stop(),
  );
}
