/**
 * Listeners and callbacks that throw, on mock-socket under fake timers: arbitrary values thrown from
 * any event's listener or from shouldReconnect, and values String() cannot convert. The machine goes
 * on undisturbed, and every exception surfaces once as an `error` event (ERR_RS_LISTENER_THREW,
 * ERR_RS_CALLBACK_FAILED, ERR_RS_PROVIDER_FAILED), never as an unhandled rejection.
 */
import fc from 'fast-check';
import { describe, expect, it, vi } from 'vitest';
import { constant } from '../../src/backoff/index.js';
import { EVENT_NAMES } from '../../src/core/events.js';
import { ErrorCodes } from '../../src/errors.js';
import { advance, MOCK_DELAY, settle, startServer, WebSocketImpl } from '../resilient-socket/helpers.js';
import { anything } from './arbitraries.js';
import {
  collectErrors,
  construct,
  expectAllRsErrors,
  NUM_RUNS,
  run,
  setUpSocketInput,
  tracker,
} from './socket-helpers.js';

setUpSocketInput();

// ─── throwing listeners ────────────────────────────────────────────────────────────────────

/** Every event but `error` (what a throwing `error` listener throws becomes a process warning instead). */
const THROWABLE_EVENTS = EVENT_NAMES.filter((name) => name !== 'error');

describe('listeners that throw', () => {
  it('never disturb the machine; every exception surfaces as ERR_RS_LISTENER_THREW or ERR_RS_CALLBACK_FAILED', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.subarray([...THROWABLE_EVENTS]),
        fc.array(anything, {
          minLength: THROWABLE_EVENTS.length,
          maxLength: THROWABLE_EVENTS.length,
        }),
        fc.constantFrom(0, 1, 1_000),
        fc.boolean(),
        fc.boolean(),
        (throwing, values, stableAfter, giveUp, throwingShouldReconnect) =>
          run(async () => {
            // A throwing shouldReconnect counts as "reconnect", so it cannot be combined with a fatal close.
            fc.pre(!(giveUp && throwingShouldReconnect));
            const server = startServer();
            const exceptions: unknown[] = [];
            const socket = construct(server.url, {
              WebSocket: WebSocketImpl,
              autoConnect: false,
              backoff: constant({ delay: 10 }),
              heartbeat: false,
              stableAfter,
              ...(throwingShouldReconnect
                ? {
                    shouldReconnect: () => {
                      const value = { thrownBy: 'shouldReconnect' };
                      exceptions.push(value);
                      throw value;
                    },
                  }
                : {}),
            });
            // Recorders first: a throwing listener stops the listeners after it.
            const transitions: string[] = [];
            socket.on('state', ({ previous, current }) => {
              transitions.push(`${previous}→${current}`);
            });
            let stable = 0;
            socket.on('stable', () => {
              stable += 1;
            });
            const errors = collectErrors(socket);
            const thrownBy = new Map<string, number>();
            throwing.forEach((event, i) => {
              const value = values[i];
              (socket.on as (event: string, fn: () => void) => unknown)(event, () => {
                thrownBy.set(event, (thrownBy.get(event) ?? 0) + 1);
                exceptions.push(value);
                throw value;
              });
            });

            socket.open();
            await advance(MOCK_DELAY + 2);
            expect(socket.state).toBe('open');
            server.broadcast('hello');
            expect(socket.send('now')).toBe('sent');
            server.closeLast(4000, 'restart');
            await advance(MOCK_DELAY);
            expect(socket.state).toBe('reconnecting');
            expect(socket.send('only now', { buffer: false })).toBe('dropped');
            expect(socket.send('queued')).toBe('buffered');
            await advance(10 + MOCK_DELAY + 2);
            expect(socket.state).toBe('open');
            expect(socket.bufferedCount).toBe(0);
            if (giveUp) {
              server.closeLast(1008, 'policy');
              await advance(MOCK_DELAY);
              expect(socket.state).toBe('closed');
            } else {
              socket.close();
              expect(socket.state).toBe('closing');
              await advance(MOCK_DELAY);
              expect(socket.state).toBe('closed');
            }

            expect(transitions).toEqual([
              'idle→connecting',
              'connecting→open',
              'open→reconnecting',
              'reconnecting→connecting',
              'connecting→open',
              ...(giveUp ? ['open→closed'] : ['open→closing', 'closing→closed']),
            ]);
            expect(stable).toBe(stableAfter <= 2 ? 2 : 0);
            expect(vi.getTimerCount()).toBe(0);
            expect(socket.stats.messagesOut).toBe(2);
            expect(server.received).toEqual(['now', 'queued']);

            // Every exception, and nothing else, surfaced once: a listener's as ERR_RS_LISTENER_THREW,
            // in the order they threw; shouldReconnect's as ERR_RS_CALLBACK_FAILED (reported with the
            // loss it decided about, after the state change it led to).
            expectAllRsErrors(errors);
            const USER = new Set<string>([ErrorCodes.LISTENER_THREW, ErrorCodes.CALLBACK_FAILED]);
            const threw = errors.filter((e) => e.code === ErrorCodes.LISTENER_THREW);
            const fromListeners = exceptions.filter(
              (e) => (e as { thrownBy?: unknown } | null)?.thrownBy !== 'shouldReconnect' || !throwingShouldReconnect,
            );
            const fromCallback = errors.filter((e) => e.code === ErrorCodes.CALLBACK_FAILED);
            expect(threw.length + fromCallback.length, `exceptions from ${throwing.join(', ') || 'nothing'}`).toBe(
              exceptions.length,
            );
            expect(fromCallback.length).toBe(exceptions.length - fromListeners.length);
            for (const error of fromCallback) {
              expect((error.cause as { thrownBy?: unknown }).thrownBy).toBe('shouldReconnect');
              expect(exceptions).toContain(error.cause);
            }
            threw.forEach((error, i) => {
              expect(Object.is(error.cause, fromListeners[i]), `cause ${i}`).toBe(true);
            });
            const others = errors.filter((e) => !USER.has(e.code)).map((e) => e.code);
            expect(others).toEqual(giveUp ? [ErrorCodes.FATAL_CLOSE] : []);
            // Each throwing listener was reached (every event happens in this script, but these four).
            for (const event of throwing) {
              if (event === 'giveup' && !giveUp) continue;
              if (event === 'stable' && stableAfter > 2) continue;
              if (event === 'acked') continue; // no reliable message in this script (no delivery())
              if (event === 'drain') continue; // nothing goes above the high-water mark in this script
              expect(thrownBy.get(event), `the ${event} listener ran`).toBeGreaterThan(0);
            }
          }),
      ),
      { numRuns: NUM_RUNS },
    );
  });
});

// Regression (fixed): exceptions from user code were turned into messages with String(thrown), which itself throws
// (`TypeError: Cannot convert object to primitive value`) for a null-prototype object, or any value
// whose toString/valueOf throw or return an object:
//  - resilient-socket.ts #reportListenerError: `A listener threw: ${String(thrown)}` runs inside the
//    catch of #emit, so the TypeError escapes #emit and unwinds the state machine mid-step. A `state`
//    listener throwing Object.create(null) on open() makes open() itself throw, and leaves the socket
//    in `connecting` with no connect timer and no attempt in flight: stuck forever. The same escape
//    happens from every emit site (e.g. out of a mock-socket/ws close event handler for `giveup`),
//    and from shouldReconnect / backoff.next() failures, which use the same reporter.
//  - #startAttempt (provider failure), #onSocketOpen (handshake failure) and #openSocket (WebSocket
//    constructor failure) build `... ${String(error)}` inside a promise callback: the TypeError becomes
//    an unhandled rejection (which terminates a default Node process) and the attempt is only
//    abandoned by connectTimeout/handshakeTimeout, with no error event for the original failure.
// Now describeThrown() never throws, so the failure is reported as ERR_RS_LISTENER_THREW /
// ERR_RS_PROVIDER_FAILED / ERR_RS_HANDSHAKE_FAILED like any other.
describe('exceptions String() cannot convert', () => {
  it('a state listener throwing a null-prototype object does not break open()', async () => {
    const server = startServer();
    const socket = construct(server.url, { WebSocket: WebSocketImpl, autoConnect: false });
    const errors = collectErrors(socket);
    socket.once('state', () => {
      throw Object.create(null);
    });
    expect(() => socket.open()).not.toThrow();
    await advance(MOCK_DELAY);
    expect(socket.state).toBe('open');
    expect(errors.map((e) => e.code)).toEqual([ErrorCodes.LISTENER_THREW]);
  });

  it('a URL provider rejecting with a null-prototype object is reported, not an unhandled rejection', async () => {
    const socket = construct(() => Promise.reject(Object.create(null)), {
      WebSocket: WebSocketImpl,
      connectTimeout: 1_000,
      // A fixed wait, so no second attempt can fall inside settle().
      backoff: { next: () => 5_000, reset: () => undefined },
    });
    const errors = collectErrors(socket);
    await settle();
    expect(await tracker.take()).toEqual([]);
    expect(errors.map((e) => e.code)).toEqual([ErrorCodes.PROVIDER_FAILED]);
  });
});
