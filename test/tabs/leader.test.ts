/**
 * The leader's side of `SharedSocket` (src/tabs/leader.ts): taking over keeps the failure count
 * of a leader that was retrying and leaves a connection that gave up closed; messages a follower
 * handed over and that were not confirmed when it closed are sent by the leader; a follower's
 * message is written on the open connection, or handed back when it is too old.
 */
import { WebSocket as MockWebSocket } from 'mock-socket';
import { expect, it } from 'vitest';
import type { ReconnectingInfo } from '../../src/core/events.js';
import type { SharedSocket } from '../../src/tabs/shared-socket.js';
import type { WebSocketConstructorLike } from '../../src/transports/websocket-like.js';
import { FakeBrowser, type FakeTab } from '../helpers/fake-tabs.js';
import { advance, MOCK_DELAY, startServer } from '../resilient-socket/helpers.js';
import { useSharedSockets } from './helpers.js';

const share = useSharedSockets();

it('a tab that takes over during an outage goes on from the failure count (no reset of the backoff)', async () => {
  const server = startServer();
  const browser = new FakeBrowser();
  const options = { maxDelay: 1_000, ceiling: 4 };
  const [leader, follower] = [share(browser.tab(), server, options), share(browser.tab(), server, options)];
  await advance(20);
  server.stop();
  await advance(5_000); // several failures
  const failures = follower.failures;
  expect(failures).toBeGreaterThanOrEqual(3);
  expect(leader.failures).toBe(failures);
  const waits: ReconnectingInfo[] = [];
  follower.on('reconnecting', (info) => waits.push(info));
  leader.close();
  await advance(MOCK_DELAY + 5);
  expect(follower.role).toBe('leader');
  expect(follower.failures).toBeGreaterThanOrEqual(failures + 1);
  // The window at that failure count (a = T / 2^(N−1) = 125 ms; n ≥ 4: the full 1 s), not the first one's.
  expect(waits[0]?.attempt).toBeGreaterThan(failures);
  const back = startServer(server.url);
  await advance(2_000);
  expect(back.clients).toHaveLength(1);
  expect(follower.state).toBe('open');
});

it('a connection that gave up stays closed when its leader leaves, until open()', async () => {
  const server = startServer();
  const browser = new FakeBrowser();
  const [leader, follower] = [
    share(browser.tab(), server, { maxRetries: 0 }),
    share(browser.tab(), server, { maxRetries: 0 }),
  ];
  const gaveUp: string[] = [];
  for (const [name, tab] of [
    ['leader', leader],
    ['follower', follower],
  ] as const) {
    tab.on('giveup', ({ error }) => gaveUp.push(`${name} ${error.code}`));
  }
  await advance(20);
  server.stop();
  await advance(100);
  expect(follower.state).toBe('closed');
  expect(gaveUp.sort()).toEqual(['follower ERR_RS_RETRIES_EXHAUSTED', 'leader ERR_RS_RETRIES_EXHAUSTED']);
  const back = startServer(server.url);
  leader.close();
  await advance(1_000);
  expect(follower.role).toBe('leader');
  expect(follower.state).toBe('closed');
  expect(back.clients).toHaveLength(0);
  follower.open();
  await advance(20);
  expect(follower.state).toBe('open');
  expect(back.clients).toHaveLength(1);
});

it('a follower that closes hands what the leader had not confirmed to the leader, which sends it once', async () => {
  const server = startServer();
  const browser = new FakeBrowser();
  const tabs = [browser.tab(), browser.tab()];
  const [leader, follower] = tabs.map((tab) => share(tab, server)) as [SharedSocket, SharedSocket];
  await advance(20);
  (tabs[0] as FakeTab).freeze();
  expect(follower.send('one')).toBe('sent');
  expect(follower.send('two')).toBe('sent');
  expect(follower.bufferedCount).toBe(2);
  follower.close();
  (tabs[0] as FakeTab).thaw(); // the leader hears the messages (too old by now? not yet: 0 ms) and the goodbye
  await advance(20);
  expect(server.received).toEqual(['one', 'two']);
  expect(leader.role).toBe('leader');
});

it('messages handed over but too old when the leader reads them are not written by it, and the tab that closed hands them over', async () => {
  const server = startServer();
  const browser = new FakeBrowser();
  const tabs = [browser.tab(), browser.tab()];
  const [leader, follower] = tabs.map((tab) => share(tab, server)) as [SharedSocket, SharedSocket];
  await advance(20);
  (tabs[0] as FakeTab).freeze();
  follower.send('old');
  await advance(450); // older than 400 ms when the leader reads it, not yet taken over
  follower.close(); // its goodbye carries it
  (tabs[0] as FakeTab).thaw();
  await advance(20);
  expect(server.received).toEqual(['old']);
  expect(leader.role).toBe('leader');
});

it("the leader's drain is its own (its sends filled its WebSocket's buffer): it is not told to the followers", async () => {
  /** mock-socket's WebSocket with a `bufferedAmount` the test sets (mock-socket keeps none). */
  class Held extends MockWebSocket {
    static made: Held[] = [];
    override bufferedAmount = 0;
    constructor(...args: ConstructorParameters<typeof MockWebSocket>) {
      super(...args);
      Held.made.push(this);
    }
    override send(data: string): void {
      super.send(data);
      this.bufferedAmount += data.length;
    }
  }
  const server = startServer();
  const browser = new FakeBrowser();
  const options = { WebSocket: Held as unknown as WebSocketConstructorLike, highWaterMark: 4 };
  const [leader, follower] = [share(browser.tab(), server, options), share(browser.tab(), server, options)];
  await advance(20);
  expect([leader.role, follower.role, Held.made.length]).toEqual(['leader', 'follower', 1]);
  const heard: string[] = [];
  leader.on('drain', () => heard.push('leader'));
  follower.on('drain', () => heard.push('follower'));
  expect(leader.send('hello')).toBe('sent');
  (Held.made[0] as Held).bufferedAmount = 0;
  await advance(100);
  expect(heard).toEqual(['leader']);
  expect(server.received).toEqual(['hello']);
});
