import { afterEach, describe, expect, it } from 'vitest';
import { constant } from '../../src/backoff/index.js';
import type { CloseInfo } from '../../src/core/close-codes.js';
import { type HandshakeConnection, handshake as handshakeFeature } from '../../src/node.js';
import { ECHO } from '../faults/index.js';
import { errorMessage } from '../helpers/mode.js';
import { Cleanup, sleep, waitFor } from '../helpers/wait.js';
import { closeAndCheckLeftovers, createRig } from './leftovers.js';

// Case 6: a real ws server closes an open connection with each class of close code. The user sees
// the `close` payload {code, reason, wasClean, willReconnect}; reconnectable codes bring a second
// `open` (and messages flow again), fatal ones an ERR_RS_FATAL_CLOSE, a `giveup` and `closed`.
// Every test ends with close() and checks what is left behind (see ./leftovers.ts). The messages
// name the close code in development; in production a message is its code alone.

const cleanup = new Cleanup();
afterEach(() => cleanup.run());

const RETRY_DELAY = 30;
const options = () => ({ backoff: constant({ delay: RETRY_DELAY }) });

/** The close the user's own close() reports once the connection is open again. */
const OWN_CLOSE = { code: 1000, reason: '', wasClean: true, willReconnect: false };

describe('the server closes with a code worth reconnecting after', () => {
  it.each([
    { code: 1000, reason: 'normal closure from the server' },
    { code: 1001, reason: 'going away (deploy)' },
    { code: 1011, reason: 'internal error' },
    { code: 1012, reason: 'service restart' },
    { code: 1013, reason: 'try again later' },
  ])('$code ($reason) → close {willReconnect: true}, reconnect, messages flow again', async ({ code, reason }) => {
    const rig = await createRig(cleanup);
    const { socket, rec } = rig.socket(undefined, options());
    await waitFor(() => socket.state === 'open', 2_000, 'first open', { describe: () => rec.summary() });
    expect(socket.send('before')).toBe('sent');
    await waitFor(() => rec.messages.length === 1, 1_000, 'the echo of "before"');

    await rig.server.closeAll(code, reason);
    await waitFor(() => rec.count('open') === 2, 2_000, 'the reconnect', { describe: () => rec.summary() });

    expect(rec.closes).toEqual([{ code, reason, wasClean: true, willReconnect: true }]);
    expect(rec.errors).toEqual([]);
    expect(rec.giveups).toEqual([]);
    expect(rec.reconnecting).toEqual([{ attempt: 2, delay: RETRY_DELAY }]);
    expect(rec.opens).toEqual([
      { attempt: 1, reconnected: false },
      { attempt: 2, reconnected: true },
    ]);
    expect(rec.states).toEqual(['open', 'reconnecting', 'connecting', 'open']);
    expect(rig.server.disconnects[0]).toMatchObject({ code, reason });
    expect(rig.server.connections).toBe(2);

    expect(socket.send('after')).toBe('sent');
    await waitFor(() => rec.messages.length === 2, 1_000, 'the echo of "after"');
    expect(rig.server.received).toEqual(['before', 'after']);
    expect(rec.messages).toEqual(['before', 'after']);

    await closeAndCheckLeftovers(rig, socket, rec);
    expect(rec.closes.at(-1)).toEqual(OWN_CLOSE);
    expect(rec.states.at(-1)).toBe('closed');
  });

  it('1006 (the server terminates the TCP connection, no close frame) → close {1006, wasClean: false}, reconnect', async () => {
    const rig = await createRig(cleanup);
    const { socket, rec } = rig.socket(undefined, options());
    await waitFor(() => socket.state === 'open', 2_000, 'first open');

    for (const client of rig.server.clients) client.terminate();
    await waitFor(() => rec.count('open') === 2, 2_000, 'the reconnect', { describe: () => rec.summary() });

    expect(rec.closes).toEqual([{ code: 1006, reason: '', wasClean: false, willReconnect: true }]);
    expect(rec.errors).toEqual([]);
    expect(rec.reconnecting).toEqual([{ attempt: 2, delay: RETRY_DELAY }]);
    expect(rec.opens.at(-1)).toEqual({ attempt: 2, reconnected: true });
    expect(rig.server.disconnects[0]?.code).toBe(1006);

    expect(socket.send('after')).toBe('sent');
    await waitFor(() => rec.messages.length === 1, 1_000, 'the echo');
    expect(rig.server.received).toEqual(['after']);

    await closeAndCheckLeftovers(rig, socket, rec);
    expect(rec.closes.at(-1)).toEqual(OWN_CLOSE);
  });
});

describe('a close frame without a code', () => {
  it('1005 (the server sent an empty close frame) → close {1005, wasClean: true, willReconnect: true}, reconnect', async () => {
    const rig = await createRig(cleanup);
    const { socket, rec } = rig.socket(undefined, options());
    await waitFor(() => socket.state === 'open', 2_000, 'first open');

    for (const client of rig.server.clients) client.close();
    await waitFor(() => rec.count('open') === 2, 2_000, 'the reconnect', { describe: () => rec.summary() });

    expect(rec.closes).toEqual([{ code: 1005, reason: '', wasClean: true, willReconnect: true }]);
    expect(rec.errors).toEqual([]);
    expect(rec.opens.at(-1)).toEqual({ attempt: 2, reconnected: true });

    await closeAndCheckLeftovers(rig, socket, rec);
    expect(rec.closes.at(-1)).toEqual(OWN_CLOSE);
  });
});

describe('a close while the handshake hook runs (the attempt never opened) goes through shouldReconnect too', () => {
  /** A hook that authenticates and waits for the server's echo as the ack. */
  const handshake = handshakeFeature(async (c: HandshakeConnection) => {
    c.send(`auth:${c.attempt}`);
    await c.nextMessage((data) => data.toString() === `auth:${c.attempt}`);
  });

  it('1008 → ERR_RS_CONNECTION_FAILED then ERR_RS_FATAL_CLOSE, giveup, never open', async () => {
    const rig = await createRig(cleanup, { kind: 'accept-then-close', code: 1008, reason: 'bad token' });
    const { socket, rec } = rig.socket(undefined, { ...options(), handshake });
    await waitFor(() => rec.count('giveup') === 1, 2_000, 'giveup', { describe: () => rec.summary() });

    expect(rec.closes).toEqual([{ code: 1008, reason: 'bad token', wasClean: true, willReconnect: false }]);
    expect(rec.errors.map((e) => [e.code, e.closeCode])).toEqual([
      ['ERR_RS_CONNECTION_FAILED', undefined],
      ['ERR_RS_FATAL_CLOSE', 1008],
    ]);
    expect(rec.errors[0]?.message).toEqual(
      errorMessage('ERR_RS_CONNECTION_FAILED', expect.stringContaining('close code 1008')),
    );
    expect(rec.giveups).toEqual([{ attempts: 1, failures: 1, error: rec.errors[1] }]);
    expect(rec.opens).toEqual([]);
    expect(rec.states).toEqual(['closed']);
    expect(socket.state).toBe('closed');

    await sleep(100);
    expect(rig.server.upgrades).toHaveLength(1);
    await closeAndCheckLeftovers(rig, socket, rec);
  });

  it('1013 → ERR_RS_CONNECTION_FAILED, retried; opens once the server lets the handshake finish', async () => {
    const rig = await createRig(cleanup, ({ index }) =>
      index === 0 ? { kind: 'accept-then-close', code: 1013, reason: 'busy' } : ECHO,
    );
    const { socket, rec } = rig.socket(undefined, { ...options(), handshake });
    await waitFor(() => socket.state === 'open', 2_000, 'open', { describe: () => rec.summary() });

    expect(rec.closes).toEqual([{ code: 1013, reason: 'busy', wasClean: true, willReconnect: true }]);
    expect(rec.errors.map((e) => e.code)).toEqual(['ERR_RS_CONNECTION_FAILED']);
    expect(rec.opens).toEqual([{ attempt: 2, reconnected: false }]);
    // 'auth:1' may or may not have been read by the server before it closed; 'auth:2' was, last.
    expect(rig.server.received.filter((m) => m !== 'auth:1')).toEqual(['auth:2']);

    await closeAndCheckLeftovers(rig, socket, rec);
  });
});

describe('the server closes with a fatal code (default shouldReconnect)', () => {
  it.each([
    { code: 1008, reason: 'policy violation' },
    { code: 1002, reason: 'protocol error' },
    { code: 1003, reason: 'unsupported data' },
    { code: 1007, reason: 'invalid payload' },
    { code: 1009, reason: 'message too big' },
    { code: 1010, reason: 'mandatory extension' },
  ])(
    '$code ($reason) → close {willReconnect: false}, ERR_RS_FATAL_CLOSE, giveup, closed; no new attempt',
    async ({ code, reason }) => {
      const rig = await createRig(cleanup);
      const { socket, rec } = rig.socket(undefined, options());
      await waitFor(() => socket.state === 'open', 2_000, 'first open');
      expect(socket.send('hello')).toBe('sent');
      await waitFor(() => rig.server.received.length === 1, 1_000, 'the first message');

      await rig.server.closeAll(code, reason);
      await waitFor(() => rec.count('giveup') === 1, 1_000, 'giveup', { describe: () => rec.summary() });

      expect(socket.state).toBe('closed');
      expect(rec.closes).toEqual([{ code, reason, wasClean: true, willReconnect: false }]);
      const [error] = rec.errors;
      expect(rec.errors).toHaveLength(1);
      expect(error).toMatchObject({ name: 'ResilientSocketError', code: 'ERR_RS_FATAL_CLOSE', closeCode: code });
      expect(error?.message).toEqual(errorMessage('ERR_RS_FATAL_CLOSE', expect.stringContaining(String(code))));
      expect(rec.giveups).toEqual([{ attempts: 1, failures: 1, error }]);
      expect(rec.reconnecting).toEqual([]);
      expect(rec.states).toEqual(['open', 'closed']);
      // (the first state change, idle → connecting, happens inside the constructor, before the
      // recorder listens) … then: close → error → state(closed) → giveup.
      expect(rec.log.map((e) => e.name).filter((n) => n !== 'message')).toEqual([
        'connecting',
        'state',
        'open',
        'state',
        'error',
        'close',
        'giveup',
      ]);

      // Sends after a give-up are refused (the socket is closed), and reported.
      expect(socket.send('late')).toBe('dropped');
      expect(rec.drops).toEqual([{ reason: 'closed', messages: ['late'] }]);

      await sleep(100);
      expect(rig.server.upgrades, 'no attempt after a fatal close').toHaveLength(1);

      await closeAndCheckLeftovers(rig, socket, rec);
      // Nothing was open any more: close() after the give-up reports no second close.
      expect(rec.closes).toHaveLength(1);
      expect(rig.server.received).toEqual(['hello']);
    },
  );
});

describe('application codes 4000–4999 with a custom shouldReconnect', () => {
  it('4500 → retry, 4999 → retry, 4001 → stop (ERR_RS_FATAL_CLOSE, giveup); shouldReconnect sees every close', async () => {
    const rig = await createRig(cleanup);
    const seen: CloseInfo[] = [];
    const { socket, rec } = rig.socket(undefined, {
      ...options(),
      shouldReconnect: (close) => {
        seen.push(close);
        return !(close.code >= 4000 && close.code < 4500); // 4000–4499: "do not come back"
      },
    });
    await waitFor(() => socket.state === 'open', 2_000, 'first open');

    await rig.server.closeAll(4500, 'shard moved');
    await waitFor(() => rec.count('open') === 2, 2_000, 'reconnect after 4500', { describe: () => rec.summary() });
    await rig.server.closeAll(4999, 'rebalance');
    await waitFor(() => rec.count('open') === 3, 2_000, 'reconnect after 4999', { describe: () => rec.summary() });
    await rig.server.closeAll(4001, 'banned');
    await waitFor(() => rec.count('giveup') === 1, 1_000, 'giveup after 4001', { describe: () => rec.summary() });

    expect(seen).toEqual([
      { code: 4500, reason: 'shard moved', wasClean: true },
      { code: 4999, reason: 'rebalance', wasClean: true },
      { code: 4001, reason: 'banned', wasClean: true },
    ]);
    expect(rec.closes).toEqual([
      { code: 4500, reason: 'shard moved', wasClean: true, willReconnect: true },
      { code: 4999, reason: 'rebalance', wasClean: true, willReconnect: true },
      { code: 4001, reason: 'banned', wasClean: true, willReconnect: false },
    ]);
    expect(rec.errors.map((e) => [e.code, e.closeCode])).toEqual([['ERR_RS_FATAL_CLOSE', 4001]]);
    // Not stable in between (stableAfter 5 s), so the failures add up: 3 consecutive.
    expect(rec.giveups).toEqual([{ attempts: 3, failures: 3, error: rec.errors[0] }]);
    expect(rec.reconnecting).toEqual([
      { attempt: 2, delay: RETRY_DELAY },
      { attempt: 3, delay: RETRY_DELAY },
    ]);
    expect(socket.state).toBe('closed');

    await sleep(100);
    expect(rig.server.upgrades).toHaveLength(3);
    await closeAndCheckLeftovers(rig, socket, rec);
  });

  it('the default shouldReconnect reconnects after an application code (4001)', async () => {
    const rig = await createRig(cleanup);
    const { socket, rec } = rig.socket(undefined, options());
    await waitFor(() => socket.state === 'open', 2_000, 'first open');

    await rig.server.closeAll(4001, 'app says bye');
    await waitFor(() => rec.count('open') === 2, 2_000, 'the reconnect', { describe: () => rec.summary() });
    expect(rec.closes).toEqual([{ code: 4001, reason: 'app says bye', wasClean: true, willReconnect: true }]);
    expect(rec.errors).toEqual([]);

    await closeAndCheckLeftovers(rig, socket, rec);
  });
});
