/**
 * The three jitter strategies, fullJitter, equalJitter and decorrelatedJitter, through the same
 * checks: their defaults, the delays at the bounds of the draw and for scripted draws, the configured
 * base and cap, attempt and reset(), one draw per delay and the RangeError of a bad draw, huge
 * values and the timer limit, the validation of `base`/`cap`/`random`, and unknown options. Each
 * strategy's expected delays are in STRATEGIES; what only one strategy does is in its own block at
 * the end.
 */
import { describe, expect, it, vi } from 'vitest';
import {
  type BaseCapOptions,
  type BaseCapPolicy,
  decorrelatedJitter,
  equalJitter,
  fullJitter,
  MAX_TIMER_DELAY,
} from '../../src/backoff/index.js';
import { exponentialWindow } from '../../src/backoff/policy.js';
import {
  ALMOST_ONE,
  baseCapValidationSuite,
  expectOptionError,
  expectUnknownOption,
  scripted,
  take,
} from './helpers.js';

/** base 100, cap 10 000: 100·2^attempt, capped (the windows of fullJitter and equalJitter). */
const WINDOWS = [100, 200, 400, 800, 1600, 3200, 6400, 10_000, 10_000, 10_000];

/** Delays expected for given options. */
interface Sequence {
  readonly options: BaseCapOptions;
  readonly delays: readonly number[];
}

/** A scripted run: `draws` in order give `delays`, one draw per delay. */
interface Scripted {
  readonly draws: readonly number[];
  readonly delays: readonly number[];
}

interface JitterStrategy {
  /** The factory's name, as its messages give it. */
  readonly factory: string;
  /** The policy's `name`. */
  readonly name: string;
  readonly make: (options?: BaseCapOptions) => BaseCapPolicy;
  /** The delays with every draw 0 (the bottom of each draw's range). */
  readonly zero: readonly number[];
  /** The delays with every draw 1 (tolerated; the top of each draw's range). */
  readonly one: readonly number[];
  /**
   * Which delays with every draw 1 − ε stay strictly below those of `one` (the others round up to
   * them exactly).
   */
  readonly almostOneBelow: readonly boolean[];
  /** How scripted draws map to delays, and that mapping in words. */
  readonly scripted: Scripted & { readonly rule: string };
  /** Other bases and caps, with every draw 0 or 1. */
  readonly configured: readonly Sequence[];
  /** A scripted run for attempt and reset(). */
  readonly reset: Scripted;
  /**
   * Over 1 100 delays with the draw `draw(i)` for the i-th: from delay number `from` on, each lies
   * in [low, high]; the last one is `last` (where the file pinned it).
   */
  readonly long: {
    readonly draw: (i: number) => number;
    readonly from: number;
    readonly low: number;
    readonly high: number;
    readonly last?: number;
  };
  /** A cap above the timer limit: the delays for each draw, clamped to MAX_TIMER_DELAY. */
  readonly clamp: { readonly base: number; readonly cap: number; readonly runs: readonly [number, number[]][] };
  /** A misspelt option and the one it suggests. */
  readonly misspelt: readonly [key: string, suggested: string];
}

const STRATEGIES: readonly JitterStrategy[] = [
  {
    factory: 'fullJitter',
    name: 'full-jitter',
    make: fullJitter,
    zero: Array(12).fill(0),
    one: WINDOWS,
    almostOneBelow: WINDOWS.map(() => true),
    scripted: {
      rule: 'draw·window',
      draws: [0.5, 0.25, 0.75, 0.125, 0, 0.5, 0.5, 0.5],
      delays: [50, 50, 300, 100, 0, 1600, 3200, 5000],
    },
    configured: [
      { options: { base: 3, cap: 20, random: () => 1 }, delays: [3, 6, 12, 20, 20] },
      { options: { base: 7, cap: 7, random: () => 1 }, delays: [7, 7, 7] },
    ],
    reset: { draws: [0.5, 0.5, 0.5, 0.5], delays: [50, 100, 200, 400] },
    long: { draw: () => 1, from: 7, low: 10_000, high: 10_000, last: 10_000 },
    clamp: {
      base: 2 ** 30,
      cap: 2 ** 40,
      runs: [
        [1, [2 ** 30, MAX_TIMER_DELAY, MAX_TIMER_DELAY, MAX_TIMER_DELAY]],
        // 0.25 · 2^30, 0.25 · 2^31, 0.25 · 2^32 = 2^30, then 2^31 > limit.
        [0.25, [2 ** 28, 2 ** 29, 2 ** 30, MAX_TIMER_DELAY]],
      ],
    },
    misspelt: ['bsae', 'base'],
  },
  {
    factory: 'equalJitter',
    name: 'equal-jitter',
    make: equalJitter,
    zero: WINDOWS.map((w) => w / 2),
    one: WINDOWS,
    // 50 + 50·(1-ε) stays just below 100, while 5000 + 5000·(1-ε) rounds (to even) to 10 000.
    almostOneBelow: WINDOWS.map((w) => w < 10_000),
    scripted: {
      rule: 'window/2 + draw·window/2',
      // windows 100, 200, 400, 800, 1600
      draws: [0.5, 0.25, 0.75, 0, 0.5],
      delays: [75, 125, 350, 400, 1200],
    },
    configured: [{ options: { base: 4, cap: 20, random: () => 0 }, delays: [2, 4, 8, 10, 10] }],
    reset: { draws: [0.5, 0.25, 0.75], delays: [75, 125, 350] },
    // within [cap/2, cap] once the window is the cap; 1_099 % 8 = 3
    long: { draw: (i) => (i % 8) / 8, from: 7, low: 5000, high: 10_000, last: 5000 + (3 / 8) * 5000 },
    // halves: 2^29, 2^30, 2^31 (> limit), …
    clamp: { base: 2 ** 30, cap: 2 ** 40, runs: [[0, [2 ** 29, 2 ** 30, MAX_TIMER_DELAY, MAX_TIMER_DELAY]]] },
    misspelt: ['Cap', 'cap'],
  },
  {
    factory: 'decorrelatedJitter',
    name: 'decorrelated-jitter',
    make: decorrelatedJitter,
    // base every time (prev never grows)
    zero: Array(10).fill(100),
    // triples until the cap: 300, 900, 2700, 8100, 10 000
    one: [300, 900, 2700, 8100, 10_000, 10_000, 10_000],
    // just below 300, 900, 2700, 8100, then on the cap
    almostOneBelow: [true, true, true, true, false, false, false],
    scripted: {
      rule: 'base + draw·(3·previous delay − base), capped: the previous delay, not the attempt count',
      // prev=100 → 100 + .5·200 = 200; prev=200 → 100 + .5·500 = 350; → 100; prev=100 → 300; prev=300 → 900
      draws: [0.5, 0.5, 0, 1, 1],
      delays: [200, 350, 100, 300, 900],
    },
    configured: [
      { options: { base: 10, cap: 100, random: () => 1 }, delays: [30, 90, 100, 100] },
      { options: { base: 10, cap: 10, random: () => 1 }, delays: [10, 10, 10] },
    ],
    reset: { draws: [0.5, 0.5, 0, 1], delays: [200, 350, 100, 300] },
    // within [base, cap]
    long: { draw: (i) => (i % 5) / 5, from: 0, low: 100, high: 10_000 },
    // delays, and hence prev, are clamped
    clamp: {
      base: 1e9,
      cap: 1e12,
      runs: [
        [1, [MAX_TIMER_DELAY, MAX_TIMER_DELAY, MAX_TIMER_DELAY, MAX_TIMER_DELAY]],
        [0, [1e9]],
      ],
    },
    misspelt: ['randon', 'random'],
  },
];

describe.each(STRATEGIES.map((strategy) => [strategy.factory, strategy] as const))('%s', (_factory, s) => {
  const { make } = s;

  it('defaults to base 100, cap 10 000', () => {
    const policy = make();
    expect(policy.name).toBe(s.name);
    expect(policy.base).toBe(100);
    expect(policy.cap).toBe(10_000);
    expect(policy.attempt).toBe(0);
    expect(make({ base: 5 }).cap).toBe(10_000);
    expect(make({ cap: 500 }).base).toBe(100);
  });

  describe('delays at the bounds', () => {
    it('random = 0 gives the bottom of each range', () => {
      expect(take(make({ random: () => 0 }), s.zero.length)).toEqual(s.zero);
    });

    it('random = 1 (tolerated) gives exactly the top of each range', () => {
      expect(take(make({ random: () => 1 }), s.one.length)).toEqual(s.one);
      expect(take(make({ base: 100, cap: 10_000, random: () => 1 }), s.one.length)).toEqual(s.one);
    });

    it('random = 1 - ε gives a delay just below (or, rounded, equal to) the top of each range', () => {
      const delays = take(make({ random: () => ALMOST_ONE }), s.one.length);
      delays.forEach((delay, i) => {
        const top = s.one[i] as number;
        expect(delay).toBeLessThanOrEqual(top);
        expect(delay).toBeGreaterThan(top * (1 - 1e-12));
        expect(delay).toBeCloseTo(top, 8);
        expect(delay).toBeGreaterThanOrEqual(s.zero[i] as number);
      });
      expect(delays.map((delay, i) => delay < (s.one[i] as number))).toEqual(s.almostOneBelow);
    });

    it(`maps scripted draws to ${s.scripted.rule}`, () => {
      const { random } = scripted(s.scripted.draws);
      expect(take(make({ random }), s.scripted.delays.length)).toEqual(s.scripted.delays);
    });

    it('uses the configured base and cap', () => {
      for (const { options, delays } of s.configured) expect(take(make(options), delays.length)).toEqual(delays);
    });
  });

  describe('attempt and reset', () => {
    it('counts delays; reset() returns to 0 and restarts the sequence', () => {
      const { random, rewind } = scripted(s.reset.draws);
      const policy = make({ random });
      const count = s.reset.delays.length;
      const first = take(policy, count);
      expect(first).toEqual(s.reset.delays);
      expect(policy.attempt).toBe(count);
      policy.reset();
      expect(policy.attempt).toBe(0);
      rewind();
      expect(take(policy, count)).toEqual(first);
      expect(policy.attempt).toBe(count);
    });
  });

  describe('randomness', () => {
    it('draws exactly once per next()', () => {
      const random = vi.fn(() => 0.3);
      const policy = make({ random });
      take(policy, 9);
      expect(random).toHaveBeenCalledTimes(9);
    });

    it.each([
      [Number.NaN, 'NaN'],
      [-0.1, '-0.1'],
      [1.5, '1.5'],
      ['0.5', 'string "0.5"'],
      ['1', 'string "1"'],
      ['x', 'string "x"'],
    ])('next() throws a RangeError naming `random` when it returns %s', (value, shown) => {
      const policy = make({ random: () => value as number });
      expectOptionError(() => policy.next(), RangeError, 'random', shown);
      expect(policy.attempt).toBe(0);
    });
  });

  describe('huge values', () => {
    it('stays finite and within its range over 1_100 attempts', () => {
      const { random } = scripted(Array.from({ length: 1_100 }, (_, i) => s.long.draw(i)));
      const delays = take(make({ random }), 1_100);
      for (const delay of delays) expect(Number.isFinite(delay)).toBe(true);
      for (const delay of delays.slice(s.long.from)) {
        expect(delay).toBeGreaterThanOrEqual(s.long.low);
        expect(delay).toBeLessThanOrEqual(s.long.high);
      }
      if (s.long.last !== undefined) expect(delays[1_099]).toBe(s.long.last);
    });

    it('clamps delays to MAX_TIMER_DELAY when cap exceeds 2^31 - 1', () => {
      for (const [draw, delays] of s.clamp.runs) {
        const policy = make({ base: s.clamp.base, cap: s.clamp.cap, random: () => draw });
        expect(policy.cap).toBe(s.clamp.cap);
        expect(take(policy, delays.length)).toEqual(delays);
      }
    });
  });

  baseCapValidationSuite(s.factory, make as (options?: never) => unknown);

  describe('unknown options', () => {
    it('a misspelt option is a TypeError that suggests the right one', () => {
      const [key, suggested] = s.misspelt;
      expect(() => make({ [key]: 1 } as never)).toThrow(TypeError);
      expectUnknownOption(
        () => make({ [key]: 1 } as never),
        key,
        `Unknown option \`${key}\`: did you mean \`${suggested}\`?`,
      );
    });

    it('an option of another strategy is a TypeError that lists its options', () => {
      const other = 'ceiling';
      expectUnknownOption(
        () => make({ [other]: 1 } as never),
        other,
        `Unknown option \`${other}\`: the options of ${s.factory}() are \`base\`, \`cap\`, \`random\``,
      );
    });

    it.each(['base', 'cap', 'random'])(
      'is checked before the values (here `%s`), and an unknown key with an undefined value counts',
      (name) => {
        expectUnknownOption(
          () => make({ [name]: 'not a number', zzzz: undefined } as never),
          'zzzz',
          /^Unknown option `zzzz`/,
        );
      },
    );

    it('ignores symbol keys and inherited properties', () => {
      expect(() => make({ [Symbol('x')]: 1 } as never)).not.toThrow();
      expect(() => make(Object.create({ zzzz: 1 }) as never)).not.toThrow();
    });
  });
});

describe('fullJitter: the window', () => {
  it('is still the cap at attempt 1e6 (no overflow)', () => {
    expect(exponentialWindow(100, 10_000, 1e6)).toBe(10_000);
  });
});

describe('decorrelatedJitter: the previous delay', () => {
  it('after hitting the cap, draws from [base, 3·cap) capped at cap', () => {
    const { random } = scripted([1, 1, 0.25]);
    const policy = decorrelatedJitter({ base: 100, cap: 900, random });
    // 300, 900, then 100 + 0.25·(2700 - 100) = 750
    expect(take(policy, 3)).toEqual([300, 900, 750]);
  });

  it('reset() puts prev back to base', () => {
    const policy = decorrelatedJitter({ random: () => 1 });
    expect(take(policy, 3)).toEqual([300, 900, 2700]);
    policy.reset();
    expect(policy.attempt).toBe(0);
    expect(policy.next()).toBe(300);
  });

  it('a bad draw leaves prev untouched', () => {
    const { random } = scripted([1, Number.NaN, 1]);
    const policy = decorrelatedJitter({ random });
    expect(policy.next()).toBe(300);
    expect(() => policy.next()).toThrow(RangeError);
    expect(policy.attempt).toBe(1);
    expect(policy.next()).toBe(900);
  });
});
