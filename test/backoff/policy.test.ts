import { describe, expect, it, vi } from 'vitest';
import {
  type BackoffPolicy,
  constant,
  decorrelatedJitter,
  equalJitter,
  exponential,
  fullJitter,
  isBackoffPolicy,
  MAX_TIMER_DELAY,
  phasedBinaryExponential,
  truncatedBinaryExponential,
} from '../../src/backoff/index.js';
import {
  assertBackoffPolicy,
  clampDelay,
  createPolicy,
  exponentialWindow,
  MADE_FROM,
  type MadeFrom,
  resolveRandom,
} from '../../src/backoff/policy.js';
import type { DelayStep } from '../../src/backoff/types.js';
import { expectInputError } from '../helpers/mode.js';
import { expectOptionError, scripted, take } from './helpers.js';

const FACTORIES: ReadonlyArray<[string, (random: () => number) => BackoffPolicy]> = [
  ['truncatedBinaryExponential', (random) => truncatedBinaryExponential({ random })],
  ['fullJitter', (random) => fullJitter({ random })],
  ['equalJitter', (random) => equalJitter({ random })],
  ['decorrelatedJitter', (random) => decorrelatedJitter({ random })],
  ['exponential', (random) => exponential({ random })],
  ['constant', (random) => constant({ random })],
];

describe('MAX_TIMER_DELAY', () => {
  it('is 2^31 - 1', () => {
    expect(MAX_TIMER_DELAY).toBe(2_147_483_647);
  });
});

describe('clampDelay', () => {
  it('keeps values inside [0, MAX_TIMER_DELAY]', () => {
    expect(clampDelay(0)).toBe(0);
    expect(clampDelay(123.5)).toBe(123.5);
    expect(clampDelay(MAX_TIMER_DELAY)).toBe(MAX_TIMER_DELAY);
  });

  it('clamps below to 0 (including -0) and above to MAX_TIMER_DELAY', () => {
    expect(clampDelay(-1)).toBe(0);
    expect(Object.is(clampDelay(-0), 0)).toBe(true);
    expect(clampDelay(Number.NEGATIVE_INFINITY)).toBe(0);
    expect(clampDelay(MAX_TIMER_DELAY + 1)).toBe(MAX_TIMER_DELAY);
    expect(clampDelay(Number.POSITIVE_INFINITY)).toBe(MAX_TIMER_DELAY);
  });

  it('throws a RangeError on NaN', () => {
    expectInputError(() => clampDelay(Number.NaN), RangeError, 'ERR_RS_INVALID_VALUE', 'delay', /NaN/);
  });
});

describe('exponentialWindow', () => {
  it('is min(cap, base·2^attempt)', () => {
    expect([0, 1, 2, 3, 6, 7, 8].map((a) => exponentialWindow(100, 10_000, a))).toEqual([
      100, 200, 400, 800, 6400, 10_000, 10_000,
    ]);
    expect(exponentialWindow(0.75, 1e9, 10)).toBe(768);
  });

  it('is finite and equal to the cap for huge attempt counts', () => {
    expect(exponentialWindow(100, 10_000, 1e6)).toBe(10_000);
    expect(exponentialWindow(100, 10_000, 1023)).toBe(10_000);
    expect(exponentialWindow(100, 10_000, 1024)).toBe(10_000);
    expect(exponentialWindow(100, 10_000, Number.MAX_SAFE_INTEGER)).toBe(10_000);
    expect(exponentialWindow(100, Number.MAX_VALUE, 1e6)).toBe(Number.MAX_VALUE);
    expect(exponentialWindow(1, 1e300, 1e6)).toBe(1e300);
  });

  // Regression: an earlier version capped the exponent at 1023, so a base below cap·2^-1023
  // saturated at base·2^1023 and never reached cap.
  it('reaches the cap for a tiny base after many attempts', () => {
    expect(exponentialWindow(1e-300, 1e9, 1e6)).toBe(1e9);
    expect(exponentialWindow(Number.MIN_VALUE, 1, 1e6)).toBe(1);
  });
});

describe('resolveRandom', () => {
  it('defaults to Math.random and passes functions through', () => {
    expect(resolveRandom(undefined)).toBe(Math.random);
    const random = () => 0.5;
    expect(resolveRandom(random)).toBe(random);
  });

  it.each([
    [5, 'number 5'],
    [null, 'null'],
    ['0.5', 'string "0.5"'],
    [{}, 'an object'],
  ])('throws a TypeError naming `random` for %o', (value, shown) => {
    expectOptionError(() => resolveRandom(value), TypeError, 'random', shown);
  });
});

describe('createPolicy', () => {
  it('hands the step its params, attempt (from 0), the previous clamped delay and one checked draw', () => {
    const step = vi.fn<DelayStep<{ label: string }>>((_params, attempt, _previous, u) =>
      attempt === 0 ? -5 : u * 1000,
    );
    const { random } = scripted([0.1, 0.5, 0.25]);
    const policy = createPolicy('full-jitter', step, random, { label: 'x' });
    expect(take(policy, 3)).toEqual([0, 500, 250]);
    expect(step.mock.calls.map(([params, attempt, previous, u]) => [params, attempt, previous, u])).toEqual([
      [policy, 0, undefined, 0.1],
      [policy, 1, 0, 0.5],
      [policy, 2, 500, 0.25],
    ]);
    expect(policy.label).toBe('x');
    expect(policy.name).toBe('full-jitter');
  });

  it('reset() clears both the attempt count and the previous delay', () => {
    const step = vi.fn<DelayStep>((_params, attempt) => attempt + 1);
    const policy = createPolicy('exponential', step, () => 0, {});
    take(policy, 3);
    policy.reset();
    expect(policy.attempt).toBe(0);
    policy.next();
    expect(step).toHaveBeenLastCalledWith(policy, 0, undefined, 0);
  });

  it('never calls random when the strategy draws none (random undefined); u is then 0', () => {
    const step = vi.fn<DelayStep>(() => 1);
    const policy = createPolicy('constant', step, undefined, {});
    take(policy, 4);
    expect(step.mock.calls.every((call) => call[3] === 0)).toBe(true);
  });

  it('draws exactly once per delay for a jittered strategy', () => {
    const random = vi.fn(() => 0.5);
    const policy = createPolicy('full-jitter', () => 1, random, {});
    take(policy, 4);
    expect(random).toHaveBeenCalledTimes(4);
  });

  it('throws on a NaN step result without advancing', () => {
    const policy = createPolicy('constant', () => Number.NaN, undefined, {});
    expect(() => policy.next()).toThrow(RangeError);
    expect(policy.attempt).toBe(0);
  });

  it('accepts a draw of exactly 1 and of 0, rejects anything outside [0, 1]', () => {
    const { random } = scripted([1, 0, 1 + Number.EPSILON]);
    const policy = createPolicy('full-jitter', (_params, _a, _p, u) => u * 10, random, {});
    expect(take(policy, 2)).toEqual([10, 0]);
    expectOptionError(() => policy.next(), RangeError, 'random', String(1 + Number.EPSILON));
  });
});

describe.each(FACTORIES)('%s policy object', (_name, make) => {
  it('counts delays in attempt; reset() returns it to 0', () => {
    const policy = make(() => 0.5);
    expect(policy.attempt).toBe(0);
    take(policy, 5);
    expect(policy.attempt).toBe(5);
    policy.reset();
    expect(policy.attempt).toBe(0);
  });

  it('replays the same delays after reset() given the same draws', () => {
    const draws = [0.9, 0.1, 0.5, 0.7, 0.3, 0.2];
    const { random, rewind } = scripted(draws);
    const policy = make(random);
    const first = take(policy, 6);
    policy.reset();
    rewind();
    expect(take(policy, 6)).toEqual(first);
  });

  it('is frozen: attempt cannot be assigned and methods cannot be replaced', () => {
    const policy = make(() => 0.5);
    policy.next();
    expect(Object.isFrozen(policy)).toBe(true);
    expect(() => {
      (policy as { attempt: number }).attempt = 0;
    }).toThrow(TypeError);
    expect(policy.attempt).toBe(1);
    const next = policy.next;
    expect(() => {
      (policy as { next: () => number }).next = () => 0;
    }).toThrow(TypeError);
    expect(policy.next).toBe(next);
    expect(() => {
      (policy as unknown as Record<string, unknown>).extra = 1;
    }).toThrow(TypeError);
    expect('extra' in policy).toBe(false);
  });

  it('is recognised by isBackoffPolicy', () => {
    expect(isBackoffPolicy(make(() => 0.5))).toBe(true);
  });

  it('policies are independent of each other', () => {
    const a = make(() => 1);
    const b = make(() => 1);
    take(a, 3);
    expect(b.attempt).toBe(0);
    expect(take(b, 3)).toEqual(
      take(
        make(() => 1),
        3,
      ),
    );
  });
});

describe('MADE_FROM: what a policy was made from', () => {
  const madeFrom = (policy: object): MadeFrom => (policy as Record<string, MadeFrom>)[MADE_FROM] as MadeFrom;
  const random = () => 0.5;

  it('gives the strategy and its options as resolved (defaults filled in, derived parameters shown)', () => {
    expect(madeFrom(constant())).toEqual(['constant', { delay: 1_000, random: undefined }]);
    expect(madeFrom(fullJitter({ base: 50, random }))).toEqual(['full-jitter', { base: 50, cap: 10_000, random }]);
    expect(madeFrom(equalJitter())).toEqual(['equal-jitter', { base: 100, cap: 10_000, random: Math.random }]);
    expect(madeFrom(decorrelatedJitter({ cap: 500 }))).toEqual([
      'decorrelated-jitter',
      { base: 100, cap: 500, random: Math.random },
    ]);
    expect(madeFrom(truncatedBinaryExponential({ ceiling: 3, random }))).toEqual([
      'truncated-binary-exponential',
      { maxDelay: 10_000, ceiling: 3, baseDelay: 2_500, random },
    ]);
    expect(madeFrom(phasedBinaryExponential({ maxDelay: 4_000, random }))).toEqual([
      'phased-binary-exponential',
      { maxDelay: 4_000, ceiling: 10, random },
    ]);
  });

  it('leaves out the random source of a strategy that never draws', () => {
    expect(madeFrom(constant({ random }))).toEqual(['constant', { delay: 1_000, random: undefined }]);
    expect(madeFrom(exponential({ random }))).toEqual(['exponential', { base: 100, cap: 10_000, random: undefined }]);
  });

  it('is the same before and after delays are handed out: the state is not part of it', () => {
    const policy = phasedBinaryExponential({ random });
    const before = madeFrom(policy);
    take(policy, 3);
    expect(madeFrom(policy)).toEqual(before);
  });

  it('is a getter of the class: a policy carries no more own properties than its name and parameters', () => {
    expect(Object.keys(constant())).toEqual(['name', 'delay']);
    expect(Object.getOwnPropertyNames(truncatedBinaryExponential()).sort()).toEqual(
      ['baseDelay', 'ceiling', 'maxDelay', 'name'].sort(),
    );
    expect(Object.getOwnPropertyNames(phasedBinaryExponential()).sort()).toEqual(
      ['baseDelay', 'ceiling', 'maxDelay', 'name'].sort(),
    );
    expect(Object.hasOwn(constant(), MADE_FROM)).toBe(false);
  });
});

describe('isBackoffPolicy', () => {
  it('accepts user objects with callable next and reset', () => {
    expect(isBackoffPolicy({ next: () => 1, reset: () => {} })).toBe(true);
    class Fixed {
      next(): number {
        return 5;
      }
      reset(): void {}
    }
    expect(isBackoffPolicy(new Fixed())).toBe(true);
    expect(isBackoffPolicy(Object.assign(Object.create(null), { next: () => 1, reset: () => {} }))).toBe(true);
  });

  it.each<[string, unknown]>([
    ['null', null],
    ['undefined', undefined],
    ['an empty object', {}],
    ['only next', { next: () => 1 }],
    ['only reset', { reset: () => {} }],
    ['non-callable next', { next: 1, reset: () => {} }],
    ['non-callable reset', { next: () => 1, reset: 'reset' }],
    ['a number', 42],
    ['a string', 'policy'],
    ['an array', [() => 1, () => {}]],
    ['a function', () => 1],
  ])('rejects %s', (_label, value) => {
    expect(isBackoffPolicy(value)).toBe(false);
  });
});

describe('assertBackoffPolicy', () => {
  it('passes policies', () => {
    expect(() => assertBackoffPolicy('backoff', { next: () => 1, reset: () => {} })).not.toThrow();
  });

  it('throws a TypeError naming the option and the value', () => {
    expectOptionError(() => assertBackoffPolicy('backoff', { next: () => 1 }), TypeError, 'backoff', 'an object');
    expectOptionError(() => assertBackoffPolicy('backoff', 5), TypeError, 'backoff', 'number 5');
  });
});
