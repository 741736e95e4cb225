/**
 * phasedBinaryExponential's surface: a frozen policy, the validation of its options (the same as
 * truncatedBinaryExponential's, up to the factory name), and unknown options.
 */
import { describe, expect, it } from 'vitest';
import { phasedBinaryExponential, truncatedBinaryExponential } from '../../src/backoff/index.js';
import { expectUnknownOption, take, thrown, windowValidationCases } from './helpers.js';

describe('phasedBinaryExponential', () => {
  describe('frozen', () => {
    it('cannot be modified', () => {
      const policy = phasedBinaryExponential({ random: () => 0 });
      expect(Object.isFrozen(policy)).toBe(true);
      const writable = policy as unknown as Record<string, unknown>;
      expect(() => {
        writable.maxDelay = 1;
      }).toThrow(TypeError);
      expect(() => {
        writable.ceiling = 1;
      }).toThrow(TypeError);
      expect(() => {
        writable.baseDelay = 1;
      }).toThrow(TypeError);
      expect(() => {
        writable.name = 'full-jitter';
      }).toThrow(TypeError);
      expect(() => {
        writable.phase = 0.9;
      }).toThrow(TypeError);
      expect(() => {
        writable.attempt = 5;
      }).toThrow(TypeError);
      expect(() => {
        writable.next = () => 0;
      }).toThrow(TypeError);
      expect(() => {
        writable.extra = true;
      }).toThrow(TypeError);
      expect(() => delete writable.maxDelay).toThrow(TypeError);
      expect([policy.maxDelay, policy.ceiling, policy.baseDelay, policy.name]).toEqual([
        10_000,
        10,
        19.53125,
        'phased-binary-exponential',
      ]);
      // and it still works, with its state behind the frozen surface
      expect(take(policy, 2)).toEqual([9.765625, 19.53125]);
      expect(policy.phase).toBe(0);
      expect(policy.attempt).toBe(2);
    });
  });

  describe('validation (as truncatedBinaryExponential)', () => {
    windowValidationCases('phasedBinaryExponential', phasedBinaryExponential);

    it('throws the same error type and message as truncatedBinaryExponential, up to the factory name', () => {
      const bad: unknown[] = [
        null,
        [],
        7,
        { maxDelay: 0 },
        { maxDelay: '1' },
        { ceiling: 0 },
        { ceiling: 2.5 },
        { ceiling: '3' },
        { random: 1 },
        { random: null },
        { maxDelays: 1 },
        { base: 1 },
        { maxDelay: -1, ceiling: 0, random: 5 }, // the first problem is reported, in the same order
        { maxDelay: 'x', zzzz: undefined },
      ];
      for (const options of bad) {
        const phased = thrown(() => phasedBinaryExponential(options as never));
        const truncated = thrown(() => truncatedBinaryExponential(options as never));
        expect(phased.constructor).toBe(truncated.constructor);
        expect((phased as { code?: unknown }).code).toBe((truncated as { code?: unknown }).code);
        expect(phased.message).toBe(
          truncated.message.replaceAll('truncatedBinaryExponential', 'phasedBinaryExponential'),
        );
      }
    });

    it('accepts the smallest valid values', () => {
      const policy = phasedBinaryExponential({ maxDelay: 1, ceiling: 1, random: () => 1 });
      // N = 1: the first retry lands at T·g(ψ) (ψ capped just below 1), then one per T.
      const [first, second] = take(policy, 2);
      expect(first).toBeCloseTo(1, 12);
      expect(first).toBeLessThanOrEqual(1);
      expect(second).toBe(1);
    });
  });

  describe('unknown options', () => {
    it('a misspelt option is a TypeError that suggests the right one', () => {
      expectUnknownOption(
        () => phasedBinaryExponential({ maxDelays: 1 } as never),
        'maxDelays',
        'Unknown option `maxDelays`: did you mean `maxDelay`?',
      );
      expectUnknownOption(
        () => phasedBinaryExponential({ celing: 3 } as never),
        'celing',
        'Unknown option `celing`: did you mean `ceiling`?',
      );
    });

    it('an option of another strategy is a TypeError that lists its options', () => {
      expectUnknownOption(
        () => phasedBinaryExponential({ base: 1 } as never),
        'base',
        'Unknown option `base`: the options of phasedBinaryExponential() are `maxDelay`, `ceiling`, `random`',
      );
    });

    it('is checked before the values, and an unknown key with an undefined value counts', () => {
      expectUnknownOption(
        () => phasedBinaryExponential({ maxDelay: 'not a number', zzzz: undefined } as never),
        'zzzz',
        /^Unknown option `zzzz`/,
      );
    });

    it('ignores symbol keys and inherited properties', () => {
      expect(() => phasedBinaryExponential({ [Symbol('x')]: 1 } as never)).not.toThrow();
      expect(() => phasedBinaryExponential(Object.create({ zzzz: 1 }) as never)).not.toThrow();
    });
  });
});
