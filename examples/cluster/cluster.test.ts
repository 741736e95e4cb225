import { beforeAll, expect, it } from 'vitest';
import { ensureBuilt } from '../lib/ensure-build.js';
import { runCluster } from './cluster.js';
import { analyse } from './summary.js';

const upTo = (n: number) => Array.from({ length: n }, (_, i) => i + 1);

// The server processes run in plain Node and import the package by name, which resolves to dist/
// (vitest's aliases to src/ are for this file's imports only): built first when it is stale.
beforeAll(() => ensureBuilt(), 120_000);

it('each process killed with SIGKILL in turn: every promise resolves, every order handled and every receipt seen, in order', async () => {
  const r = await runCluster({ clients: 3, orders: 60, duration: 2_400, restartAfter: 300 });
  const a = analyse(r);

  // Each process really was killed once, and a killed run had handled orders.
  expect(r.runs.filter((run) => run.killed).map((run) => run.process)).toEqual([1, 2, 3]);
  expect(r.handlings.some((h) => h.run.killed)).toBe(true);
  expect(r.sent).toEqual([60, 60, 60]);
  expect([r.resolved, r.rejected, r.unsettled]).toEqual([180, [], 0]);

  for (let c = 0; c < 3; c++) {
    // Every order handled, in order; one handled again only when the run that handled it first was killed.
    const handled = r.handlings.filter((h) => h.client === c);
    const firsts = handled.filter((h, i) => handled.findIndex((o) => o.order === h.order) === i);
    expect(firsts.map((h) => h.order)).toEqual(upTo(60));
    const again = handled.filter((h) => !firsts.includes(h));
    for (const h of again) expect(firsts.find((f) => f.order === h.order)?.run.killed, `order ${h.order}`).toBe(true);
    // Every receipt seen, in order; one seen again only for an order handled again.
    const receipts = (r.receipts[c] ?? []).map((receipt) => receipt.order);
    expect(receipts.filter((n, i) => receipts.indexOf(n) === i)).toEqual(upTo(60));
    const twice = new Set(again.map((h) => h.order));
    for (const n of receipts.filter((n, i) => receipts.indexOf(n) !== i))
      expect(twice.has(n), `receipt ${n}`).toBe(true);
  }

  // What the processes still running sent resolved; nothing went wrong on the servers.
  expect([r.receiptsRejected, r.receiptsUnsettled]).toEqual([[], 0]);
  expect(r.receiptsResolved).toBeGreaterThan(0);
  expect(r.errors).toEqual([]);
  expect(a.ok, a.lines.join('\n')).toBe(true);
  console.log(
    `cluster example: ${a.kills} processes killed, 180 orders, ${a.handledTwice} handled twice (first by a killed run), ${a.receiptsElsewhere} receipts written by another process than their sender, ${(r.ms / 1000).toFixed(1)} s`,
  );
}, 30_000);
