/**
 * What a truthy feature hook result does (src/core/feature.ts): a `message` hook consumes the
 * message, a `gate` holds the open (gates in turn), an `admit` refuses a send, a `hold` keeps a retry
 * from starting or waits for the network.
 */
import { describe, expect, it, vi } from 'vitest';
import type { Host } from '../../src/core/feature.js';
import type { ResilientSocket } from '../../src/node.js';
import { advance, MOCK_DELAY, record, startServer, uniqueUrl } from '../resilient-socket/helpers.js';
import { base, logEvents, recorder, setUpFeatureSockets, take } from './helpers.js';

setUpFeatureSockets();

describe('what a hook result does', () => {
  it('a `message` hook returning true consumes the message: no deliver, no `message` event, no later `message` hook', async () => {
    const log: string[] = [];
    const server = startServer();
    const consumer = recorder('first', 10, log, { message: (_m, _me, data) => data === 'pong' });
    const after = recorder('second', 20, log);
    const socket = base(server.url, { features: [after.feature, consumer.feature] });
    const events = record(socket as ResilientSocket);
    await advance(MOCK_DELAY);
    take(log);
    server.broadcast('pong');
    server.broadcast('data');
    await advance(0);
    expect(log).toEqual([
      'first.message:pong',
      'first.message:data',
      'second.message:data',
      'first.deliver:data',
      'second.deliver:data',
    ]);
    expect(events.of('message')).toEqual(['data']);
  });

  it('a `gate` returning a promise holds `open` until it resolves', async () => {
    const log: string[] = [];
    const server = startServer();
    let pass: () => void = () => undefined;
    const gate = new Promise<void>((resolve) => {
      pass = resolve;
    });
    const { feature } = recorder('g', 10, log, { gate: () => gate });
    const later = recorder('l', 20, log);
    const socket = base(server.url, { features: [feature, later.feature] });
    logEvents(socket, log);
    expect(socket.send('queued')).toBe('buffered');
    await advance(MOCK_DELAY);
    take(log);
    await advance(5_000);
    expect(socket.state).toBe('connecting');
    expect(server.clients).toHaveLength(1); // the transport is open: only the gate holds it
    expect(server.received).toEqual([]); // the queue is not flushed while the gate holds
    expect(log).toEqual([]);
    // The later feature's gate is asked once the first has passed (gates hold the open in turn).
    pass();
    await advance(0);
    expect(socket.state).toBe('open');
    expect(take(log)).toEqual([
      'l.gate:#1',
      'g.flush',
      'l.flush',
      'g.state:connecting→open',
      'l.state:connecting→open',
      'event:state:connecting→open',
      'g.open:#1',
      'l.open:#1',
      'event:open:#1',
    ]);
    await advance(MOCK_DELAY);
    expect(server.received).toEqual(['queued']);
  });

  it('gates hold the open in turn: the second waits for the first, the open waits for both', async () => {
    const log: string[] = [];
    const server = startServer();
    const passes: (() => void)[] = [];
    const holding = () =>
      new Promise<void>((resolve) => {
        passes.push(resolve);
      });
    const first = recorder('a', 10, log, { gate: holding });
    const second = recorder('b', 20, log, { gate: holding });
    const socket = base(server.url, { features: [first.feature, second.feature] });
    await advance(MOCK_DELAY);
    expect(log.filter((e) => e.includes('gate'))).toEqual(['a.gate:#1']);
    passes[0]?.();
    await advance(0);
    expect(log.filter((e) => e.includes('gate'))).toEqual(['a.gate:#1', 'b.gate:#1']);
    expect(socket.state).toBe('connecting');
    passes[1]?.();
    await advance(0);
    expect(socket.state).toBe('open');
  });

  it('a `gate` holds: the later feature is not asked while the first gate is pending', async () => {
    const log: string[] = [];
    const server = startServer();
    const { feature } = recorder('g', 10, log, { gate: () => new Promise(() => undefined) });
    const later = recorder('l', 20, log);
    base(server.url, { features: [feature, later.feature] });
    await advance(MOCK_DELAY);
    expect(log.filter((e) => e.includes('gate'))).toEqual(['g.gate:#1']);
  });

  it("an `admit` hook returning 'dropped' makes send() return 'dropped' with a `drop` event, reason 'overflow'", () => {
    const log: string[] = [];
    const { feature } = recorder('a', 10, log, { admit: (_m, _me, bytes) => (bytes > 3 ? 'dropped' : undefined) });
    const socket = base(uniqueUrl(), { autoConnect: false, features: [feature] });
    const events = record(socket as ResilientSocket);
    expect(socket.send('abc')).toBe('buffered');
    expect(socket.send('abcd')).toBe('dropped');
    expect(socket.bufferedCount).toBe(1);
    expect(log.filter((e) => e.startsWith('a.admit'))).toEqual(['a.admit:3', 'a.admit:4']);
    expect(events.of('drop')).toEqual([{ reason: 'overflow', messages: ['abcd'] }]);
  });

  it('`hold` returning true when a retry is due keeps it from starting; the feature starts it later', async () => {
    const log: string[] = [];
    const server = startServer();
    let offline = false;
    let host: Host | undefined;
    const { feature } = recorder('h', 10, log, {
      hold: (m) => {
        host = m;
        return offline;
      },
    });
    const socket = base(server.url, { features: [feature], maxDelay: 100, ceiling: 1 });
    await advance(MOCK_DELAY);
    const events = record(socket as ResilientSocket);
    server.closeLast(1011);
    await advance(MOCK_DELAY);
    expect(socket.state).toBe('reconnecting'); // decided: retry (hold said no then)
    const [{ delay } = { delay: -1 }] = events.of('reconnecting');
    offline = true; // the network goes away during the wait
    await advance(Math.ceil(delay) + 1_000);
    expect(socket.state).toBe('reconnecting');
    expect(events.of('connecting')).toEqual([]);
    expect(server.clients).toHaveLength(1);
    expect(vi.getTimerCount()).toBe(0); // nothing armed: the feature retries when it sees fit
    offline = false;
    host?.startAttempt_('back online');
    expect(socket.state).toBe('connecting');
    await advance(MOCK_DELAY);
    expect(socket.state).toBe('open');
    expect(server.clients).toHaveLength(2);
  });

  it('`hold` returning true when the loss is decided: wait for the network (no delay drawn, no `reconnecting`)', async () => {
    const log: string[] = [];
    const server = startServer();
    let offline = false;
    const { feature } = recorder('h', 10, log, { hold: () => offline });
    const socket = base(server.url, { features: [feature] });
    await advance(MOCK_DELAY);
    const events = record(socket as ResilientSocket);
    offline = true;
    server.closeLast(1011);
    await advance(MOCK_DELAY);
    expect(events.of('state')).toEqual([
      { previous: 'open', current: 'reconnecting', reason: 'offline: waiting for the network' },
    ]);
    expect(events.of('reconnecting')).toEqual([]);
    expect(vi.getTimerCount()).toBe(0);
  });
});
