/**
 * `npm run example:orders`: 300 orders from a client to a server that crashes every 100–250 ms
 * and loses a quarter of its acknowledgements; each order processed once, each receipt seen once.
 * ORDERS=… changes the count; VERBOSE=1 prints every crash.
 */
import { ensureBuilt } from '../lib/ensure-build.js';

ensureBuilt();
const { runOrders } = await import('./orders.js');
const orders = Number(process.env.ORDERS ?? 300);
const r = await runOrders({ orders, ...(process.env.VERBOSE ? { log: (line: string) => console.log(line) } : {}) });

const inOrder = (list: readonly number[]) => list.every((n, i) => n === i + 1);
console.log(`
${orders} orders in ${(r.ms / 1000).toFixed(1)} s; the server crashed ${r.crashes} times and lost ${r.acksLost} acknowledgements.

client → server: ${r.resolved} sendReliable() promises resolved, ${r.rejected} rejected; ${r.resent} messages sent again
                 the server processed ${r.processed.length} orders, ${inOrder(r.processed) ? 'each once, in order' : 'NOT each once in order'}
server → client: ${r.receiptsResolved} receipts acknowledged, ${r.receiptsRejected} rejected
                 the client saw ${r.receipts.length} receipts, ${inOrder(r.receipts) ? 'each once, in order' : 'NOT each once in order'}
`);
process.exitCode = inOrder(r.processed) && inOrder(r.receipts) && r.processed.length === orders ? 0 : 1;
