/**
 * Valid timing options (connectTimeout, handshake(…)'s timeout, stableAfter, heartbeat), up to and beyond
 * the largest delay setTimeout takes, on mock-socket under fake timers: none of them cuts a healthy
 * connection early, reports an error or declares it stable before its time.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MAX_TIMER_DELAY } from '../../src/backoff/index.js';
import { handshake } from '../../src/node.js';
import { advance, MOCK_DELAY, startServer, WebSocketImpl } from '../resilient-socket/helpers.js';
import { collectErrors, construct, expectClosesCleanly, run, setUpSocketInput } from './socket-helpers.js';

setUpSocketInput();

describe('valid timing options never cut a healthy connection early', () => {
  const timerMs = fc.oneof(fc.integer({ min: 10, max: MAX_TIMER_DELAY }), fc.constantFrom(10, 10_000, MAX_TIMER_DELAY));

  it('with connectTimeout, a handshake(…) timeout, stableAfter, heartbeat <= 2^31 - 1 ms', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(timerMs, fc.constant(Number.POSITIVE_INFINITY)),
        fc.boolean(),
        fc.oneof(timerMs, fc.constant(Number.POSITIVE_INFINITY)),
        fc.oneof(fc.integer({ min: 0, max: 8 }), timerMs),
        fc.option(
          timerMs.chain((interval) =>
            fc.record({
              interval: fc.constant(interval),
              timeout: fc.integer({ min: 10, max: MAX_TIMER_DELAY }),
            }),
          ),
          { nil: undefined },
        ),
        (connectTimeout, withHandshake, handshakeTimeout, stableAfter, heartbeat) =>
          run(async () => {
            const server = startServer();
            // The timeout is taken (and checked) by handshake(), whether or not the socket gets the hook.
            const hook = handshake(() => Promise.resolve(), { timeout: handshakeTimeout });
            const socket = construct(server.url, {
              WebSocket: WebSocketImpl,
              connectTimeout,
              stableAfter,
              ...(withHandshake ? { handshake: hook } : {}),
              ...(heartbeat ? { heartbeat } : {}),
            });
            const errors = collectErrors(socket);
            let stable = 0;
            socket.on('stable', () => {
              stable += 1;
            });
            await advance(MOCK_DELAY);
            expect(socket.state).toBe('open');
            await advance(6);
            expect(socket.state).toBe('open');
            expect(errors.map((e) => e.code)).toEqual([]);
            expect(stable).toBe(stableAfter <= 6 ? 1 : 0);
            await expectClosesCleanly(socket);
          }),
      ),
      { numRuns: 100 },
    );
  });

  // Regression: was connectTimeout, handshakeTimeout, stableAfter and heartbeat.interval/timeout accept any
  // finite number, but are handed to setTimeout unclamped (resilient-socket.ts #startAttempt,
  // #onSocketOpen, #acceptOpen; heartbeat.ts start()/#armProbe()/#probe(); silence mode uses
  // interval + timeout). setTimeout fires a delay above 2^31 − 1 ms after 1 ms (docs/guide/backoff.md says as
  // much for backoff delays, which *are* clamped). So `connectTimeout: 2 ** 31` abandons every attempt
  // after 1 ms (the socket never connects), `handshakeTimeout: 2 ** 31` fails every handshake that
  // takes over 1 ms, `heartbeat: { interval: 2 ** 31 }` (or interval + timeout > 2^31 − 1) declares
  // every link dead after 1 ms, and `stableAfter: 2 ** 31` declares the connection stable after 1 ms
  // (resetting the backoff, defeating its purpose). Expected: clamp these to 2^31 − 1 (or reject them
  // with a RangeError).
  it.each<[string, Record<string, unknown>, number]>([
    ['connectTimeout: 2 ** 31', { connectTimeout: 2 ** 31 }, 0],
    [
      'handshake(hook, { timeout: 2 ** 31 })',
      { handshake: handshake(() => new Promise((r) => setTimeout(r, 3)), { timeout: 2 ** 31 }) },
      3,
    ],
    ['stableAfter: 2 ** 31', { stableAfter: 2 ** 31 }, 0],
    ['heartbeat: { interval: 2 ** 31 }', { heartbeat: { interval: 2 ** 31 } }, 0],
    ['heartbeat: { interval: 2 ** 30, timeout: 2 ** 30 }', { heartbeat: { interval: 2 ** 30, timeout: 2 ** 30 } }, 0],
  ])('%s keeps a healthy connection open for 100 ms without errors or `stable`', async (_name, options, extra) => {
    const server = startServer();
    const socket = construct(server.url, { WebSocket: WebSocketImpl, ...options });
    const errors = collectErrors(socket);
    let stable = 0;
    socket.on('stable', () => {
      stable += 1;
    });
    await advance(MOCK_DELAY + extra + 100);
    expect(errors.map((e) => e.code)).toEqual([]);
    expect(socket.state).toBe('open');
    expect(stable).toBe(0);
  });
});
