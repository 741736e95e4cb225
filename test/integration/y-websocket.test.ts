import { createServer, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { WebsocketProvider } from 'y-websocket';
import * as Y from 'yjs';
import { YWebsocketServer } from '../../examples/y-websocket/server.js';
import { type DetailEvent, ResilientWebSocket, type StateChange } from '../../src/node.js';
import { Cleanup, sleep, waitFor } from '../helpers/wait.js';

// y-websocket's WebsocketProvider with `WebSocketPolyfill: ResilientWebSocket`, against a real
// y-websocket server (@y/websocket-server) on 127.0.0.1 that goes down and comes back on the same
// port. What the tests pin down, for docs/guide/drop-in.md: y-websocket treats every `close` as the end of
// that socket object (it calls `close()` on it, which is final for ours) and makes a new one after
// its own backoff; ResilientWebSocket emits `close` for a failed attempt too, as a WebSocket does,
// so each instance makes exactly one attempt and y-websocket is the layer that reconnects.

const cleanup = new Cleanup();
afterEach(() => cleanup.run());

/** y-websocket's own backoff cap here (100·2^n ms, capped): small, so an outage costs little time. */
const MAX_BACKOFF = 400;
/** Longer than several backoff periods of both layers (y-websocket's 400 ms, ours up to 500 ms). */
const QUIET = 1_500;

/** One ResilientWebSocket y-websocket made, and what it did. */
interface Made {
  readonly socket: ResilientWebSocket;
  readonly client: string;
  /** Attempts after the first one (the socket's own reconnects). */
  retries: number;
  /** `close` events it emitted. */
  closes: number;
}

/** A WebSocketPolyfill: a ResilientWebSocket with small backoff options that records every instance in `made`. */
function polyfill(made: Made[], options: { connectTimeout?: number } = {}) {
  return class Ws extends ResilientWebSocket {
    constructor(url: string | URL, protocols?: string | string[]) {
      super(url, protocols ?? [], { maxDelay: 500, ceiling: 3, stableAfter: 200, ...options });
      const record: Made = {
        socket: this,
        client: new URL(this.url).searchParams.get('client') ?? '',
        retries: 0,
        closes: 0,
      };
      made.push(record);
      // The first attempt starts in the constructor (before this listener); every later one is a retry.
      this.addEventListener('state', (event) => {
        if ((event as DetailEvent<StateChange>).detail.current === 'connecting') record.retries++;
      });
      this.addEventListener('close', () => record.closes++);
    }
  };
}

/** A Y.Doc synced through `url` by a provider whose sockets carry `?client=<client>`. */
function peer(url: string, room: string, client: string, made: Made[], options: { connectTimeout?: number } = {}) {
  const doc = cleanup.add(new Y.Doc(), (d) => d.destroy());
  const provider = cleanup.add(
    new WebsocketProvider(url, room, doc, {
      WebSocketPolyfill: polyfill(made, options),
      params: { client },
      // In Node, BroadcastChannel would sync the two docs in-process, without the server.
      disableBc: true,
      maxBackoffTime: MAX_BACKOFF,
    }),
    (p) => p.destroy(),
  );
  const log = doc.getArray<string>('log');
  return { doc, provider, log, items: () => log.toArray() };
}

const of = (made: readonly Made[], client: string) => made.filter((m) => m.client === client);

async function setup() {
  const server = cleanup.add(await YWebsocketServer.listen(), (s) => s.stop());
  const room = `room-${Math.random().toString(36).slice(2)}`;
  const made: Made[] = [];
  const a = peer(server.url, room, 'a', made);
  const b = peer(server.url, room, 'b', made);
  await waitFor(() => a.provider.synced && b.provider.synced, 3_000, 'both providers synced');
  a.log.push(['a0']);
  b.log.push(['b0']);
  await waitFor(() => a.items().length === 2 && b.items().length === 2, 2_000, 'the first edits to cross', {
    describe: () => ({ a: a.items(), b: b.items() }),
  });
  expect(server.connections).toBe(2);
  return { server, room, made, a, b };
}

describe('y-websocket with WebSocketPolyfill: ResilientWebSocket', () => {
  it('delivers the edits made while the server was down, then holds one connection per provider', async () => {
    const { server, room, made, a, b } = await setup();
    const port = server.port;

    await server.stop();
    await waitFor(() => !a.provider.wsconnected && !b.provider.wsconnected, 2_000, 'both providers to notice');
    a.log.push(['a-offline']);
    b.log.push(['b-offline']);
    // Long enough for several failed attempts, each by a new socket that y-websocket made.
    await sleep(1_200);
    expect(a.items()).not.toContain('b-offline');
    expect(b.items()).not.toContain('a-offline');
    expect(of(made, 'a').length).toBeGreaterThanOrEqual(3);
    expect(of(made, 'b').length).toBeGreaterThanOrEqual(3);

    await server.start();
    expect(server.port).toBe(port);
    await waitFor(
      () => a.items().includes('b-offline') && b.items().includes('a-offline'),
      3_000,
      'the offline edits to cross after the restart',
      { describe: () => ({ a: a.items(), b: b.items() }) },
    );
    expect(a.doc.getArray('log').toJSON()).toEqual(b.doc.getArray('log').toJSON());
    expect([...a.items()].sort()).toEqual(['a-offline', 'a0', 'b-offline', 'b0']);
    // The restarted server forgot the room: what it holds now came from the clients.
    await waitFor(() => server.doc(room)?.getArray('log').length === 4, 2_000, "the server's copy rebuilt");

    // One connection per provider, and it stays that way: nothing else knocks later.
    await waitFor(() => server.connections === 2, 2_000, 'two connections');
    const before = { a: server.counts('a'), b: server.counts('b') };
    await sleep(QUIET);
    expect(server.connections).toBe(2);
    for (const client of ['a', 'b'] as const) {
      const now = server.counts(client);
      expect(now).toEqual(before[client]);
      expect(now.connections).toBe(2); // before the outage and after it
      expect(now.connections - now.closes).toBe(1);
    }

    // Which layer reconnected: y-websocket, with a new ResilientWebSocket per attempt. Every one
    // that emitted `close` was closed by y-websocket at once and never made an attempt of its own.
    for (const [client, peerOf] of [
      ['a', a],
      ['b', b],
    ] as const) {
      const sockets = of(made, client);
      const last = sockets.at(-1);
      expect(peerOf.provider.ws).toBe(last?.socket);
      expect(last?.socket.readyState).toBe(ResilientWebSocket.OPEN);
      for (const m of sockets) expect(m.retries).toBe(0);
      for (const m of sockets.slice(0, -1)) {
        expect(m.closes).toBe(1);
        expect(m.socket.readyState).toBe(ResilientWebSocket.CLOSED);
      }
    }
  });

  it('after provider.destroy() the server sees the close and nothing reconnects', async () => {
    const { server, made, a, b } = await setup();

    a.provider.destroy();
    await waitFor(() => server.counts('a').closes === 1 && server.connections === 1, 2_000, "a's close at the server");
    const seen = server.counts('a');
    await sleep(QUIET);
    expect(server.counts('a')).toEqual(seen);
    expect(of(made, 'a').every((m) => m.socket.readyState === ResilientWebSocket.CLOSED)).toBe(true);

    // b is unaffected, until it is destroyed too.
    b.log.push(['b1']);
    await waitFor(() => server.doc(a.provider.roomname)?.getArray('log').length === 3, 2_000, "b's edit at the server");
    b.provider.destroy();
    await waitFor(() => server.connections === 0, 2_000, 'no connection left');
    expect(server.counts('b')).toMatchObject({ upgrades: 1, connections: 1, closes: 1 });
  });

  it('a provider destroyed during an outage does not come back with the server', async () => {
    const { server, made, a, b } = await setup();

    await server.stop();
    await waitFor(() => of(made, 'a').length >= 3, 3_000, 'a to retry a few times');
    a.provider.destroy();
    b.provider.destroy();
    const made0 = made.length;
    await server.start();
    await sleep(QUIET);
    expect(made.length).toBe(made0);
    expect(made.every((m) => m.socket.readyState === ResilientWebSocket.CLOSED)).toBe(true);
    expect(server.counts('a')).toMatchObject({ upgrades: 1, connections: 1 });
    expect(server.counts('b')).toMatchObject({ upgrades: 1, connections: 1 });
    expect(server.connections).toBe(0);
  });

  it("abandons a handshake the server never answers after ResilientWebSocket's connectTimeout", async () => {
    // Something y-websocket cannot do alone (it has no connect timeout): a server that accepts the
    // TCP connection and never answers the upgrade. Each socket gives up after 300 ms, emits
    // `close` (1006), lets its TCP connection go, and y-websocket moves on to a new one.
    const accepted: Socket[] = [];
    let ended = 0;
    const tcp = createServer((socket) => {
      accepted.push(socket);
      socket.resume(); // read the request (and see the client's FIN)
      socket.on('close', () => ended++);
    });
    await new Promise<void>((resolve) => tcp.listen(0, '127.0.0.1', resolve));
    cleanup.add(tcp, (server) => {
      for (const socket of accepted) socket.destroy();
      return new Promise((resolve) => server.close(resolve));
    });
    const { port } = tcp.address() as { port: number };
    const made: Made[] = [];
    const a = peer(`ws://127.0.0.1:${port}`, 'hung', 'a', made, { connectTimeout: 300 });

    await waitFor(() => made.length >= 3, 5_000, 'y-websocket to try a third socket');
    const abandoned = made.slice(0, -1);
    expect(abandoned.every((m) => m.closes === 1 && m.retries === 0)).toBe(true);
    await waitFor(() => ended >= abandoned.length, 2_000, 'the abandoned TCP connections to end');
    expect(a.provider.wsconnected).toBe(false);
  });
});
