/**
 * What a run of the cluster example shows, checked: the guarantee of acknowledged delivery across
 * processes killed with SIGKILL, and its one exception.
 *
 * - Every `sendReliable()` promise settled, resolved.
 * - Every order handled, and in order per client (the first handling of each, by time).
 * - Each order handled once. The exception: a process can be killed after an order's handler ran
 *   and before Redis recorded that it ran; the client, which got no acknowledgement, sends the order
 *   again to the process it reconnects to, which handles it again. So an order handled twice is
 *   within the guarantee when its first handling was by a run of a process that was then killed.
 * - Every receipt seen by its client, in order. Each handling sends one receipt, so an order handled
 *   twice may show its receipt twice; any other receipt is seen once.
 * - Every receipt sent by a process still running at the end resolved (its client acknowledged it).
 */
import type { ClusterResult, Handling } from './cluster.js';

export interface Analysis {
  /** Whether the guarantee held. */
  readonly ok: boolean;
  /** Orders handled twice, each first by a run that was then killed (the exception). */
  readonly handledTwice: number;
  /** Receipts seen a second time, for orders handled twice. */
  readonly receiptsTwice: number;
  /** Receipts written to their client by another process than the one that sent them. */
  readonly receiptsElsewhere: number;
  /** Processes killed. */
  readonly kills: number;
  /** The summary, line by line. */
  readonly lines: readonly string[];
}

const upTo = (n: number) => Array.from({ length: n }, (_, i) => i + 1);
const same = (a: readonly number[], b: readonly number[]) => a.length === b.length && a.every((x, i) => x === b[i]);

export function analyse(r: ClusterResult): Analysis {
  const total = r.sent.reduce((sum, n) => sum + n, 0);
  const kills = r.runs.filter((run) => run.killed).length;
  let handledTwice = 0;
  let receiptsTwice = 0;
  const orderProblems: string[] = [];
  const receiptProblems: string[] = [];

  for (let c = 0; c < r.clients; c++) {
    const expected = upTo(r.sent[c] ?? 0);
    // Orders: the first handling of each, in time; any later one only within the exception.
    const first = new Map<number, Handling>();
    const twice = new Set<number>();
    for (const h of r.handlings.filter((h) => h.client === c)) {
      const earlier = first.get(h.order);
      if (earlier === undefined) first.set(h.order, h);
      else if (earlier.run.killed) {
        handledTwice++;
        twice.add(h.order);
      } else orderProblems.push(`client ${c}: order ${h.order} handled twice, first by a process that was not killed`);
    }
    if (!same([...first.keys()], expected)) {
      const missing = expected.filter((n) => !first.has(n));
      orderProblems.push(
        missing.length > 0
          ? `client ${c}: ${missing.length} orders never handled (${missing.slice(0, 5).join(', ')}…)`
          : `client ${c}: orders handled out of order`,
      );
    }
    // Receipts: the first of each, in order; a second one only for an order handled twice.
    const seen = new Set<number>();
    const order: number[] = [];
    for (const receipt of r.receipts[c] ?? []) {
      if (!seen.has(receipt.order)) {
        seen.add(receipt.order);
        order.push(receipt.order);
      } else if (twice.has(receipt.order)) receiptsTwice++;
      else receiptProblems.push(`client ${c}: receipt ${receipt.order} seen twice, for an order handled once`);
    }
    if (!same(order, expected)) {
      const missing = expected.filter((n) => !seen.has(n));
      receiptProblems.push(
        missing.length > 0
          ? `client ${c}: ${missing.length} receipts never seen (${missing.slice(0, 5).join(', ')}…)`
          : `client ${c}: receipts seen out of order`,
      );
    }
  }
  const problems = [...orderProblems, ...receiptProblems, ...r.errors];
  if (r.resolved !== total) problems.push(`${total - r.resolved} sendReliable() promises not resolved`);
  if (r.receiptsRejected.length > 0 || r.receiptsUnsettled > 0) problems.push('receipt send() promises not resolved');

  const receiptsElsewhere = r.receipts.flat().filter((receipt) => receipt.by !== receipt.via).length;
  // How many runs of the processes handled each client's orders: its session went on where it was.
  const served = Array.from(
    { length: r.clients },
    (_, c) => new Set(r.handlings.filter((h) => h.client === c).map((h) => h.run)).size,
  );
  const handled = r.handlings.length;
  const s = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : word.endsWith('s') ? 'es' : 's'}`;
  const lines = [
    `${s(total, 'order')} from ${s(r.clients, 'client')} in ${(r.ms / 1000).toFixed(1)} s, through HAProxy to 3 server processes on one Redis; ${s(kills, 'process')} killed with SIGKILL.`,
    '',
    `clients → servers: ${total} sendReliable() promises: ${r.resolved} resolved, ${r.rejected.length} rejected, ${r.unsettled} not settled`,
    `                   ${handled} handlings for ${total} orders: ${orderProblems.length > 0 ? 'NOT every order handled in order' : 'every order handled, in order per client'}, ${handledTwice === 0 ? 'each once' : `${s(handledTwice, 'order')} handled twice`}`,
    ...(handledTwice > 0
      ? [
          "                   (the exception: a process killed after an order's handler ran and before Redis recorded it;",
          '                   the client sends the order again and the process it reconnects to handles it again)',
        ]
      : []),
    `                   each client's session served by ${served.join(', ')} processes in turn (its window and outbox are in Redis)`,
    `servers → clients: ${r.receipts.flat().length} receipts seen: ${receiptProblems.length > 0 ? 'NOT every receipt seen in order' : 'every receipt, in order per client'}${receiptsTwice === 0 ? ', each once' : `; ${s(receiptsTwice, 'receipt')} seen twice, for orders handled twice`}`,
    `                   ${s(receiptsElsewhere, 'receipt')} written to the client by another process than the one that sent it (its sender was killed first)`,
    `                   the processes still running: ${r.receiptsResolved} receipts acknowledged, ${r.receiptsRejected.length} rejected, ${r.receiptsUnsettled} not settled`,
    ...(r.clientErrors.size > 0
      ? [
          `clients' error events (each socket reconnected by itself): ${[...r.clientErrors].map(([code, n]) => `${code} ×${n}`).join(', ')}`,
        ]
      : []),
    '',
    ...problems.map((p) => `PROBLEM: ${p}`),
    problems.length === 0 ? 'The guarantee held.' : 'The guarantee did NOT hold.',
  ];
  return { ok: problems.length === 0, handledTwice, receiptsTwice, receiptsElsewhere, kills, lines };
}
