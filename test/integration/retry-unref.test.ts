import { describe, expect, it } from 'vitest';
import { runNodeChild } from '../helpers/node-child.js';

// A real Node process: with `unref: true` a pending 60 s retry wait must not keep it alive.
const script = (unref: boolean) => `
import { constant, retry } from '#src/backoff/index.ts';
retry(async () => { throw new Error('down'); }, { backoff: constant({ delay: 60_000 }), unref: ${unref} })
  .catch(() => {});
console.log('scheduled');
`;

describe('retry() in a real Node process', () => {
  it('with unref: true, the process exits by itself while a retry is pending', async () => {
    const result = await runNodeChild(script(true), 5_000);
    expect(result.stderr).toBe('');
    expect(result.stdout.trim()).toBe('scheduled');
    expect(result.killed).toBe(false);
    expect(result.code).toBe(0);
    expect(result.elapsedMs).toBeLessThan(5_000);
  });

  it('without unref, the pending wait holds the process open (control case)', async () => {
    const result = await runNodeChild(script(false), 1_500);
    expect(result.stdout.trim()).toBe('scheduled');
    expect(result.killed).toBe(true);
  });
});
