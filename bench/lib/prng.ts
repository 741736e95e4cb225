/**
 * A small seeded pseudo-random number generator for the simulations: sfc32 (Chris Doty-Humphrey's
 * "Small Fast Counting" generator, 128-bit state, passes PractRand), seeded from a string or number
 * by the cyrb128 hash, plus Box–Muller normal draws. Same seed → same stream, on every platform
 * (only 32-bit integer arithmetic and one division per draw).
 */

/** A seeded stream of uniform and normal draws. */
export interface Prng {
  /** Uniform in [0, 1), a multiple of 2^-32. A plain function: safe to pass around unbound. */
  readonly next: () => number;
  /** Normal(mean, sd), by the Box–Muller transform (the second value of each pair is kept for the next call). */
  normal(mean: number, sd: number): number;
}

/** cyrb128: hashes a string into four 32-bit words, the sfc32 state. */
export function hashSeed(seed: string): [number, number, number, number] {
  let h1 = 1779033703;
  let h2 = 3144134277;
  let h3 = 1013904242;
  let h4 = 2773480762;
  for (let i = 0; i < seed.length; i++) {
    const k = seed.charCodeAt(i);
    h1 = h2 ^ Math.imul(h1 ^ k, 597399067);
    h2 = h3 ^ Math.imul(h2 ^ k, 2869860233);
    h3 = h4 ^ Math.imul(h3 ^ k, 951274213);
    h4 = h1 ^ Math.imul(h4 ^ k, 2716044179);
  }
  h1 = Math.imul(h3 ^ (h1 >>> 18), 597399067);
  h2 = Math.imul(h4 ^ (h2 >>> 22), 2869860233);
  h3 = Math.imul(h1 ^ (h3 >>> 17), 951274213);
  h4 = Math.imul(h2 ^ (h4 >>> 19), 2716044179);
  h1 ^= h2 ^ h3 ^ h4;
  h2 ^= h1;
  h3 ^= h1;
  h4 ^= h1;
  return [h1 >>> 0, h2 >>> 0, h3 >>> 0, h4 >>> 0];
}

/** sfc32 over the given state: returns uniform draws in [0, 1). */
export function sfc32(seedA: number, seedB: number, seedC: number, seedD: number): () => number {
  let a = seedA | 0;
  let b = seedB | 0;
  let c = seedC | 0;
  let d = seedD | 0;
  return () => {
    const t = (((a + b) | 0) + d) | 0;
    d = (d + 1) | 0;
    a = b ^ (b >>> 9);
    b = (c + (c << 3)) | 0;
    c = (c << 21) | (c >>> 11);
    c = (c + t) | 0;
    return (t >>> 0) / 4294967296;
  };
}

/**
 * A generator seeded from `seed` (numbers are seeded through their decimal string, so `7` and
 * `'7'` give the same stream). The first 15 outputs are discarded to mix the hashed state.
 */
export function createPrng(seed: string | number): Prng {
  const next = sfc32(...hashSeed(String(seed)));
  for (let i = 0; i < 15; i++) next();
  let spare = 0;
  let hasSpare = false;
  return {
    next,
    normal(mean: number, sd: number): number {
      if (hasSpare) {
        hasSpare = false;
        return mean + sd * spare;
      }
      const u1 = 1 - next(); // (0, 1]: log(0) is impossible
      const u2 = next();
      const r = Math.sqrt(-2 * Math.log(u1));
      const theta = 2 * Math.PI * u2;
      spare = r * Math.sin(theta);
      hasSpare = true;
      return mean + sd * r * Math.cos(theta);
    },
  };
}
