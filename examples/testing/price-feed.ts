/**
 * A small app module built on ResilientSocket, the kind of code the test kit is for: a price feed
 * that subscribes to topics, keeps the latest price of each, and says whether it is live.
 *
 * Protocol (JSON text frames):
 * - client → server: `{"type":"subscribe","topic":"BTC"}`, and any app message passed to `send()`;
 * - server → client: `{"type":"price","topic":"BTC","price":64000.5}`; anything else is ignored.
 *
 * The subscriptions are sent from the socket's `handshake` hook, which runs on every open: after a
 * reconnect the feed re-subscribes by itself, before the messages queued while it was down are
 * flushed. See price-feed.test.ts for how its reconnect behaviour is tested.
 */
import {
  type Data,
  handshake,
  ResilientSocket,
  type ResilientSocketError,
  type ResilientSocketOptions,
} from 'resilient-socket';

/** `live`: connected and subscribed. `reconnecting`: trying to (re)connect. `offline`: gave up or closed. */
export type FeedStatus = 'live' | 'reconnecting' | 'offline';

/**
 * Options of {@link PriceFeed}: the topics, plus any ResilientSocket option (except `handshake`,
 * which the feed uses), so tests can inject `WebSocket`, `clock`, `heartbeat`, `maxRetries`...
 */
export interface PriceFeedOptions extends Omit<ResilientSocketOptions, 'handshake'> {
  /** Topics to subscribe to (more can be added with `subscribe()`). */
  readonly topics?: readonly string[];
}

export class PriceFeed {
  /** The underlying socket, for diagnostics and tests. */
  readonly socket: ResilientSocket;
  /** The last error the socket reported (it copes with errors by itself). */
  lastError: ResilientSocketError | undefined;

  readonly #topics: Set<string>;
  readonly #prices = new Map<string, number>();
  readonly #listeners = new Set<(status: FeedStatus) => void>();
  #status: FeedStatus = 'reconnecting';

  constructor(url: string, options: PriceFeedOptions = {}) {
    const { topics = [], ...socketOptions } = options;
    this.#topics = new Set(topics);
    this.socket = new ResilientSocket(url, {
      ...socketOptions,
      // Runs on every open, before queued messages are flushed and before `open` is emitted.
      handshake: handshake((connection) => {
        for (const topic of this.#topics) connection.send(subscription(topic));
      }),
    });
    this.socket.on('state', ({ current }) => {
      this.#setStatus(
        current === 'open' ? 'live' : current === 'closing' || current === 'closed' ? 'offline' : 'reconnecting',
      );
    });
    this.socket.on('message', (data) => this.#onMessage(data));
    this.socket.on('error', (error) => {
      this.lastError = error;
    });
  }

  get status(): FeedStatus {
    return this.#status;
  }

  /** The latest price of `topic`, if one arrived. */
  price(topic: string): number | undefined {
    return this.#prices.get(topic);
  }

  /** Every topic's latest price. */
  get prices(): ReadonlyMap<string, number> {
    return this.#prices;
  }

  /** Adds a topic: subscribed now if live, and on every reconnect. */
  subscribe(topic: string): void {
    if (this.#topics.has(topic)) return;
    this.#topics.add(topic);
    // Not buffered: if we are down, the handshake subscribes on the next open anyway.
    if (this.#status === 'live') this.socket.send(subscription(topic), { buffer: false });
  }

  /**
   * Sends an app message (an order, an alert). While the feed is down it is queued and sent after
   * the next open, in order.
   * @returns what the socket did with it: 'sent', 'buffered' or 'dropped'.
   */
  send(message: Readonly<Record<string, unknown>>) {
    return this.socket.send(JSON.stringify(message));
  }

  /** Calls `listener` on every status change; returns a function that stops it. */
  onStatus(listener: (status: FeedStatus) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** Closes for good: status `offline`, no timers left behind. */
  close(): void {
    this.socket.close();
  }

  #setStatus(status: FeedStatus): void {
    if (status === this.#status) return;
    this.#status = status;
    for (const listener of this.#listeners) listener(status);
  }

  #onMessage(data: Data): void {
    if (typeof data !== 'string') return;
    let message: unknown;
    try {
      message = JSON.parse(data);
    } catch {
      return;
    }
    const { type, topic, price } = (message ?? {}) as { type?: unknown; topic?: unknown; price?: unknown };
    if (type === 'price' && typeof topic === 'string' && typeof price === 'number') this.#prices.set(topic, price);
  }
}

function subscription(topic: string): string {
  return JSON.stringify({ type: 'subscribe', topic });
}
