/**
 * How to test an app's reconnect behaviour with `resilient-socket/testing`: a scripted mock server
 * (FlakyServer), fake timers, and `until()` to wait for what the socket does next. No network, no
 * real waiting: the whole file runs in a fraction of a second. Run it with `npm run example:testing`.
 */
import { ErrorCodes } from 'resilient-socket';
import { FlakyServer, type FlakyServerOptions, until, waitFor } from 'resilient-socket/testing';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { type FeedStatus, PriceFeed, type PriceFeedOptions } from './price-feed.js';

// Fake timers drive both sides: the socket's backoff, heartbeat and timeouts, and mock-socket's
// own 4 ms delivery delay. `until` (an event) and `waitFor` (any condition) move fake time
// themselves, 1 ms at a time, until it happens (or reject after `within`, 10 s of fake time by
// default).
const time = { advance: vi.advanceTimersByTimeAsync };

const PING = JSON.stringify({ type: 'ping' });
const PONG = JSON.stringify({ type: 'pong' });

const servers: FlakyServer[] = [];
const feeds: PriceFeed[] = [];

beforeEach(() => {
  vi.useFakeTimers();
});

afterEach(async () => {
  for (const feed of feeds.splice(0)) feed.close();
  for (const server of servers.splice(0)) server.stop();
  await vi.advanceTimersByTimeAsync(20); // let mock-socket deliver the last closes
  vi.useRealTimers();
});

/** A price server: answers a subscription with a price snapshot, and pings with a pong. */
function priceServer(options: FlakyServerOptions = {}): FlakyServer {
  const server = new FlakyServer({
    reply: (data) => {
      const message = JSON.parse(String(data)) as { type: string; topic?: string };
      if (message.type === 'subscribe') return JSON.stringify({ type: 'price', topic: message.topic, price: 100 });
      if (message.type === 'ping') return PONG;
      return undefined;
    },
    ...options,
  });
  servers.push(server);
  return server;
}

/** A feed on `server`, closed after the test. */
function feedOn(server: FlakyServer, options: PriceFeedOptions = {}): PriceFeed {
  const feed = new PriceFeed(server.url, { topics: ['BTC', 'ETH'], WebSocket: server.WebSocket, ...options });
  feeds.push(feed);
  return feed;
}

/** Everything the server received, parsed. */
function received(server: FlakyServer): unknown[] {
  return server.received.map((data) => JSON.parse(String(data)));
}

/** The topics the server was asked to subscribe to, in order. */
function subscriptions(server: FlakyServer): string[] {
  return (received(server) as { type: string; topic: string }[])
    .filter((m) => m.type === 'subscribe')
    .map((m) => m.topic);
}

describe('PriceFeed', () => {
  it('subscribes on open and keeps the latest price per topic', async () => {
    const server = priceServer();
    const feed = feedOn(server);
    expect(feed.status).toBe('reconnecting');

    await until(feed.socket, 'open', time);
    expect(feed.status).toBe('live');
    // Client → server messages arrive a few (fake) ms later: wait for them.
    await waitFor(() => subscriptions(server).length === 2, time);
    expect(subscriptions(server)).toEqual(['BTC', 'ETH']);
    expect(feed.price('BTC')).toBe(100); // the snapshot

    // server.send() reaches the client synchronously.
    server.send(JSON.stringify({ type: 'price', topic: 'BTC', price: 101.5 }));
    server.send('not json');
    expect(feed.price('BTC')).toBe(101.5);
    expect(Object.fromEntries(feed.prices)).toEqual({ BTC: 101.5, ETH: 100 });
  });

  it('re-subscribes after the connection drops: reconnecting → live', async () => {
    const server = priceServer();
    const feed = feedOn(server);
    await until(feed.socket, 'open', time);
    const statuses: FeedStatus[] = [];
    feed.onStatus((status) => statuses.push(status));

    server.drop(); // the connection is lost without a close frame (1006)
    await until(feed.socket, 'open', time);

    expect(statuses).toEqual(['reconnecting', 'live']);
    await waitFor(() => subscriptions(server).length === 4, time);
    expect(subscriptions(server)).toEqual(['BTC', 'ETH', 'BTC', 'ETH']);
    expect(server.connections).toBe(2);
  });

  it('messages sent while the server is down arrive after up(), in order, after the re-subscription', async () => {
    const server = priceServer();
    const feed = feedOn(server, { topics: ['BTC'] });
    await until(feed.socket, 'open', time);
    await waitFor(() => server.received.length === 1, time);
    const before = server.received.length;

    server.down(); // drops the connection and refuses new attempts
    await until(feed.socket, 'close', time);
    expect(feed.status).toBe('reconnecting');
    expect([1, 2, 3].map((id) => feed.send({ type: 'alert', id }))).toEqual(['buffered', 'buffered', 'buffered']);

    await vi.advanceTimersByTimeAsync(2_000);
    expect(server.received.length).toBe(before); // nothing got through
    expect(server.attempts).toBeGreaterThan(2); // but the feed kept trying

    server.up();
    await until(feed.socket, 'open', time);
    await waitFor(() => server.received.length === before + 4, time);
    expect(received(server).slice(before)).toEqual([
      { type: 'subscribe', topic: 'BTC' }, // the handshake runs before the queue is flushed
      { type: 'alert', id: 1 },
      { type: 'alert', id: 2 },
      { type: 'alert', id: 3 },
    ]);
  });

  it('gives up after maxRetries refused attempts and goes offline', async () => {
    const server = priceServer();
    server.down();
    const feed = feedOn(server, { maxRetries: 3 });

    const giveup = await until(feed.socket, 'giveup', time);

    expect(giveup.attempts).toBe(4); // the first attempt and 3 retries
    expect(feed.status).toBe('offline');
    expect(feed.lastError?.code).toBe(ErrorCodes.RETRIES_EXHAUSTED);
    expect(server.attempts).toBe(4);
    expect(server.connections).toBe(0);
  });

  it('notices a silent server with its heartbeat and reconnects', async () => {
    const server = priceServer();
    const feed = feedOn(server, {
      heartbeat: { interval: 5_000, timeout: 2_000, message: PING, isPong: (data) => data === PONG },
    });
    await until(feed.socket, 'open', time);
    await vi.advanceTimersByTimeAsync(20_000);
    expect(feed.status).toBe('live'); // pings answered

    server.silence(); // the connection stays open, but nothing comes back
    const silencedAt = Date.now();
    const error = await until(feed.socket, 'error', { ...time, where: (e) => e.code === ErrorCodes.DEAD_LINK });
    expect(error.code).toBe(ErrorCodes.DEAD_LINK);
    expect(Date.now() - silencedAt).toBeLessThanOrEqual(5_000 + 2_000); // interval + timeout
    expect(feed.status).toBe('reconnecting');

    server.speak();
    await until(feed.socket, 'open', time);
    expect(feed.status).toBe('live');
    await waitFor(() => subscriptions(server).length === 4, time);
    expect(subscriptions(server)).toEqual(['BTC', 'ETH', 'BTC', 'ETH']);
  });

  it('close() goes offline and leaves no timer behind', async () => {
    const server = priceServer();
    const feed = feedOn(server);
    await until(feed.socket, 'open', time);
    feed.close();
    await until(feed.socket, 'closed', time);
    expect(feed.status).toBe('offline');
    server.stop();
    await vi.advanceTimersByTimeAsync(20);
    expect(vi.getTimerCount()).toBe(0);
  });
});
