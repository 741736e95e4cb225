/**
 * Arbitrary `code` and `reason` thrown at `close()` in every state, on mock-socket under fake timers:
 * it closes (the closing handshake carries what it was given) and stays idempotent, or throws a
 * TypeError / RangeError naming `code` or `reason` and leaves the socket as usable as before.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { CLOSE_TIMEOUT } from '../../src/node.js';
import { MOCK_DELAY } from '../resilient-socket/helpers.js';
import { anyNumber, anyValue, attempt, expectOptionError, Problems, show } from './arbitraries.js';
import {
  expectAllRsErrors,
  expectClosesCleanly,
  NUM_RUNS,
  run,
  setUpSocketInput,
  socketIn,
  stateArb,
} from './socket-helpers.js';

setUpSocketInput();

// ─── close ─────────────────────────────────────────────────────────────────────────────────

const codeArb: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom<unknown>(undefined, 1000, 3000, 4999) },
  { weight: 3, arbitrary: fc.integer({ min: 3000, max: 4999 }) },
  { weight: 1, arbitrary: fc.constantFrom<unknown>(1001, 1005, 1006, 2999, 5000, 3000.5, -0, Number.NaN) },
  { weight: 1, arbitrary: fc.integer({ min: -10, max: 6000 }) },
  { weight: 1, arbitrary: fc.double({ min: 2999, max: 5000, noNaN: true }) },
  { weight: 1, arbitrary: anyNumber },
  { weight: 1, arbitrary: anyValue },
);
const reasonArb: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 2, arbitrary: fc.constant(undefined) },
  { weight: 2, arbitrary: fc.string({ maxLength: 40 }) },
  { weight: 2, arbitrary: fc.string({ unit: 'binary', maxLength: 60 }) },
  { weight: 1, arbitrary: fc.string({ unit: 'grapheme', minLength: 20, maxLength: 60 }) },
  // Around the 123-byte limit, in 1-, 3- and 4-byte characters and lone surrogates (3 bytes each).
  {
    weight: 2,
    arbitrary: fc.oneof(
      fc.integer({ min: 118, max: 128 }).map((n) => 'a'.repeat(n)),
      fc.integer({ min: 39, max: 43 }).map((n) => '€'.repeat(n)),
      fc.integer({ min: 29, max: 33 }).map((n) => '😀'.repeat(n)),
      fc.integer({ min: 39, max: 43 }).map((n) => '\uD800'.repeat(n)),
      fc.integer({ min: 0, max: 3 }).map((n) => `${'a'.repeat(122 - n)}${'é'.repeat(n + 1)}`),
    ),
  },
  { weight: 1, arbitrary: anyValue },
);

/**
 * Whether mock-socket's close() refuses a reason that real WebSockets accept: it measures UTF-8
 * with encodeURIComponent, which throws on lone surrogates and counts an astral character as 5
 * bytes instead of 4. The socket then falls back to its close timeout (close(): "fall through to
 * the timeout, which cuts the connection").
 */
function mockRefusesReason(reason: unknown): boolean {
  if (typeof reason !== 'string') return false;
  try {
    const continuation = encodeURIComponent(reason).match(/%[89ABab]/g);
    return reason.length + (continuation ? continuation.length : 0) > 123;
  } catch {
    return true;
  }
}

function closeProblems(code: unknown, reason: unknown): Problems {
  const p = new Problems();
  if (code !== undefined) {
    if (typeof code !== 'number') p.add('code', 'type');
    else if (!(code === 1000 || (Number.isInteger(code) && code >= 3000 && code <= 4999))) p.add('code', 'range');
  }
  if (reason !== undefined) {
    if (typeof reason !== 'string') p.add('reason', 'type');
    else if (Buffer.byteLength(reason, 'utf8') > 123) p.add('reason', 'range');
  }
  return p;
}

describe('close(code, reason) under arbitrary input, in every state', () => {
  it('closes (sending code and reason), or throws naming `code`/`reason` and leaves the socket usable', async () => {
    await fc.assert(
      fc.asyncProperty(stateArb, codeArb, reasonArb, fc.boolean(), (state, code, reason, queued) =>
        run(async () => {
          const { socket, errors, closes } = await socketIn(state);
          if (queued) socket.send('queued');
          const before = { state: socket.state, count: socket.bufferedCount };
          const problems = closeProblems(code, reason);
          const closed = attempt(() => socket.close(code as never, reason as never));
          if (!closed.ok) {
            expect(problems.size, `close threw ${show(closed.error)} for valid arguments`).toBeGreaterThan(0);
            expectOptionError(closed.error, problems);
            // Nothing changed: the socket is as usable as before.
            expect(socket.state).toBe(before.state);
            expect(socket.bufferedCount).toBe(before.count);
            if (before.state === 'open') expect(socket.send('still works')).toBe('sent');
            if (before.state === 'idle') {
              socket.open();
              expect(socket.state).toBe('connecting');
            }
            await expectClosesCleanly(socket);
          } else {
            expect(problems.size, `close accepted ${problems}`).toBe(0);
            const refused = before.state === 'open' && mockRefusesReason(reason);
            await expectClosesCleanly(socket, () => undefined, refused ? CLOSE_TIMEOUT + MOCK_DELAY : MOCK_DELAY);
            if (before.state === 'open') {
              // The closing handshake carries what close() was given (or the timeout cut it).
              expect(closes.map(({ code: c, reason: r }) => ({ code: c, reason: r }))).toEqual([
                refused ? { code: 1006, reason: 'close timeout' } : { code: code ?? 1000, reason: reason ?? '' },
              ]);
            }
            // Idempotent, even with another round of arbitrary arguments.
            const again = attempt(() => socket.close(code as never, reason as never));
            expect(again.ok).toBe(true);
            expect(socket.state).toBe('closed');
          }
          expectAllRsErrors(errors);
        }),
      ),
      { numRuns: NUM_RUNS },
    );
  });
});
