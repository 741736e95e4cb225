/**
 * A TCP fault proxy on 127.0.0.1, between a client and a real server, controlled from the test.
 *
 *   client ──► proxy (127.0.0.1:port) ──► target (127.0.0.1:targetPort)
 *
 * - pass through (default), optionally with `latency` ms added to every chunk in both directions;
 * - `blackhole(direction)`: stop forwarding one or both directions without closing anything, the
 *   way a dead NAT entry or a silently dropping proxy behaves (a half-open link). Held bytes are
 *   released by `restore()` (as TCP retransmission would deliver them) unless `drop: true`;
 * - `reset()`: destroy every proxied connection on both sides with a TCP RST;
 * - `refuse()` / `accept()`: close / reopen the listening port (new connections get ECONNREFUSED);
 * - `flap({ up, down })`: alternate up (accepting) and down (reset + refusing) on a schedule.
 *
 * Everything stays on loopback. `stop()` tears it all down.
 */
import { connect, createServer, type Server, type Socket } from 'node:net';

export type Direction = 'both' | 'upstream' | 'downstream';

interface Pair {
  readonly client: Socket;
  readonly upstream: Socket;
  /** Chunks held back while a direction is blackholed. */
  readonly held: { upstream: Buffer[]; downstream: Buffer[] };
}

export interface FlapSchedule {
  /** Milliseconds up (accepting and forwarding). */
  readonly up: number;
  /** Milliseconds down (all connections reset, new ones refused). */
  readonly down: number;
}

export class FaultProxy {
  /** Added to every forwarded chunk, in ms. */
  latency = 0;
  /** Connections accepted by the proxy, over its life. */
  accepted = 0;

  readonly #targetPort: () => number;
  readonly #pairs = new Set<Pair>();
  #server: Server | undefined;
  #port: number | undefined;
  #blackholed: { upstream: boolean; downstream: boolean; drop: boolean } = {
    upstream: false,
    downstream: false,
    drop: false,
  };
  #flapTimer: ReturnType<typeof setTimeout> | undefined;
  readonly #pendingTimers = new Set<ReturnType<typeof setTimeout>>();

  /** @param targetPort the server's port, or a function returning it (read on every connection). */
  constructor(targetPort: number | (() => number)) {
    this.#targetPort = typeof targetPort === 'number' ? () => targetPort : targetPort;
  }

  get port(): number {
    if (this.#port === undefined) throw new Error('FaultProxy: start() it first');
    return this.#port;
  }

  /** `ws://127.0.0.1:<proxy port>/`, a string like `TestWsServer.url`. */
  get url(): string {
    return this.urlFor('/');
  }

  /** `ws://127.0.0.1:<proxy port><path>`, like `TestWsServer.urlFor`. */
  urlFor(path: string): string {
    return `ws://127.0.0.1:${this.port}${path}`;
  }

  /** Proxied connections currently open. */
  get active(): number {
    return this.#pairs.size;
  }

  /** Whether the proxy is accepting connections. */
  get listening(): boolean {
    return this.#server?.listening === true;
  }

  /** Starts listening (an ephemeral port the first time, the same port afterwards). */
  async start(): Promise<number> {
    return this.accept();
  }

  /** (Re)opens the listening port. */
  async accept(): Promise<number> {
    if (this.#server) return this.port;
    const server = createServer((client) => this.#onClient(client));
    this.#server = server;
    this.#port = await listen(server, this.#port ?? 0);
    return this.#port;
  }

  /** Closes the listening port: new connections are refused. Existing ones are untouched. */
  async refuse(): Promise<void> {
    const server = this.#server;
    if (!server) return;
    this.#server = undefined;
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }

  /** Stops forwarding `direction` (both by default) without closing anything. */
  blackhole(direction: Direction = 'both', options: { drop?: boolean } = {}): void {
    if (direction !== 'downstream') this.#blackholed.upstream = true;
    if (direction !== 'upstream') this.#blackholed.downstream = true;
    this.#blackholed.drop = options.drop === true;
  }

  /** Forwards again in both directions, releasing held bytes in order (unless they were dropped). */
  restore(): void {
    this.#blackholed = { upstream: false, downstream: false, drop: false };
    for (const pair of this.#pairs) {
      for (const chunk of pair.held.upstream.splice(0)) this.#write(pair.upstream, chunk);
      for (const chunk of pair.held.downstream.splice(0)) this.#write(pair.client, chunk);
    }
  }

  /** Destroys every proxied connection with a TCP RST on both sides. */
  reset(): void {
    for (const pair of [...this.#pairs]) this.#resetPair(pair);
  }

  /**
   * Alternates down (reset + refuse) and up (accept) until `stopFlapping()` or `stop()`. Starts
   * with a down phase.
   */
  flap(schedule: FlapSchedule): void {
    this.stopFlapping();
    const down = (): void => {
      this.reset();
      void this.refuse();
      this.#flapTimer = setTimeout(up, schedule.down);
    };
    const up = (): void => {
      void this.accept();
      this.#flapTimer = setTimeout(down, schedule.up);
    };
    down();
  }

  stopFlapping(): void {
    if (this.#flapTimer !== undefined) clearTimeout(this.#flapTimer);
    this.#flapTimer = undefined;
  }

  /** Stops everything: flapping, pending delayed chunks, connections (RST) and the listener. */
  async stop(): Promise<void> {
    this.stopFlapping();
    for (const timer of this.#pendingTimers) clearTimeout(timer);
    this.#pendingTimers.clear();
    this.reset();
    await this.refuse();
  }

  #onClient(client: Socket): void {
    this.accepted++;
    const upstream = connect({ host: '127.0.0.1', port: this.#targetPort() });
    const pair: Pair = { client, upstream, held: { upstream: [], downstream: [] } };
    this.#pairs.add(pair);
    client.setNoDelay(true);
    upstream.setNoDelay(true);
    client.on('data', (chunk) => this.#forward(pair, 'upstream', chunk));
    upstream.on('data', (chunk) => this.#forward(pair, 'downstream', chunk));
    // An orderly end or an error on one side ends the other side the same way (after the same
    // latency as the data, so a delayed last chunk is not cut off).
    const end = (other: Socket) => () => this.#later(() => !other.destroyed && other.end());
    client.on('end', end(upstream));
    upstream.on('end', end(client));
    const fail = (): void => this.#resetPair(pair);
    client.on('error', fail);
    upstream.on('error', fail);
    const forget = (): void => {
      if (client.destroyed && upstream.destroyed) this.#pairs.delete(pair);
    };
    client.on('close', () => {
      this.#later(() => {
        if (!upstream.destroyed && !this.#blackholed.upstream) upstream.destroy();
        forget();
      });
    });
    upstream.on('close', () => {
      this.#later(() => {
        if (!client.destroyed && !this.#blackholed.downstream) client.destroy();
        forget();
      });
    });
  }

  #forward(pair: Pair, direction: 'upstream' | 'downstream', chunk: Buffer): void {
    if (this.#blackholed[direction]) {
      if (!this.#blackholed.drop) pair.held[direction].push(chunk);
      return;
    }
    const to = direction === 'upstream' ? pair.upstream : pair.client;
    this.#later(() => this.#write(to, chunk));
  }

  /** Runs `action` after the current latency (at once without latency), in FIFO order. */
  #later(action: () => void): void {
    if (this.latency <= 0) {
      action();
      return;
    }
    const timer = setTimeout(() => {
      this.#pendingTimers.delete(timer);
      action();
    }, this.latency);
    this.#pendingTimers.add(timer);
  }

  #write(socket: Socket, chunk: Buffer): void {
    if (!socket.destroyed && socket.writable) socket.write(chunk);
  }

  #resetPair(pair: Pair): void {
    this.#pairs.delete(pair);
    for (const socket of [pair.client, pair.upstream]) {
      if (socket.destroyed) continue;
      // RST rather than FIN: the peer sees ECONNRESET, as after a crash or a middlebox reset.
      if (typeof socket.resetAndDestroy === 'function' && socket.readyState !== 'opening') socket.resetAndDestroy();
      else socket.destroy();
    }
  }
}

async function listen(server: Server, port: number): Promise<number> {
  const deadline = Date.now() + 2_000;
  for (;;) {
    try {
      await new Promise<void>((resolve, reject) => {
        const onError = (error: Error): void => reject(error);
        server.once('error', onError);
        server.listen({ host: '127.0.0.1', port }, () => {
          server.off('error', onError);
          resolve();
        });
      });
      const address = server.address();
      if (address === null || typeof address === 'string') throw new Error('FaultProxy: no TCP address');
      return address.port;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EADDRINUSE' || Date.now() > deadline) throw error;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }
}
