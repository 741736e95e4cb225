/**
 * `npm run example:cluster`: three clients send orders through HAProxy to three server processes
 * that share their sessions on Redis, while the processes are killed with SIGKILL; every order is
 * handled, in order, and every receipt comes back (`./cluster.ts` says how, `./summary.ts` what is
 * checked). The exit code is 0 only when the guarantee held.
 *
 * On a terminal, a line per process is redrawn as it goes: its port, up or killed, the sessions it
 * holds (its clients), the orders it handled. Keys: 1, 2 or 3 kills that process (it is started again
 * 1 s later), q stops sending and checks what was sent, Ctrl-C quits at once. Without a terminal on
 * stdin (CI, `< /dev/null`), each process is killed once, in turn, on a schedule.
 *
 * ORDERS=… changes how many orders each client sends (200). Needs `redis-server` and `haproxy`.
 */
import { ensureBuilt } from '../lib/ensure-build.js';
import type { Cluster as ClusterOfProcesses } from './cluster.js';
import { INSTALL, missingTools } from './processes.js';

const missing = missingTools();
if (missing.length > 0) {
  console.error(`This example runs ${missing.join(' and ')}, not found here. Install them with:\n\n  ${INSTALL}\n`);
  process.exit(1);
}
const orders = Number(process.env.ORDERS ?? 200);
if (!Number.isInteger(orders) || orders < 1) {
  console.error(`ORDERS must be a whole number of orders per client, 1 or more (got ${process.env.ORDERS})`);
  process.exit(1);
}
ensureBuilt();
const { Cluster } = await import('./cluster.js');
const { analyse } = await import('./summary.js');

const keys = process.stdin.isTTY === true;
const tty = process.stdout.isTTY === true;
let started = performance.now();

/** The lines redrawn in place on a terminal (elsewhere, printed at the start and at the end). */
let block: () => string[] = () => [];
let drawn = 0;
function draw(): void {
  if (!tty) return;
  const lines = block();
  process.stdout.write(`${drawn > 0 ? `\x1b[${drawn}F` : ''}${lines.map((l) => `\x1b[2K${l}\n`).join('')}`);
  drawn = lines.length;
}
/** A line above the live ones. */
function log(line: string): void {
  const text = `${((performance.now() - started) / 1000).toFixed(2).padStart(6)} s  ${line}`;
  if (!tty) {
    console.log(text);
    return;
  }
  process.stdout.write(`${drawn > 0 ? `\x1b[${drawn}F\x1b[0J` : ''}${text}\n`);
  drawn = 0;
  draw();
}

let cluster: ClusterOfProcesses;
try {
  cluster = await Cluster.start({ orders, autoKill: !keys, duration: keys ? 20_000 : 4_500, log });
} catch (error) {
  console.error(`The cluster did not start: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
}

const c = cluster;
block = () => [
  ...c.processes.map((p) => {
    const state = p.state === 'up' ? `up (pid ${p.pid})` : p.state;
    const held = p.state === 'up' ? `${p.sessions} session${p.sessions === 1 ? '' : 's'} held` : '';
    const killed = p.runs.filter((run) => run.killed).length;
    return `  process ${p.index}  :${p.port}  ${state.padEnd(16)} ${held.padEnd(16)} ${String(p.handled).padStart(5)} orders handled  killed ${killed}×`;
  }),
  `  orders: ${c.progress.sent} sent, ${c.progress.acknowledged} acknowledged, ${c.progress.receipts} receipts back`,
];

console.log(`Redis on 127.0.0.1:${c.redisPort}; 3 server processes (examples/cluster/server.mjs) on ${c.processes.map((p) => `:${p.port}`).join(', ')};
HAProxy in front of them on ${c.url} (examples/cluster/haproxy.cfg).
3 clients send ${orders} orders each over ${keys ? 20 : 4.5} s with sendReliable(); each order gets a receipt back.
${keys ? 'Press 1, 2 or 3 to kill that process with SIGKILL (it is started again 1 s later), q to stop sending, Ctrl-C to quit.' : 'Each process is killed with SIGKILL once, in turn, and started again 1 s later.'}
`);
if (!tty) console.log(block().join('\n'));

let redraw: ReturnType<typeof setInterval> | undefined;

/** Ctrl-C, SIGINT, SIGTERM: everything stopped at once, nothing checked. */
let aborting = false;
async function abort(): Promise<void> {
  if (aborting) return;
  aborting = true;
  restoreTerminal();
  console.log('\nStopping: the processes, HAProxy and Redis.');
  await c.stop();
  process.exit(130);
}
process.once('SIGINT', () => void abort());
process.once('SIGTERM', () => void abort());

function restoreTerminal(): void {
  clearInterval(redraw);
  redraw = undefined;
  if (tty) process.stdout.write('\x1b[?25h'); // the cursor, hidden while redrawing
  if (keys) {
    process.stdin.setRawMode(false);
    process.stdin.pause();
  }
}

if (tty) process.stdout.write('\x1b[?25l');
redraw = setInterval(draw, 100);
started = performance.now(); // the times of the lines above the live ones count from here
if (keys) {
  process.stdin.setRawMode(true);
  process.stdin.resume();
  process.stdin.on('data', (data: Buffer) => {
    const key = String(data);
    if (key === '\u0003') void abort();
    else if (key === 'q') {
      log('q: no more orders; checking those sent');
      c.finish();
    } else if (key === '1' || key === '2' || key === '3') {
      const p = c.processes[Number(key) - 1];
      if (p?.state === 'up') void c.kill(Number(key));
      else log(`process ${key} is ${p?.state}: not killed`);
    }
  });
}

let exitCode = 1;
try {
  const result = await c.run();
  if (aborting) await new Promise(() => undefined); // Ctrl-C: abort() ends the process, nothing is checked
  restoreTerminal();
  draw();
  if (!tty) console.log(`\n${block().join('\n')}`);
  const analysis = analyse(result);
  console.log(`\n${analysis.lines.join('\n')}`);
  exitCode = analysis.ok ? 0 : 1;
} catch (error) {
  restoreTerminal();
  console.error(`The run failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`);
} finally {
  await c.stop();
}
process.exitCode = exitCode;
