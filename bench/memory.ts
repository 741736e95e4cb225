/**
 * Memory per connected client: K clients connected to one server, heap after GC, against K raw
 * `ws` clients in the same run, with the peers alongside.
 *
 * Method: the server runs in a child process, so the heap measured here holds only clients. For
 * each subject: wait until every client of the previous run has been collected (so none of its
 * garbage is freed during this measurement, which would read as a too-small figure), GC, read
 * heapUsed; open K clients and wait until all are open; GC, read heapUsed; the difference over K
 * is the per-client cost. Then close them all and go on with the next subject. Subjects
 * alternate, R runs each, medians. Every subject runs at its defaults on `ws` without
 * permessage-deflate (raw `ws` and ours take the option; the peers get a `ws` subclass that sets
 * it, which adds nothing per instance).
 */
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { WebSocket as PartySocket } from 'partysocket';
import ReconnectingWebSocket from 'reconnecting-websocket';
import { WebSocket } from 'ws';
import { startCountServer } from './lib/count-server.js';
import { isMain, loadModular, loadPackage } from './lib/load.js';
import { alternate } from './lib/stats.js';

const { ResilientSocket } = await loadPackage();
const { BaseSocket } = await loadModular();

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

function heap(): number {
  for (let i = 0; i < 3; i++) gc();
  return process.memoryUsage().heapUsed;
}

const settle = () => new Promise((resolve) => setTimeout(resolve, 50));

/** `ws` without permessage-deflate, for the peers (they construct it with `(url, protocols)`). */
class PlainWebSocket extends WebSocket {
  constructor(url: string | URL, protocols?: string | string[]) {
    super(url, protocols, { perMessageDeflate: false });
  }
}

/** A client library under test: how to make one client, and how to wait for its open and close. */
interface Subject<Client extends object> {
  readonly label: string;
  create(url: string): Client;
  opened(client: Client): Promise<unknown>;
  closed(client: Client): Promise<unknown>;
}

/** What the peers have of the browser API (their addEventListener takes no options). */
interface BrowserStyle {
  addEventListener(type: 'open' | 'close', listener: () => void): void;
  removeEventListener(type: 'open' | 'close', listener: () => void): void;
  close(): void;
}

/** Resolves at the first `type` event of `client`, then stops listening. */
function once(client: BrowserStyle, type: 'open' | 'close'): Promise<void> {
  return new Promise((resolve) => {
    const listener = () => {
      client.removeEventListener(type, listener);
      resolve();
    };
    client.addEventListener(type, listener);
  });
}

/** The peers speak the browser API. */
function browserStyle<Client extends BrowserStyle>(label: string, create: (url: string) => Client): Subject<Client> {
  return {
    label,
    create,
    opened: (client) => once(client, 'open'),
    closed: (client) => {
      const done = once(client, 'close');
      client.close();
      return done;
    },
  };
}

const RAW: Subject<WebSocket> = {
  label: 'raw `ws` (baseline)',
  create: (url) => new WebSocket(url, { perMessageDeflate: false }),
  opened: (ws) => new Promise((resolve) => ws.once('open', resolve)),
  closed: (ws) =>
    new Promise((resolve) => {
      ws.once('close', resolve);
      ws.close();
    }),
};

type Ours = InstanceType<typeof ResilientSocket>;
const OURS: Subject<Ours> = {
  label: 'resilient-socket',
  create: (url) => new ResilientSocket(url, { WebSocket, wsOptions: { perMessageDeflate: false } }),
  opened: (socket) => new Promise((resolve) => socket.once('open', resolve)),
  closed: (socket) =>
    new Promise<void>((resolve) => {
      socket.on('state', ({ current }) => current === 'closed' && resolve());
      socket.close();
    }),
};

type Core = InstanceType<typeof BaseSocket>;
/** The modular entry's core alone (no feature): what `resilient-socket/modular` costs at the least. */
const MODULAR: Subject<Core> = {
  label: 'resilient-socket/modular (BaseSocket, no features)',
  create: (url) => new BaseSocket(url, { WebSocket, wsOptions: { perMessageDeflate: false } }),
  opened: (socket) => new Promise((resolve) => socket.once('open', resolve)),
  closed: (socket) =>
    new Promise<void>((resolve) => {
      socket.on('state', ({ current }) => current === 'closed' && resolve());
      socket.close();
    }),
};

// biome-ignore lint/suspicious/noExplicitAny: the subjects differ in client type; each is used with its own.
const SUBJECTS: readonly Subject<any>[] = [
  RAW,
  OURS,
  MODULAR,
  browserStyle('reconnecting-websocket 4', (url) => new ReconnectingWebSocket(url, [], { WebSocket: PlainWebSocket })),
  browserStyle('partysocket 1', (url) => new PartySocket(url, [], { WebSocket: PlainWebSocket })),
];

/** The clients of the previous run, held weakly: the next run starts once all are collected. */
let previous: WeakRef<object>[] = [];

/** Waits (bounded: 5 s) until every client of the previous run is garbage, then a short settle. */
async function collected(): Promise<void> {
  // deref() keeps a target alive until the current job ends: collect first, in a fresh job.
  const alive = () => previous.filter((ref) => ref.deref() !== undefined).length;
  let left = previous.length;
  for (let i = 0; i < 100 && left > 0; i++) {
    await settle();
    gc();
    left = alive();
  }
  if (left > 0) throw new Error(`bench/memory: ${left} clients of the previous run are still alive after 5 s`);
  previous = [];
  await settle();
}

async function measure<Client extends object>(subject: Subject<Client>, url: string, count: number): Promise<number> {
  await collected();
  const before = heap();
  const clients = Array.from({ length: count }, () => subject.create(url));
  await Promise.all(clients.map((client) => subject.opened(client)));
  const after = heap();
  previous = clients.map((client) => new WeakRef(client));
  await Promise.all(clients.map((client) => subject.closed(client)));
  return (after - before) / count;
}

export interface MemoryResult {
  readonly clients: number;
  readonly runs: number;
  /** Median bytes per client, by subject label (raw `ws`, the baseline, first). */
  readonly bytes: Readonly<Record<string, number>>;
}

export async function memory({ quick = false } = {}): Promise<MemoryResult> {
  const clients = quick ? 100 : 1000;
  const runs = quick ? 1 : 5;
  const subjects = quick ? [RAW, OURS, MODULAR] : SUBJECTS;
  const server = await startCountServer();
  try {
    const measures = Object.fromEntries(
      subjects.map((subject) => [subject.label, (count: number) => measure(subject, server.url, count)]),
    );
    const bytes = await alternate(measures, { warmup: Math.min(clients, 100), size: clients, runs });
    return { clients, runs, bytes };
  } finally {
    await server.stop();
  }
}

export function memoryTable(r: MemoryResult): string {
  const kib = (bytes: number) => (bytes / 1024).toFixed(2);
  const baseline = r.bytes[RAW.label] as number;
  const rows = Object.entries(r.bytes).map(([label, bytes]) => {
    const ratio = `${(bytes / baseline).toFixed(2)}×`;
    return `| ${label} | ${kib(bytes)} | ${label === OURS.label ? `${ratio} (target ≤ 1.25×)` : ratio} |`;
  });
  return [
    `Memory: heap per connected client after GC, ${r.clients} clients, median of ${r.runs} alternating runs; server in a child process; each run starts once the previous run's clients are collected.`,
    '',
    '| subject | heap per client (KiB) | vs raw ws |',
    '|---|---:|---:|',
    ...rows,
  ].join('\n');
}

if (isMain(import.meta.url)) {
  console.log(memoryTable(await memory({ quick: process.argv.includes('--quick') })));
}
