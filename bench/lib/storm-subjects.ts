/**
 * The clients of the reconnect-storm benchmark (bench/storm.ts): every subject at its default
 * reconnection settings, all driving the same `ws` client class.
 *
 * `CountingWebSocket` is `ws`'s WebSocket with two additions that change nothing in its behaviour:
 * it timestamps every construction (= one connection attempt, the client-side cross-check of the
 * server's TCP count) and tallies the error codes it emits. It is what every subject gets as its
 * `WebSocket` option (the naive loop constructs it directly).
 */
import { createRequire } from 'node:module';
import { WebSocket as PartyWebSocket } from 'partysocket';
import type ReconnectingWebSocket from 'reconnecting-websocket';
import WebSocket, { type ClientOptions } from 'ws';
import type { BackoffPolicy, WebSocketConstructorLike } from '../../src/node.js';
import { loadPackage } from './load.js';
import { monotonicMs } from './storm-stats.js';

// The package as users run it (dist/), like the other benchmarks: the socket and its policies.
const { ResilientSocket, constant, decorrelatedJitter, equalJitter, exponential, fullJitter, phasedBinaryExponential } =
  await loadPackage();

/** What the client side observed; reset by the harness before each outage. */
export const probe = {
  /** `monotonicMs()` of every WebSocket construction. */
  attempts: [] as number[],
  /** error code (or message) → count. */
  errors: new Map<string, number>(),
  reset(): void {
    this.attempts = [];
    this.errors.clear();
  },
};

export class CountingWebSocket extends WebSocket {
  constructor(address: string | URL, protocols?: string | string[], options?: ClientOptions) {
    super(address, protocols, options);
    probe.attempts.push(monotonicMs());
    this.on('error', (error: NodeJS.ErrnoException) => {
      const key = error.code ?? error.message;
      probe.errors.set(key, (probe.errors.get(key) ?? 0) + 1);
    });
  }
}

export interface StormClient {
  close(): void;
}

export interface Subject {
  /** Short id for --subjects and the JSON. */
  readonly id: string;
  readonly label: string;
  /** The reconnection defaults in force, for the method text. */
  readonly defaults: string;
  /** Part of the CI smoke set (--quick). */
  readonly quick?: boolean;
  /** Shown in the chart, under this (short) legend name. */
  readonly chart?: string;
  /** Runs before each run's clients are created; returns a note about the run (e.g. the random draw). */
  prepare?(): string | undefined;
  create(url: string, onOpen: () => void): StormClient;
}

const require = createRequire(import.meta.url);
type RwsClass = typeof ReconnectingWebSocket;

/**
 * Evaluates reconnecting-websocket afresh (as a new app process would): its default
 * `minReconnectionDelay = 1000 + Math.random() * 4000` is computed when the module is evaluated.
 */
function freshRws(): RwsClass {
  const path = require.resolve('reconnecting-websocket');
  delete require.cache[path];
  return require(path) as RwsClass;
}

/** The min delay a module instance drew (introspection of a private field, on a throwaway instance). */
function drawnMinDelay(Rws: RwsClass): number {
  const probeInstance = new Rws('ws://127.0.0.1:9', undefined, { WebSocket: CountingWebSocket, startClosed: true });
  const internals = probeInstance as unknown as { _retryCount: number; _getNextDelay(): number };
  internals._retryCount = 1;
  return internals._getNextDelay();
}

function resilient(id: string, label: string, defaults: string, backoff?: () => BackoffPolicy): Subject {
  return {
    id,
    label,
    defaults,
    create(url, onOpen) {
      // The cast: ws's overloaded EventEmitter `on` does not match the structural type exactly.
      const WebSocket = CountingWebSocket as unknown as WebSocketConstructorLike;
      const socket = new ResilientSocket(url, backoff ? { WebSocket, backoff: backoff() } : { WebSocket });
      socket.on('error', () => undefined);
      socket.on('open', onOpen);
      return { close: () => socket.close() };
    },
  };
}

function naive(url: string, onOpen: () => void): StormClient {
  let ws: WebSocket | undefined;
  let timer: NodeJS.Timeout | undefined;
  let closed = false;
  const connect = () => {
    timer = undefined;
    const socket = new CountingWebSocket(url);
    ws = socket;
    socket.on('open', onOpen);
    socket.on('close', () => {
      if (!closed && ws === socket) timer = setTimeout(connect, 1_000);
    });
  };
  connect();
  return {
    close() {
      closed = true;
      if (timer) clearTimeout(timer);
      ws?.close(1000);
    },
  };
}

/** The defaults of the base/cap strategies, read from a policy (so the method text follows the code). */
const BASE_CAP = (() => {
  const { base, cap } = fullJitter();
  return `base ${base} ms, cap ${cap / 1000} s`;
})();

export const SUBJECTS: readonly Subject[] = [
  {
    ...resilient(
      'rs-default',
      'resilient-socket (default)',
      'truncated binary exponential T = 10 s, N = 10: U(0, 19.5 ms · 2^(min(n,10)−1)); stableAfter 5 s',
    ),
    quick: true,
    chart: 'resilient-socket',
  },
  {
    ...resilient(
      'rs-phased',
      'resilient-socket phasedBinaryExponential()',
      'one phase ψ ~ U(0, 1) per run of failures (drawn anew after each reset): 2^(ψ−1) · 19.5 ms · 2^(n−1) for n < 10, the 10th retry at 10 s · (1 + g(ψ)), g(ψ) = (ψ + 2^ψ − 1)/2, then every 10 s; stableAfter 5 s',
      () => phasedBinaryExponential(),
    ),
    chart: 'rs phased',
  },
  resilient('rs-full', 'resilient-socket fullJitter()', `U(0, min(cap, base·2^n)), ${BASE_CAP}`, () => fullJitter()),
  resilient('rs-equal', 'resilient-socket equalJitter()', `t/2 + U(0, t/2), t = min(cap, base·2^n), ${BASE_CAP}`, () =>
    equalJitter(),
  ),
  resilient('rs-decorrelated', 'resilient-socket decorrelatedJitter()', `min(cap, U(base, 3·prev)), ${BASE_CAP}`, () =>
    decorrelatedJitter(),
  ),
  {
    ...resilient('rs-exponential', 'resilient-socket exponential()', `min(cap, base·2^n), no jitter, ${BASE_CAP}`, () =>
      exponential(),
    ),
    chart: 'rs exponential()',
  },
  resilient('rs-constant', 'resilient-socket constant()', '1000 ms after every failure, no jitter', () => constant()),
  (() => {
    let Rws: RwsClass | undefined;
    return {
      id: 'rws',
      label: 'reconnecting-websocket',
      defaults:
        'min = 1000 + rand·4000 ms drawn once per module load (one fresh load per run here; all K clients of a run share it), ×1.3 per retry, max 10 s, connectionTimeout 4 s, minUptime 5 s',
      quick: true,
      chart: 'RWS, 1 module',
      prepare() {
        Rws = freshRws();
        return `min delay drawn this run: ${Math.round(drawnMinDelay(Rws))} ms`;
      },
      create(url: string, onOpen: () => void): StormClient {
        if (!Rws) throw new Error('prepare() first');
        const socket = new Rws(url, undefined, { WebSocket: CountingWebSocket });
        socket.addEventListener('open', onOpen);
        return { close: () => socket.close() };
      },
    } satisfies Subject;
  })(),
  {
    id: 'rws-isolated',
    label: 'reconnecting-websocket (1 module load per client)',
    chart: 'RWS, module/client',
    defaults:
      'as above, but each client gets its own module evaluation, hence its own random min delay: K independent machines',
    create(url, onOpen) {
      const Rws = freshRws();
      const socket = new Rws(url, undefined, { WebSocket: CountingWebSocket });
      socket.addEventListener('open', onOpen);
      return { close: () => socket.close() };
    },
  },
  {
    id: 'partysocket',
    label: 'partysocket',
    defaults:
      'ReconnectingWebSocket (`WebSocket` export): min 3000 ms fixed, ×1.3 per retry, max 10 s, no jitter, connectionTimeout 4 s, minUptime 5 s',
    chart: 'partysocket',
    create(url, onOpen) {
      const socket = new PartyWebSocket(url, undefined, { WebSocket: CountingWebSocket });
      socket.addEventListener('open', onOpen);
      return { close: () => socket.close() };
    },
  },
  {
    id: 'naive',
    label: 'naive ws loop',
    defaults: "`ws` + `on('close', () => setTimeout(connect, 1000))`: fixed 1 s, no backoff, no jitter",
    quick: true,
    chart: 'naive ws loop',
    create: naive,
  },
];
