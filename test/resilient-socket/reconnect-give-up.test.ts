/**
 * When the socket stops reconnecting: after `maxRetries` consecutive failures, on a close code the
 * policy calls fatal, or when `shouldReconnect` (sync or async) says no. It reports the error, emits
 * `giveup` and ends `closed` with nothing left; open() starts afresh.
 */
import { describe, expect, it, vi } from 'vitest';
import { constant } from '../../src/backoff/constant.js';
import type { CloseInfo } from '../../src/core/close-codes.js';
import { ErrorCodes, type ResilientSocketError } from '../../src/errors.js';
import { SHOULD_RECONNECT_TIMEOUT } from '../../src/node.js';
import { errorMessage } from '../helpers/mode.js';
import {
  advance,
  createSocket,
  expectMessage,
  expectRsError,
  halfTbe,
  MOCK_DELAY,
  openSocket,
  record,
  startServer,
  uniqueUrl,
  useFakeTimersAndCleanup,
} from './helpers.js';

useFakeTimersAndCleanup();

describe('maxRetries', () => {
  it('with maxRetries 2 the third consecutive failure gives up: error, giveup, closed', async () => {
    const url = uniqueUrl();
    const socket = createSocket(url, { maxRetries: 2, backoff: constant({ delay: 100 }) });
    const log = record(socket);
    await advance(MOCK_DELAY + 100 + MOCK_DELAY + 100 + MOCK_DELAY - 1);
    expect(socket.state).toBe('connecting');
    expect(log.of('reconnecting').map((r) => r.attempt)).toEqual([2, 3]);
    log.clear();
    await advance(1);
    expect(log.names()).toEqual(['state', 'error', 'error', 'close', 'giveup']);
    expect(log.errors()).toEqual([ErrorCodes.CONNECTION_FAILED, ErrorCodes.RETRIES_EXHAUSTED]);
    expect(log.of('close')).toEqual([{ code: 1000, reason: '', wasClean: true, willReconnect: false }]);
    const exhausted = log.of('error')[1] as ResilientSocketError;
    expect(exhausted.cause).toBe(log.of('error')[0]);
    expectMessage(exhausted, ErrorCodes.RETRIES_EXHAUSTED, 'maxRetries 2');
    expect(log.of('giveup')).toEqual([{ attempts: 3, failures: 3, error: exhausted }]);
    expect(log.states()).toEqual(['connecting→closed']);
    expect(socket.state).toBe('closed');
    expect(socket.readyState).toBe(3);
    expect(socket.stats.lastError).toBe(exhausted);
    await advance(MOCK_DELAY);
    expect(vi.getTimerCount()).toBe(0);
  });

  it('open() after a give-up starts afresh with attempt 1 and a fresh backoff', async () => {
    const url = uniqueUrl();
    const socket = createSocket(url, { maxRetries: 1, backoff: halfTbe() });
    const log = record(socket);
    await advance(100);
    expect(socket.state).toBe('closed');
    expect(log.of('giveup')).toHaveLength(1);
    expect(socket.attempt).toBe(2);
    expect(socket.failures).toBe(2);

    log.clear();
    socket.open(); // still no server: fails again
    expect(socket.state).toBe('connecting');
    expect(socket.attempt).toBe(1);
    expect(socket.failures).toBe(0);
    await advance(MOCK_DELAY);
    expect(log.of('connecting')).toEqual([{ attempt: 1, url }]);
    expect(log.of('reconnecting')).toEqual([{ attempt: 2, delay: 9.765625 }]);

    startServer(url);
    await advance(9 + MOCK_DELAY);
    expect(socket.state).toBe('open');
    expect(log.of('open')).toEqual([{ attempt: 2, reconnected: false }]);
  });

  it('maxRetries counts an accepted-then-dropped connection as a failure (not stable yet)', async () => {
    const url = uniqueUrl();
    startServer(url, (client) => client.close({ code: 1011, reason: '', wasClean: false }));
    const socket = createSocket(url, { maxRetries: 1, backoff: constant({ delay: 10 }) });
    const log = record(socket);
    await advance(100);
    expect(log.of('open')).toHaveLength(2);
    expect(log.errors()).toEqual([ErrorCodes.RETRIES_EXHAUSTED]);
    expect(log.of('giveup')).toEqual([{ attempts: 2, failures: 2, error: log.of('error')[0] }]);
    expect(socket.state).toBe('closed');
  });

  it('maxRetries 0 gives up on the first failure', async () => {
    const socket = createSocket(uniqueUrl(), { maxRetries: 0 });
    const log = record(socket);
    await advance(MOCK_DELAY);
    expect(log.of('giveup')).toHaveLength(1);
    expect(log.of('giveup')[0]?.attempts).toBe(1);
    expect(log.names()).not.toContain('reconnecting');
  });
});

describe('close-code policy', () => {
  it('a server close with 1008 does not reconnect: ERR_RS_FATAL_CLOSE, giveup, closed', async () => {
    const { server, socket, log } = await openSocket({ backoff: constant({ delay: 10 }) });
    socket.send('x'); // sent
    log.clear();
    server.closeLast(1008, 'policy');
    await advance(MOCK_DELAY);
    expect(log.names()).toEqual(['state', 'error', 'close', 'giveup']);
    expect(log.of('close')).toEqual([{ code: 1008, reason: 'policy', wasClean: false, willReconnect: false }]);
    const error = expectRsError(log.of('error')[0], ErrorCodes.FATAL_CLOSE);
    expect(error.closeCode).toBe(1008);
    expectMessage(error, ErrorCodes.FATAL_CLOSE, '1008');
    expect(log.of('giveup')).toEqual([{ attempts: 1, failures: 1, error }]);
    expect(socket.state).toBe('closed');
    await advance(1000);
    expect(server.clients).toHaveLength(1);
    expect(vi.getTimerCount()).toBe(0);
  });

  it.each([1002, 1003, 1007, 1009, 1010])('gives up after %i too', async (code) => {
    const { server, socket, log } = await openSocket();
    server.closeLast(code);
    await advance(MOCK_DELAY);
    expect(socket.state).toBe('closed');
    expect(log.errors()).toEqual([ErrorCodes.FATAL_CLOSE]);
  });

  it('a custom shouldReconnect decides: false for 4000–4999, true otherwise (even 1008)', async () => {
    const shouldReconnect = vi.fn((close: CloseInfo) => !(close.code >= 4000 && close.code <= 4999));
    const options = { shouldReconnect, backoff: constant({ delay: 10 }) };

    const a = await openSocket(options);
    a.server.closeLast(1008, 'policy');
    await advance(MOCK_DELAY);
    expect(shouldReconnect).toHaveBeenLastCalledWith({ code: 1008, reason: 'policy', wasClean: false });
    expect(a.socket.state).toBe('reconnecting');
    expect(a.log.of('close')[0]?.willReconnect).toBe(true);

    const b = await openSocket(options);
    b.server.closeLast(4001, 'banned');
    await advance(MOCK_DELAY);
    expect(shouldReconnect).toHaveBeenLastCalledWith({ code: 4001, reason: 'banned', wasClean: false });
    expect(b.socket.state).toBe('closed');
    expect(b.log.of('close')[0]?.willReconnect).toBe(false);
    expect(b.log.of('giveup')).toHaveLength(1);
    expectRsError(b.log.of('giveup')[0]?.error, ErrorCodes.FATAL_CLOSE);

    const c = await openSocket(options);
    c.server.closeLast(3999);
    await advance(MOCK_DELAY);
    expect(c.socket.state).toBe('reconnecting');
  });

  it('a throwing shouldReconnect is reported and the socket reconnects', async () => {
    const { server, socket, log } = await openSocket({
      shouldReconnect: () => {
        throw new Error('oops');
      },
      backoff: constant({ delay: 10 }),
    });
    server.closeLast(1011);
    await advance(MOCK_DELAY);
    expect(socket.state).toBe('reconnecting');
    expect(log.errors()).toEqual([ErrorCodes.CALLBACK_FAILED]);
    expect(log.of('error')[0]?.message).toBe(errorMessage(ErrorCodes.CALLBACK_FAILED, '`shouldReconnect` threw: oops'));
  });
});

// Regression, it was: a shouldReconnect returning a
// Promise counted as true, so `() => Promise.resolve(false)` reconnected for ever.
describe('an async shouldReconnect', () => {
  /** A shouldReconnect whose promise the test settles, with `decide(again)`. */
  function pendingDecision() {
    let decide: (again: boolean) => void = () => undefined;
    const shouldReconnect = () =>
      new Promise<boolean>((resolve) => {
        decide = resolve;
      });
    return { shouldReconnect, decide: (again: boolean) => decide(again) };
  }

  it('resolving false gives up: the close waits for the decision and says willReconnect: false', async () => {
    const { server, socket, log } = await openSocket({
      shouldReconnect: async () => false,
      backoff: constant({ delay: 10 }),
    });
    log.clear();
    server.closeLast(4000, 'kicked');
    await advance(MOCK_DELAY);
    expect(socket.state).toBe('closed');
    expect(log.names()).toEqual(['state', 'state', 'error', 'close', 'giveup']);
    expect(log.states()).toEqual(['open→reconnecting', 'reconnecting→closed']);
    expect(log.of('close')).toEqual([{ code: 4000, reason: 'kicked', wasClean: false, willReconnect: false }]);
    expectRsError(log.of('error')[0], ErrorCodes.FATAL_CLOSE);
    await advance(1_000);
    expect(server.clients).toHaveLength(1);
    expect(vi.getTimerCount()).toBe(0);
  });

  it('resolving true reconnects with the usual delay; the socket waits in reconnecting meanwhile', async () => {
    const { shouldReconnect, decide } = pendingDecision();
    const { server, socket, log } = await openSocket({
      shouldReconnect,
      backoff: constant({ delay: 100 }),
    });
    log.clear();
    server.closeLast(1012);
    await advance(MOCK_DELAY + 1_000);
    expect(socket.state).toBe('reconnecting');
    expect(socket.stats.nextRetryAt).toBeUndefined();
    expect(log.names()).toEqual(['state']); // no close yet: whether a retry follows is not known
    decide(true);
    await advance(0);
    expect(log.names()).toEqual(['state', 'close', 'reconnecting']);
    expect(log.of('close')[0]?.willReconnect).toBe(true);
    await advance(100 + MOCK_DELAY);
    expect(socket.state).toBe('open');
  });

  it(`a promise that never settles is cut off after ${SHOULD_RECONNECT_TIMEOUT} ms: reported, and the socket reconnects`, async () => {
    const { server, socket, log } = await openSocket({
      shouldReconnect: () => new Promise<boolean>(() => undefined),
      backoff: constant({ delay: 10 }),
    });
    server.closeLast(1012);
    await advance(MOCK_DELAY + SHOULD_RECONNECT_TIMEOUT - 1);
    expect(socket.state).toBe('reconnecting');
    expect(log.errors()).toEqual([]);
    await advance(1);
    const error = expectRsError(log.of('error')[0], ErrorCodes.CALLBACK_FAILED);
    expectMessage(error, ErrorCodes.CALLBACK_FAILED, '`shouldReconnect` timed out');
    await advance(10 + MOCK_DELAY);
    expect(socket.state).toBe('open');
  });

  it('a promise that rejects is reported and counts as true', async () => {
    const { server, socket, log } = await openSocket({
      shouldReconnect: () => Promise.reject(new Error('auth service down')),
      backoff: constant({ delay: 10 }),
    });
    server.closeLast(1012);
    await advance(MOCK_DELAY);
    const error = expectRsError(log.of('error')[0], ErrorCodes.CALLBACK_FAILED);
    expect(error.message).toBe(
      errorMessage(ErrorCodes.CALLBACK_FAILED, '`shouldReconnect` rejected: auth service down'),
    );
    expect(socket.state).toBe('reconnecting');
    await advance(10 + MOCK_DELAY);
    expect(socket.state).toBe('open');
  });

  it('close() during the wait: closed at once, the pending close is told, the late answer is ignored', async () => {
    const { shouldReconnect, decide } = pendingDecision();
    const { server, socket, log } = await openSocket({
      shouldReconnect,
    });
    server.closeLast(1012);
    await advance(MOCK_DELAY);
    log.clear();
    socket.close();
    expect(log.names()).toEqual(['state', 'close']);
    expect(log.of('close')).toEqual([{ code: 1012, reason: '', wasClean: false, willReconnect: false }]);
    expect(vi.getTimerCount()).toBe(0);
    decide(true);
    await advance(1_000);
    expect(log.names()).toEqual(['state', 'close']);
    expect(socket.state).toBe('closed');
  });

  it('reconnect() during the wait: a new attempt at once; the late answer is ignored', async () => {
    const { shouldReconnect, decide } = pendingDecision();
    const { server, socket, log } = await openSocket({
      shouldReconnect,
    });
    server.closeLast(1012);
    await advance(MOCK_DELAY);
    socket.reconnect();
    expect(log.of('close').at(-1)?.willReconnect).toBe(true);
    await advance(MOCK_DELAY);
    expect(socket.state).toBe('open');
    decide(false);
    await advance(1_000);
    expect(socket.state).toBe('open');
    expect(log.names()).not.toContain('giveup');
  });
});
