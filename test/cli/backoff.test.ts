import { describe, expect, it } from 'vitest';
import { STRATEGIES, type StrategyName, UsageError } from '../../src/cli/args.js';
import { type BackoffFlags, createBackoff } from '../../src/cli/backoff.js';

const DEFAULTS = { maxDelay: 10_000, ceiling: 10, baseDelay: 100 } as const;
const flags = (strategy: StrategyName, more: Partial<BackoffFlags> = {}): BackoffFlags => ({
  strategy,
  ...DEFAULTS,
  ...more,
});

/** The UsageError `createBackoff(f)` throws. */
function usageError(f: BackoffFlags): UsageError {
  try {
    createBackoff(f);
  } catch (error) {
    expect(error).toBeInstanceOf(UsageError);
    return error as UsageError;
  }
  return expect.fail(`expected createBackoff(${JSON.stringify(f)}) to throw`);
}

/** `n` first delays, each from a fresh start (reset before every draw). */
function firstDelays(policy: { next(): number; reset(): void }, n: number): number[] {
  return Array.from({ length: n }, () => {
    policy.reset();
    return policy.next();
  });
}

describe('createBackoff', () => {
  it.each([
    ['truncated', 'truncated-binary-exponential'],
    ['phased', 'phased-binary-exponential'],
    ['full', 'full-jitter'],
    ['equal', 'equal-jitter'],
    ['decorrelated', 'decorrelated-jitter'],
    ['exponential', 'exponential'],
    ['constant', 'constant'],
  ] as const)('--strategy %s builds a %s policy', (strategy, name) => {
    expect(createBackoff(flags(strategy)).name).toBe(name);
  });

  it('covers every strategy the parser accepts', () => {
    for (const strategy of STRATEGIES) expect(() => createBackoff(flags(strategy))).not.toThrow();
  });

  it('truncated takes --max-delay as T and --ceiling as N', () => {
    expect(createBackoff(flags('truncated', { maxDelay: 3000, ceiling: 4 }))).toMatchObject({
      maxDelay: 3000,
      ceiling: 4,
    });
  });

  it('phased takes --max-delay as T and --ceiling as N', () => {
    expect(createBackoff(flags('phased', { maxDelay: 3000, ceiling: 4 }))).toMatchObject({
      name: 'phased-binary-exponential',
      maxDelay: 3000,
      ceiling: 4,
    });
  });

  it('truncated: the first delay is drawn from [0, T·2^(1−N))', () => {
    const maxDelay = 8000;
    const ceiling = 5;
    const policy = createBackoff(flags('truncated', { maxDelay, ceiling }));
    const window = maxDelay * 2 ** (1 - ceiling); // 500 ms
    const draws = firstDelays(policy, 1000);
    for (const delay of draws) {
      expect(delay).toBeGreaterThanOrEqual(0);
      expect(delay).toBeLessThan(window);
    }
    // …and from the whole window, not a narrower one (1000 uniform draws all below 0.9·window: p ≈ 1e-46).
    expect(Math.max(...draws)).toBeGreaterThan(0.9 * window);
  });

  it('truncated: from the N-th failure on, delays stay below T', () => {
    const policy = createBackoff(flags('truncated', { maxDelay: 1000, ceiling: 3 }));
    const delays = Array.from({ length: 200 }, () => policy.next());
    for (const delay of delays) expect(delay).toBeLessThan(1000);
    expect(Math.max(...delays.slice(2))).toBeGreaterThan(500); // window [0, T) from failure N on
  });

  it.each(['full', 'equal', 'decorrelated', 'exponential'] as const)(
    '%s takes --base-delay as base and --max-delay as cap',
    (strategy) => {
      expect(createBackoff(flags(strategy, { baseDelay: 250, maxDelay: 4000 }))).toMatchObject({
        base: 250,
        cap: 4000,
      });
    },
  );

  it('exponential: base, doubling, capped at --max-delay', () => {
    const policy = createBackoff(flags('exponential', { baseDelay: 100, maxDelay: 1000 }));
    expect(Array.from({ length: 6 }, () => policy.next())).toEqual([100, 200, 400, 800, 1000, 1000]);
  });

  it('full: the first delay is below --base-delay, none above --max-delay', () => {
    const policy = createBackoff(flags('full', { baseDelay: 200, maxDelay: 1000 }));
    for (const delay of firstDelays(policy, 500)) expect(delay).toBeLessThan(200);
    policy.reset();
    for (let i = 0; i < 50; i++) expect(policy.next()).toBeLessThanOrEqual(1000);
  });

  it('equal: the first delay is in [base/2, base]', () => {
    const policy = createBackoff(flags('equal', { baseDelay: 200, maxDelay: 1000 }));
    for (const delay of firstDelays(policy, 500)) {
      expect(delay).toBeGreaterThanOrEqual(100);
      expect(delay).toBeLessThanOrEqual(200);
    }
  });

  it('constant: every delay is --base-delay (and --max-delay plays no part)', () => {
    const policy = createBackoff(flags('constant', { baseDelay: 750, maxDelay: 100 }));
    expect(Array.from({ length: 5 }, () => policy.next())).toEqual([750, 750, 750, 750, 750]);
    expect(createBackoff(flags('constant', { baseDelay: 0 })).next()).toBe(0);
  });

  describe('invalid combinations are UsageErrors in terms of the flags', () => {
    it.each(['full', 'equal', 'decorrelated', 'exponential'] as const)(
      '--strategy %s --base-delay 500 --max-delay 100',
      (strategy) => {
        const { message } = usageError(flags(strategy, { baseDelay: 500, maxDelay: 100 }));
        expect(message).toContain('`--max-delay`');
        expect(message).toContain('`--base-delay`');
        expect(message).toContain('500');
        expect(message).toContain('100');
        expect(message).not.toMatch(/`(base|cap)`/);
      },
    );

    it('--strategy full --base-delay 0', () => {
      const { message } = usageError(flags('full', { baseDelay: 0 }));
      expect(message).toContain('`--base-delay`');
      expect(message).not.toMatch(/`base`/);
    });

    it('--strategy truncated --max-delay 0 (parseCli allows 0)', () => {
      const { message } = usageError(flags('truncated', { maxDelay: 0 }));
      expect(message).toContain('`--max-delay`');
      expect(message).not.toMatch(/`maxDelay`/);
    });

    it.each(['truncated', 'phased'] as const)(
      '--strategy %s --ceiling 30000: the first window would be under 1 ms (named by both flags and the bound)',
      (strategy) => {
        const { message } = usageError(flags(strategy, { ceiling: 30_000 }));
        expect(message).toBe(
          'Expected `--ceiling` to be at most 14 with `--max-delay` 10000 (the first retry window, `--max-delay` / 2^(`--ceiling` − 1), must be at least 1 ms), got 30000',
        );
        expect(usageError(flags(strategy, { maxDelay: 100, ceiling: 8 })).message).toContain(
          'at most 7 with `--max-delay` 100',
        );
        expect(usageError(flags(strategy, { maxDelay: 0.5, ceiling: 1 })).message).toBe(
          'Expected `--max-delay` to be a finite number >= 1, got 0.5',
        );
      },
    );

    it('--strategy exponential --max-delay 0', () => {
      const { message } = usageError(flags('exponential', { maxDelay: 0 }));
      expect(message).toContain('`--max-delay`');
      expect(message).not.toMatch(/`cap`/);
    });
  });
});
