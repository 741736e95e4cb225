/**
 * `decide()` and `retryDelay()` (src/core/decide.ts): the choice after a loss, as a table of facts
 * and a few properties. No socket: the function is pure.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MAX_TIMER_DELAY } from '../../src/backoff/policy.js';
import type { CloseInfo } from '../../src/core/close-codes.js';
import { type Decision, decide as decideLoss, type LossFacts as LossSays, retryDelay } from '../../src/core/decide.js';
import { ErrorCodes, isResilientSocketError, ResilientSocketError } from '../../src/errors.js';
import { errorMessage } from '../helpers/mode.js';

/** Every fact the decision is made from: what the loss says, the counts, the answer, the network. */
interface LossFacts extends LossSays {
  readonly failures: number;
  readonly maxRetries: number;
  readonly again: boolean;
  readonly offline: boolean;
}

/** `decide()` on the facts of one row. */
const decide = (f: LossFacts): Decision => decideLoss(f, f.failures, f.maxRetries, f.again, f.offline);

/** A loss that retries: one failure, no limit, reconnect allowed, nothing stops, online. */
const BASE: LossFacts = {
  failures: 1,
  maxRetries: Number.POSITIVE_INFINITY,
  again: true,
  close: undefined,
  stop: undefined,
  error: undefined,
  offline: false,
};

const facts = (over: Partial<LossFacts> = {}): LossFacts => ({ ...BASE, ...over });

const STOP = new ResilientSocketError('ERR_RS_UNAUTHORIZED', 'refused twice', { status: 401 });
const FAILED = new ResilientSocketError('ERR_RS_CONNECTION_FAILED', 'Connection attempt 4 failed (close code 1006)');
const FATAL: CloseInfo = { code: 1008, reason: 'policy', wasClean: true };
const PLAIN: CloseInfo = { code: 1006, reason: '', wasClean: false };

/** What a decision says: retry, wait for the network, or give up (an error). */
type Kind = 'retry' | 'wait-for-network' | 'give-up';
const kindOf = (decision: Decision): Kind => (typeof decision === 'object' ? 'give-up' : decision);

/** The error of a give-up decision (failing the test for any other kind). */
function givenUp(decision: Decision): ResilientSocketError {
  expect(kindOf(decision)).toBe('give-up');
  if (typeof decision !== 'object') throw new Error('unreachable');
  expect(isResilientSocketError(decision)).toBe(true);
  return decision;
}

describe('decide(): the table', () => {
  it.each<[string, Partial<LossFacts>, Kind, string | undefined]>([
    ['nothing special', {}, 'retry', undefined],
    ['a plain close, reconnect allowed', { close: PLAIN }, 'retry', undefined],
    ['again: false without a close (a failure we caused)', { again: false }, 'retry', undefined],
    ['offline, nothing stops', { offline: true }, 'wait-for-network', undefined],
    ['offline with a close, reconnect allowed', { offline: true, close: PLAIN }, 'wait-for-network', undefined],
    ['failures == maxRetries (the last retry)', { failures: 3, maxRetries: 3 }, 'retry', undefined],
    ['failures > maxRetries', { failures: 4, maxRetries: 3 }, 'give-up', 'ERR_RS_RETRIES_EXHAUSTED'],
    ['maxRetries 0, first failure', { failures: 1, maxRetries: 0 }, 'give-up', 'ERR_RS_RETRIES_EXHAUSTED'],
    ["a feature's stop", { stop: STOP }, 'give-up', 'ERR_RS_UNAUTHORIZED'],
    ['again: false with a close', { again: false, close: FATAL }, 'give-up', 'ERR_RS_FATAL_CLOSE'],
    ['stop while offline', { stop: STOP, offline: true }, 'give-up', 'ERR_RS_UNAUTHORIZED'],
    ['fatal close while offline', { again: false, close: FATAL, offline: true }, 'give-up', 'ERR_RS_FATAL_CLOSE'],
    ['exhausted while offline', { failures: 2, maxRetries: 1, offline: true }, 'give-up', 'ERR_RS_RETRIES_EXHAUSTED'],
  ])('%s → %s %s', (_what, over, kind, code) => {
    const decision = decide(facts(over));
    expect(kindOf(decision)).toBe(kind);
    if (code !== undefined) expect(givenUp(decision).code).toBe(code);
  });

  it("a feature's stop is given up with as is (the same error object)", () => {
    expect(givenUp(decide(facts({ stop: STOP })))).toBe(STOP);
  });

  it('a fatal close: ERR_RS_FATAL_CLOSE naming the code and the reason, closeCode set', () => {
    const error = givenUp(decide(facts({ again: false, close: { code: 4001, reason: 'kicked', wasClean: true } })));
    expect(error).toBeInstanceOf(ResilientSocketError);
    expect(error.code).toBe(ErrorCodes.FATAL_CLOSE);
    expect(error.closeCode).toBe(4001);
    expect(error.message).toBe(
      errorMessage(
        ErrorCodes.FATAL_CLOSE,
        'The server closed the connection with code 4001 (kicked); not reconnecting',
      ),
    );
    expect(error.cause).toBeUndefined();
  });

  it('a fatal close without a reason has no empty parentheses', () => {
    const error = givenUp(decide(facts({ again: false, close: { code: 1008, reason: '', wasClean: true } })));
    expect(error.message).toBe(
      errorMessage(ErrorCodes.FATAL_CLOSE, 'The server closed the connection with code 1008; not reconnecting'),
    );
    expect(error.closeCode).toBe(1008);
  });

  it('retries exhausted: the counts in the message, the loss error as cause', () => {
    const error = givenUp(decide(facts({ failures: 4, maxRetries: 3, error: FAILED })));
    expect(error.code).toBe(ErrorCodes.RETRIES_EXHAUSTED);
    expect(error.message).toBe(
      errorMessage(ErrorCodes.RETRIES_EXHAUSTED, 'Gave up after 4 consecutive failures (maxRetries 3)'),
    );
    expect(error.cause).toBe(FAILED);
    expect(error.closeCode).toBeUndefined();
  });

  it('retries exhausted without a loss error: no cause at all', () => {
    const error = givenUp(decide(facts({ failures: 1, maxRetries: 0, close: PLAIN })));
    expect(error.code).toBe(ErrorCodes.RETRIES_EXHAUSTED);
    expect(error.cause).toBeUndefined();
    expect('cause' in error).toBe(false);
  });

  describe('precedence: stop, then the fatal close, then maxRetries', () => {
    it("a feature's stop wins over a fatal close and over exhausted retries", () => {
      const all = facts({ stop: STOP, again: false, close: FATAL, failures: 9, maxRetries: 1, error: FAILED });
      expect(givenUp(decide(all))).toBe(STOP);
    });

    it('a fatal close wins over exhausted retries', () => {
      const error = givenUp(decide(facts({ again: false, close: FATAL, failures: 9, maxRetries: 1, error: FAILED })));
      expect(error.code).toBe(ErrorCodes.FATAL_CLOSE);
      expect(error.closeCode).toBe(1008);
    });

    it('again: false without a close does not turn exhausted retries into a fatal close', () => {
      const error = givenUp(decide(facts({ again: false, failures: 2, maxRetries: 1 })));
      expect(error.code).toBe(ErrorCodes.RETRIES_EXHAUSTED);
    });
  });

  it('does not change the facts it is given', () => {
    const given = Object.freeze(facts({ again: false, close: FATAL, failures: 3, maxRetries: 1, error: FAILED }));
    expect(() => decide(given)).not.toThrow();
    expect(given.error).toBe(FAILED);
  });
});

describe('decide(): properties', () => {
  const closeArb = fc.option(
    fc.record({
      code: fc.integer({ min: 1000, max: 4999 }),
      reason: fc.string({ maxLength: 20 }),
      wasClean: fc.boolean(),
    }),
    { nil: undefined },
  );
  const factsArb: fc.Arbitrary<LossFacts> = fc.record({
    failures: fc.integer({ min: 1, max: 1_000 }),
    maxRetries: fc.oneof(fc.integer({ min: 0, max: 1_000 }), fc.constant(Number.POSITIVE_INFINITY)),
    again: fc.boolean(),
    close: closeArb,
    stop: fc.option(fc.constant(STOP), { nil: undefined }),
    error: fc.option(fc.constant(FAILED), { nil: undefined }),
    offline: fc.boolean(),
  });

  it('never retries (nor waits) once failures > maxRetries', () => {
    fc.assert(
      fc.property(factsArb, (f) => {
        fc.pre(f.failures > f.maxRetries);
        expect(kindOf(decide(f))).toBe('give-up');
      }),
    );
  });

  it('never retries (nor waits) after a stop, or after again: false with a close', () => {
    fc.assert(
      fc.property(factsArb, (f) => {
        fc.pre(f.stop !== undefined || (!f.again && f.close !== undefined));
        expect(kindOf(decide(f))).toBe('give-up');
      }),
    );
  });

  it('gives up exactly when something stops it; otherwise waits iff offline', () => {
    fc.assert(
      fc.property(factsArb, (f) => {
        const stops = f.stop !== undefined || (!f.again && f.close !== undefined) || f.failures > f.maxRetries;
        const kind = kindOf(decide(f));
        expect(kind).toBe(stops ? 'give-up' : f.offline ? 'wait-for-network' : 'retry');
      }),
    );
  });

  it('offline changes nothing about a give-up (same code either way)', () => {
    fc.assert(
      fc.property(factsArb, (f) => {
        const online = decide({ ...f, offline: false });
        const offline = decide({ ...f, offline: true });
        if (typeof online === 'object') expect(givenUp(offline).code).toBe(online.code);
        else expect(offline).toBe('wait-for-network');
      }),
    );
  });

  it('maxRetries: Infinity never gives up by itself', () => {
    fc.assert(
      fc.property(factsArb, fc.integer({ min: 1, max: Number.MAX_SAFE_INTEGER }), (f, failures) => {
        const d = decide({ ...f, failures, maxRetries: Number.POSITIVE_INFINITY, stop: undefined, again: true });
        expect(kindOf(d)).not.toBe('give-up');
      }),
    );
  });
});

describe('retryDelay()', () => {
  it.each<[string, number, number, boolean, number]>([
    ['immediate → 0, whatever was drawn', 5_000, 0, true, 0],
    ['immediate → 0, even with a minimum', 5_000, 30_000, true, 0],
    ['the draw when above the minimum', 700, 500, false, 700],
    ['the minimum when above the draw', 300, 1_000, false, 1_000],
    ['equal', 1_000, 1_000, false, 1_000],
    ['0 and 0', 0, 0, false, 0],
    ['clamped: a huge minimum', 10, 2 ** 40, false, MAX_TIMER_DELAY],
    ['clamped: an infinite minimum (maxRetryAfter: Infinity)', 10, Number.POSITIVE_INFINITY, false, MAX_TIMER_DELAY],
    ['clamped: a huge draw', 2 ** 33, 0, false, MAX_TIMER_DELAY],
    ['exactly the largest timer delay', MAX_TIMER_DELAY, 0, false, MAX_TIMER_DELAY],
  ])('%s', (_what, drawn, minimum, immediate, expected) => {
    expect(retryDelay(drawn, minimum, immediate)).toBe(expected);
  });

  it('the largest timer delay is 2^31 − 1', () => {
    expect(MAX_TIMER_DELAY).toBe(2 ** 31 - 1);
  });

  it('property: 0 when immediate, else max(drawn, minimum) clamped to [0, 2^31 − 1]', () => {
    const ms = fc.oneof(
      fc.double({ min: 0, max: 2 ** 35, noNaN: true }),
      fc.integer({ min: 0, max: MAX_TIMER_DELAY }),
      fc.constant(Number.POSITIVE_INFINITY),
    );
    fc.assert(
      fc.property(ms, ms, fc.boolean(), (drawn, minimum, immediate) => {
        const delay = retryDelay(drawn, minimum, immediate);
        expect(delay).toBeGreaterThanOrEqual(0);
        expect(delay).toBeLessThanOrEqual(MAX_TIMER_DELAY);
        if (immediate) expect(delay).toBe(0);
        else {
          expect(delay).toBe(Math.min(Math.max(drawn, minimum), MAX_TIMER_DELAY));
          // Never shorter than what the server asked for, unless that exceeds a timer's reach.
          expect(delay).toBeGreaterThanOrEqual(Math.min(minimum, MAX_TIMER_DELAY));
          expect(delay).toBeGreaterThanOrEqual(Math.min(drawn, MAX_TIMER_DELAY));
        }
      }),
    );
  });
});
