/**
 * `npm run example:y-websocket`: two Yjs documents, alice's and bob's, synced through a y-websocket
 * server on 127.0.0.1 by y-websocket's `WebsocketProvider` with `WebSocketPolyfill:
 * ResilientWebSocket`. Both edit, the server goes down (clients cut without a close frame, port
 * closed) and comes back on the same port having forgotten the document; both edit while it is
 * down, and the edits arrive at the other side once it is back. It prints a short timeline, both
 * documents, and what the server saw: one connection per provider, before and after the outage.
 * PORT picks the port (default 0: any free one). Everything shuts down and the process exits.
 *
 * Who reconnects: y-websocket. It treats every `close` event as the end of that socket object: it
 * calls `close()` on it (final for a ResilientWebSocket: it stops reconnecting at once) and, after
 * its own backoff (100·2^n ms, capped at `maxBackoffTime`), constructs a new one. A
 * ResilientWebSocket emits `close` for a failed attempt too, as a WebSocket does (`error`, then
 * `close` with 1006), so each instance makes exactly one attempt and its backoff options
 * (`maxDelay`, `ceiling`, `stableAfter`) have no effect here. What it does add is per attempt:
 * `connectTimeout` (a handshake the server never answers is abandoned; y-websocket alone waits
 * for it indefinitely), the heartbeat (over ws, protocol pings: a dead link is noticed within
 * `interval + timeout`, not after y-websocket's 30 s without messages) and, in Node, `wsOptions`
 * (headers, TLS). Tune how often y-websocket retries with its `maxBackoffTime`. Options reach
 * it through a subclass: y-websocket calls `new WebSocketPolyfill(url, protocols)`.
 */
import { fileURLToPath } from 'node:url';
import { ResilientWebSocket } from 'resilient-socket';
import { WebsocketProvider } from 'y-websocket';
import * as Y from 'yjs';
import { portFrom } from '../lib/cli.js';
import { type ClientCounts, YWebsocketServer } from './server.js';

/** Options of {@link runYjsExample}. */
export interface YjsExampleOptions {
  /** Receives the timeline, line by line. @default console.log */
  log?: (line: string) => void;
  /** How long the server stays down, in ms. @default 2_000 */
  outageMs?: number;
  /** The server's port (0: any free one). @default 0 */
  port?: number;
}

/** What {@link runYjsExample} ended with (read before shutting down). */
export interface YjsExampleResult {
  /** The server's port, the same before and after the outage. */
  port: number;
  /** Alice's and bob's documents (the shared `notes` list). */
  alice: string[];
  bob: string[];
  /** The server's copy, rebuilt after the restart from what the clients sent. */
  server: string[];
  /** Connections open at the server after the outage and a quiet second. */
  connections: number;
  /** What the server saw of each provider, over both runs of the server. */
  seen: Record<Name, ClientCounts>;
  /** ResilientWebSockets y-websocket made for each provider (one per attempt). */
  sockets: Record<Name, number>;
  /** The timeline as printed. */
  timeline: string[];
}

type Name = 'alice' | 'bob';

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Polls `check` every 10 ms until it holds; throws after `ms` naming `what`. */
async function until(check: () => boolean, ms: number, what: string): Promise<void> {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`Timed out after ${ms} ms waiting for ${what}`);
    await sleep(10);
  }
}

/**
 * A `WebSocketPolyfill` for one provider: a ResilientWebSocket with the options that matter under
 * y-websocket, telling `onSocket` about every instance y-websocket makes.
 */
function polyfill(onSocket: (socket: ResilientWebSocket) => void) {
  return class extends ResilientWebSocket {
    constructor(url: string | URL, protocols?: string | string[]) {
      super(url, protocols ?? [], { connectTimeout: 5_000, heartbeat: { interval: 10_000, timeout: 5_000 } });
      onSocket(this);
    }
  };
}

/** Runs the example: see the file's header. */
export async function runYjsExample(options: YjsExampleOptions = {}): Promise<YjsExampleResult> {
  const print = options.log ?? console.log;
  const outageMs = options.outageMs ?? 2_000;
  const started = performance.now();
  const timeline: string[] = [];
  const log = (who: string, what: string) => {
    const line = `${((performance.now() - started) / 1000).toFixed(2).padStart(6)} s  ${who.padEnd(6)} ${what}`;
    timeline.push(line);
    print(line);
  };

  let closing = false;
  const server = await YWebsocketServer.listen(options.port ?? 0);
  log('server', `listening on ${server.url}`);
  const peers = (['alice', 'bob'] as const).map((name) => {
    const doc = new Y.Doc();
    let sockets = 0;
    let refused = 0;
    const WebSocketPolyfill = polyfill((socket) => {
      sockets++;
      // An instance that closes without having opened: an attempt the server refused.
      let opened = false;
      socket.addEventListener('open', () => {
        opened = true;
      });
      socket.addEventListener('close', () => {
        if (!opened) refused++;
      });
    });
    const provider = new WebsocketProvider(server.url, 'notes', doc, {
      WebSocketPolyfill,
      params: { client: name },
      disableBc: true, // in one process BroadcastChannel would sync the docs without the server
      maxBackoffTime: 1_000,
    });
    provider.on('status', ({ status }) => {
      if (closing) return;
      if (status === 'connected') {
        const after = refused > 0 ? `, after ${refused} refused attempt${refused > 1 ? 's' : ''}` : '';
        log(name, `connected (ResilientWebSocket #${sockets}${after})`);
        refused = 0;
      } else if (status === 'disconnected') log(name, 'disconnected (y-websocket retries: a new socket per attempt)');
    });
    const notes = doc.getArray<string>('notes');
    return { name, doc, provider, notes, sockets: () => sockets };
  });
  const [alice, bob] = peers as [(typeof peers)[0], (typeof peers)[0]];
  const write = (peer: typeof alice, text: string) => {
    peer.notes.push([`${peer.name}: ${text}`]);
    log(peer.name, `writes "${text}"`);
  };

  try {
    await until(() => alice.provider.synced && bob.provider.synced, 5_000, 'both providers to sync');
    write(alice, 'hello');
    write(bob, 'hi alice');
    await until(() => alice.notes.length === 2 && bob.notes.length === 2, 5_000, 'the first notes to cross');
    log('both', 'see 2 notes');

    log('server', `goes down for ${outageMs} ms (clients cut, port closed, document forgotten)`);
    await server.stop();
    await until(() => !alice.provider.wsconnected && !bob.provider.wsconnected, 5_000, 'both to notice');
    write(alice, 'written while offline');
    write(bob, 'me too');
    await sleep(outageMs);

    await server.start();
    log('server', `back on the same port ${server.port}`);
    await until(() => alice.notes.length === 4 && bob.notes.length === 4, 10_000, 'the offline notes to cross');
    log('both', 'see 4 notes');
    await until(() => server.connections === 2, 5_000, 'one connection per provider');
    await sleep(1_000); // a quiet second: no stray socket turns up
    log('server', `${server.connections} connections open (one per provider)`);

    const result: YjsExampleResult = {
      port: server.port,
      alice: alice.notes.toArray(),
      bob: bob.notes.toArray(),
      server: server.doc('notes')?.getArray<string>('notes').toArray() ?? [],
      connections: server.connections,
      seen: { alice: server.counts('alice'), bob: server.counts('bob') },
      sockets: { alice: alice.sockets(), bob: bob.sockets() },
      timeline,
    };
    print('');
    print(`alice's document: ${JSON.stringify(result.alice)}`);
    print(`bob's document:   ${JSON.stringify(result.bob)}`);
    for (const { name } of peers) {
      const { connections, upgrades } = result.seen[name];
      print(
        `${name}: ${result.sockets[name]} ResilientWebSockets made by y-websocket, ${upgrades} reached the server, ${connections} connections in all`,
      );
    }
    return result;
  } finally {
    closing = true;
    for (const { provider, doc } of peers) {
      provider.destroy();
      doc.destroy();
    }
    await until(() => server.connections === 0, 2_000, 'the providers to close').catch(() => {});
    await server.stop();
    print('providers destroyed, server stopped');
  }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  await runYjsExample({ port: portFrom('PORT', 0) });
}
