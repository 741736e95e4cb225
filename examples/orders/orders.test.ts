import { describe, expect, it } from 'vitest';
import { runOrders } from './orders.js';

const upTo = (n: number) => Array.from({ length: n }, (_, i) => i + 1);

describe('orders over a flapping server that loses acknowledgements', () => {
  it.each([1, 2])(
    'seed %i: every promise settles, each order and each receipt arrives once, in order',
    async (seed) => {
      const r = await runOrders({ orders: 200, seed });
      expect(r.crashes, 'the server really flapped').toBeGreaterThan(0);
      expect(r.acksLost, 'acknowledgements really were lost').toBeGreaterThan(0);
      expect(r.resent, 'the client really sent again').toBeGreaterThan(0);
      expect([r.resolved, r.rejected]).toEqual([200, 0]);
      expect([r.receiptsResolved, r.receiptsRejected]).toEqual([200, 0]);
      expect(r.processed).toEqual(upTo(200));
      expect(r.receipts).toEqual(upTo(200));
    },
  );
});
