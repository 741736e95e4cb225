/**
 * A real ws server that refuses the WebSocket upgrade with an HTTP status: ws reports it as
 * 'unexpected-response', which the socket turns into ERR_RS_UPGRADE_REJECTED (status, Retry-After).
 * Every client runs on ws, pinned with the `WebSocket` option: a runtime's global WebSocket reports
 * a refused upgrade as a bare connection failure, with no status and no Retry-After.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { WebSocket as WsWebSocket } from 'ws';
import { constant } from '../../src/backoff/index.js';
import { ResilientSocket } from '../../src/node.js';
import { ACCEPT, type Behaviour, type BehaviourSetting, startTestServer, type TestWsServer } from '../faults/index.js';
import { errorMessage } from '../helpers/mode.js';
import { closeAndExpectGone, SocketRecorder } from '../helpers/socket-recorder.js';
import { Cleanup, sleep, waitFor } from '../helpers/wait.js';

const cleanup = new Cleanup();
afterEach(() => cleanup.run());

const startServer = (behaviour: BehaviourSetting) => startTestServer(cleanup, behaviour);

/** A URL provider that counts its calls (each attempt calls it once). */
function countingUrl(server: TestWsServer) {
  const provider = Object.assign(
    () => {
      provider.calls++;
      return server.urlFor(`/?attempt=${provider.calls}`);
    },
    { calls: 0 },
  );
  return provider;
}

function track(socket: ResilientSocket): SocketRecorder {
  cleanup.add(socket, (s) => s.close());
  return new SocketRecorder(socket);
}

describe('upgrade refused with 401', () => {
  it('retries at once after the first 401 and gives up (ERR_RS_UNAUTHORIZED, closed) after the second', async () => {
    const server = await startServer({ kind: 'refuse', status: 401 });
    const url = countingUrl(server);
    // A long backoff: only the "immediate" retry of a first 401 can bring the second attempt.
    const socket = new ResilientSocket(url, { WebSocket: WsWebSocket, backoff: constant({ delay: 5_000 }) });
    const rec = track(socket);

    await waitFor(() => rec.count('giveup') === 1, 2_000, 'giveup', { describe: () => rec.summary() });

    expect(url.calls).toBe(2);
    expect(server.upgrades.map((u) => [u.url, u.kind])).toEqual([
      ['/?attempt=1', 'refuse'],
      ['/?attempt=2', 'refuse'],
    ]);
    expect(server.connections).toBe(0);

    const [first, second, last] = rec.errors;
    expect(first).toMatchObject({ code: 'ERR_RS_UPGRADE_REJECTED', status: 401, retryAfter: undefined });
    expect(second).toMatchObject({ code: 'ERR_RS_UPGRADE_REJECTED', status: 401 });
    expect(last).toMatchObject({ code: 'ERR_RS_UNAUTHORIZED', status: 401 });
    expect(rec.errors).toHaveLength(3);
    expect(rec.reconnecting).toEqual([{ attempt: 2, delay: 0 }]);
    expect(rec.giveups).toEqual([{ attempts: 2, failures: 2, error: last }]);
    expect(rec.opens).toEqual([]);
    expect(socket.state).toBe('closed');
    expect(rec.states).toEqual(['reconnecting', 'connecting', 'closed']);
    expect(rec.closes.at(-1)?.willReconnect).toBe(false);

    await sleep(100);
    expect(url.calls, 'no attempt after the give-up').toBe(2);
    expect(server.upgrades).toHaveLength(2);
    await closeAndExpectGone(socket, server);
  });

  it.each([
    [403, 403],
    [401, 403],
  ])('%i then %i in a row also gives up with ERR_RS_UNAUTHORIZED', async (first, second) => {
    const server = await startServer(({ index }) => ({ kind: 'refuse', status: index === 0 ? first : second }));
    const socket = new ResilientSocket(server.url, { WebSocket: WsWebSocket, backoff: constant({ delay: 5_000 }) });
    const rec = track(socket);
    await waitFor(() => rec.count('giveup') === 1, 2_000, 'giveup', { describe: () => rec.summary() });
    expect(server.upgrades).toHaveLength(2);
    expect(rec.errors.at(-1)).toMatchObject({ code: 'ERR_RS_UNAUTHORIZED', status: second });
    expect(socket.state).toBe('closed');
    await closeAndExpectGone(socket, server);
  });

  it('opens when the immediate retry after a 401 is accepted', async () => {
    const server = await startServer(({ index }) => (index === 0 ? { kind: 'refuse', status: 401 } : ACCEPT));
    const url = countingUrl(server);
    const socket = new ResilientSocket(url, { WebSocket: WsWebSocket, backoff: constant({ delay: 5_000 }) });
    const rec = track(socket);

    await waitFor(() => socket.state === 'open', 2_000, 'open', { describe: () => rec.summary() });

    expect(url.calls).toBe(2);
    expect(rec.opens).toEqual([{ attempt: 2, reconnected: false }]);
    expect(rec.errors).toHaveLength(1);
    expect(rec.errors[0]).toMatchObject({ code: 'ERR_RS_UPGRADE_REJECTED', status: 401 });
    expect(rec.reconnecting).toEqual([{ attempt: 2, delay: 0 }]);
    expect(rec.giveups).toEqual([]);
    expect(server.connections).toBe(1);
    expect(socket.url).toBe(server.urlFor('/?attempt=2'));

    await closeAndExpectGone(socket, server);
  });
});

describe('401/403 must come twice in a row to stop', () => {
  it('a different failure between two refusals resets the count: 401, 500, 403, then open', async () => {
    const sequence: Behaviour[] = [
      { kind: 'refuse', status: 401 },
      { kind: 'refuse', status: 500 },
      { kind: 'refuse', status: 403 },
    ];
    const server = await startServer(({ index }) => sequence[index] ?? ACCEPT);
    const socket = new ResilientSocket(server.url, { WebSocket: WsWebSocket, backoff: constant({ delay: 20 }) });
    const rec = track(socket);

    await waitFor(() => socket.state === 'open', 2_000, 'open', { describe: () => rec.summary() });
    expect(rec.errors.map((e) => [e.code, e.status])).toEqual([
      ['ERR_RS_UPGRADE_REJECTED', 401],
      ['ERR_RS_UPGRADE_REJECTED', 500],
      ['ERR_RS_UPGRADE_REJECTED', 403],
    ]);
    // 401 and 403 are retried at once; the 500 waits the backoff.
    expect(rec.reconnecting.map((r) => r.delay)).toEqual([0, 20, 0]);
    expect(rec.giveups).toEqual([]);
    await closeAndExpectGone(socket, server);
  });

  it('a refused TCP connection between two 401s resets the count too', async () => {
    const sequence: Behaviour[] = [
      { kind: 'refuse', status: 401 },
      { kind: 'refuse', status: 401 },
    ];
    const server = await startServer(({ index }) => sequence[index] ?? ACCEPT);
    // Port 9 (discard) on loopback: nothing listens, so the attempt is refused at the TCP level.
    const urls = [server.url, 'ws://127.0.0.1:9/', server.url, server.url];
    let calls = 0;
    const socket = new ResilientSocket(() => urls[Math.min(calls++, urls.length - 1)] as string, {
      WebSocket: WsWebSocket,
      backoff: constant({ delay: 20 }),
    });
    const rec = track(socket);

    await waitFor(() => socket.state === 'open', 2_000, 'open', { describe: () => rec.summary() });
    expect(rec.errors.map((e) => e.code)).toEqual([
      'ERR_RS_UPGRADE_REJECTED',
      'ERR_RS_CONNECTION_FAILED',
      'ERR_RS_UPGRADE_REJECTED',
    ]);
    expect(rec.giveups).toEqual([]);
    await closeAndExpectGone(socket, server);
  });
});

describe('upgrade refused with Retry-After', () => {
  it.each([429, 503])('HTTP %i with Retry-After: 1 waits at least 1 s before the next attempt', async (status) => {
    const server = await startServer(({ index }) =>
      index === 0 ? { kind: 'refuse', status, retryAfter: 1 } : { kind: 'accept' },
    );
    // The backoff alone would retry within 10 ms.
    const socket = new ResilientSocket(server.url, { WebSocket: WsWebSocket, backoff: constant({ delay: 10 }) });
    const rec = track(socket);

    await waitFor(() => rec.count('reconnecting') === 1, 2_000, 'the refusal');
    expect(rec.errors).toHaveLength(1);
    expect(rec.errors[0]).toMatchObject({ code: 'ERR_RS_UPGRADE_REJECTED', status, retryAfter: 1_000 });
    expect(rec.reconnecting[0]?.delay).toBeGreaterThanOrEqual(1_000);
    expect(rec.reconnecting[0]?.delay).toBeLessThan(1_100);

    await waitFor(() => socket.state === 'open', 2_500, 'open after the wait', { describe: () => rec.summary() });
    const [refused, accepted] = server.upgrades;
    expect((accepted?.at ?? 0) - (refused?.at ?? 0), 'the server saw the retry no sooner than 1 s').toBeGreaterThan(
      990,
    );
    expect(rec.opens).toEqual([{ attempt: 2, reconnected: false }]);
    expect(rec.giveups).toEqual([]);

    await closeAndExpectGone(socket, server);
  });

  it('a backoff delay longer than Retry-After wins (Retry-After is a minimum)', async () => {
    const server = await startServer({ kind: 'refuse', status: 503, retryAfter: 1 });
    const socket = new ResilientSocket(server.url, { WebSocket: WsWebSocket, backoff: constant({ delay: 3_000 }) });
    const rec = track(socket);
    await waitFor(() => rec.count('reconnecting') === 1, 2_000, 'the refusal');
    expect(rec.errors[0]).toMatchObject({ status: 503, retryAfter: 1_000 });
    expect(rec.reconnecting).toEqual([{ attempt: 2, delay: 3_000 }]);
    await closeAndExpectGone(socket, server);
  });

  // Regression, it was: one 503 with a huge Retry-After
  // parked the client for 24.9 days (2^31 − 1 ms), and nothing said so.
  it('a huge Retry-After is capped by maxRetryAfter, and the error says what it waits', async () => {
    const server = await startServer(({ index }) =>
      index === 0 ? { kind: 'refuse', status: 503, retryAfter: 2_147_483 } : ACCEPT,
    );
    const socket = new ResilientSocket(server.url, {
      WebSocket: WsWebSocket,
      backoff: constant({ delay: 10 }),
      maxRetryAfter: 300,
    });
    const rec = track(socket);
    await waitFor(() => rec.count('reconnecting') === 1, 2_000, 'the refusal');
    expect(rec.errors[0]).toMatchObject({ code: 'ERR_RS_UPGRADE_REJECTED', status: 503, retryAfter: 2_147_483_000 });
    // In production the message is the code; `retryAfter` and the wait still tell it.
    expect(rec.errors[0]?.message).toEqual(
      errorMessage(
        'ERR_RS_UPGRADE_REJECTED',
        expect.stringContaining('Retry-After asks for 2147483000 ms, waiting 300 ms at most (`maxRetryAfter`)'),
      ),
    );
    expect(rec.reconnecting).toEqual([{ attempt: 2, delay: 300 }]);
    await waitFor(() => socket.state === 'open', 2_000, 'open after the capped wait', {
      describe: () => rec.summary(),
    });
    await closeAndExpectGone(socket, server);
  });

  it('by default the cap is 5 minutes', async () => {
    const server = await startServer({ kind: 'refuse', status: 429, retryAfter: 86_400 });
    const socket = new ResilientSocket(server.url, { WebSocket: WsWebSocket, backoff: constant({ delay: 10 }) });
    const rec = track(socket);
    await waitFor(() => rec.count('reconnecting') === 1, 2_000, 'the refusal');
    expect(rec.reconnecting).toEqual([{ attempt: 2, delay: 300_000 }]);
    await closeAndExpectGone(socket, server);
  });

  it('HTTP 500 without Retry-After is retried on the normal backoff', async () => {
    const server = await startServer(({ index }) => (index === 0 ? { kind: 'refuse', status: 500 } : ACCEPT));
    const socket = new ResilientSocket(server.url, { WebSocket: WsWebSocket, backoff: constant({ delay: 10 }) });
    const rec = track(socket);

    await waitFor(() => socket.state === 'open', 2_000, 'open', { describe: () => rec.summary() });
    expect(rec.errors).toHaveLength(1);
    expect(rec.errors[0]).toMatchObject({ code: 'ERR_RS_UPGRADE_REJECTED', status: 500, retryAfter: undefined });
    expect(rec.reconnecting).toEqual([{ attempt: 2, delay: 10 }]);
    const [refused, accepted] = server.upgrades;
    expect((accepted?.at ?? 0) - (refused?.at ?? 0)).toBeLessThan(500);
    expect(rec.opens).toEqual([{ attempt: 2, reconnected: false }]);

    await closeAndExpectGone(socket, server);
  });

  it('a 500 never stops reconnecting, even twice in a row (only 401/403 do)', async () => {
    const server = await startServer(({ index }) => (index < 3 ? { kind: 'refuse', status: 500 } : ACCEPT));
    const socket = new ResilientSocket(server.url, { WebSocket: WsWebSocket, backoff: constant({ delay: 10 }) });
    const rec = track(socket);

    await waitFor(() => socket.state === 'open', 2_000, 'open', { describe: () => rec.summary() });
    expect(rec.errors.map((e) => [e.code, e.status])).toEqual([
      ['ERR_RS_UPGRADE_REJECTED', 500],
      ['ERR_RS_UPGRADE_REJECTED', 500],
      ['ERR_RS_UPGRADE_REJECTED', 500],
    ]);
    expect(rec.giveups).toEqual([]);
    expect(rec.opens).toEqual([{ attempt: 4, reconnected: false }]);

    await closeAndExpectGone(socket, server);
  });
});
