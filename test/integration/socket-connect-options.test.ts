/**
 * What the server sees of the client's connection options: ws client options (headers) and a
 * URL provider called before every attempt. The `wsOptions` test runs on ws, pinned with the
 * `WebSocket` option (only ws's client takes them); the URL provider runs on whatever WebSocket
 * the runtime gives.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { WebSocket as WsWebSocket } from 'ws';
import { ResilientSocket } from '../../src/node.js';
import { startTestServer } from '../faults/index.js';
import { closeAndExpectGone, SocketRecorder } from '../helpers/socket-recorder.js';
import { Cleanup, waitFor } from '../helpers/wait.js';

const cleanup = new Cleanup();
afterEach(() => cleanup.run());

const startServer = () => startTestServer(cleanup);

function track(socket: ResilientSocket): SocketRecorder {
  cleanup.add(socket, (s) => s.close());
  return new SocketRecorder(socket);
}

describe('wsOptions', () => {
  it('passes ws client options through: the server sees the extra header on every upgrade', async () => {
    const server = await startServer();
    const socket = new ResilientSocket(server.url, {
      WebSocket: WsWebSocket,
      wsOptions: { headers: { 'x-token': 'abc' } },
      maxDelay: 200,
      ceiling: 3,
    });
    const rec = track(socket);

    await waitFor(() => socket.state === 'open', 2_000, 'open', { describe: () => rec.summary() });
    expect(server.upgrades[0]?.headers['x-token']).toBe('abc');
    expect(socket.send('hi')).toBe('sent');
    await waitFor(() => rec.messages.length === 1, 1_000, 'the echo');
    expect(rec.messages).toEqual(['hi']);

    // …and again on a reconnect.
    for (const client of server.clients) client.terminate();
    await waitFor(() => rec.count('open') === 2, 2_000, 'the reconnect', { describe: () => rec.summary() });
    expect(server.upgrades.map((u) => u.headers['x-token'])).toEqual(['abc', 'abc']);

    await closeAndExpectGone(socket, server);
  });
});

describe('URL provider', () => {
  it('is called before every attempt: after a server restart the server sees the fresh token', async () => {
    const server = await startServer();
    const issued: string[] = [];
    const socket = new ResilientSocket(
      async () => {
        const token = `t${issued.length + 1}`;
        issued.push(token);
        return server.urlFor(`/feed?token=${token}`);
      },
      { maxDelay: 200, ceiling: 3, stableAfter: 100 },
    );
    const rec = track(socket);

    await waitFor(() => socket.state === 'open', 2_000, 'open');
    expect(server.upgrades.map((u) => u.url)).toEqual(['/feed?token=t1']);
    // The event shows it redacted (a token is a secret); socket.url has it whole.
    expect(rec.events('connecting').map((e) => (e.payload as { url: string }).url)).toEqual([
      server.urlFor('/feed?token=***'),
    ]);
    expect(socket.url).toBe(server.urlFor('/feed?token=t1'));

    await server.stop();
    await waitFor(() => socket.state !== 'open', 1_000, 'the client to notice the restart');
    await waitFor(() => issued.length >= 3, 2_000, 'attempts against the stopped server');
    await server.start();
    await waitFor(() => rec.count('open') === 2, 2_000, 'the reconnect', { describe: () => rec.summary() });

    // One provider call per attempt; the server saw the latest token, never a reused one.
    const lastUpgrade = server.upgrades.at(-1);
    expect(server.upgrades).toHaveLength(2);
    expect(lastUpgrade?.url).toBe(`/feed?token=${issued.at(-1)}`);
    expect(lastUpgrade?.url).not.toBe('/feed?token=t1');
    expect(issued).toEqual(issued.map((_, i) => `t${i + 1}`));
    expect(issued.length).toBe(socket.stats.attempts);
    expect(socket.url).toBe(server.urlFor(`/feed?token=${issued.at(-1)}`));
    expect(rec.opens.at(-1)).toMatchObject({ reconnected: true });

    await closeAndExpectGone(socket, server);
  });
});
