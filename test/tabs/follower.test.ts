/**
 * A follower's side of `SharedSocket` (src/tabs/follower.ts): what it handed to the leader and
 * gets back (the leader's connection ended before confirming it) returns to its own queue counted
 * as the buffer limits count everything, in UTF-8 bytes (a Blob by its size).
 */
import { expect, it } from 'vitest';
import type { DropInfo } from '../../src/core/events.js';
import { SharedSocket } from '../../src/tabs/shared-socket.js';
import { FakeBrowser } from '../helpers/fake-tabs.js';
import { advance, MOCK_DELAY, startServer, WebSocketImpl } from '../resilient-socket/helpers.js';
import { useSharedSockets } from './helpers.js';

const share = useSharedSockets();

/** A leader and a follower (buffer of `maxBytes`); the follower hands `data` over, the connection ends before the leader confirms it. */
async function handedBack(data: string | Blob, maxBytes: number) {
  const server = startServer();
  const browser = new FakeBrowser();
  const [leaderTab, followerTab] = [browser.tab(), browser.tab()];
  share(leaderTab, server, { buffer: { maxBytes } });
  const follower = share(followerTab, server, { buffer: { maxBytes } });
  await advance(20);
  leaderTab.freeze(); // it reads the message only when it thaws
  expect(follower.send(data)).toBe('sent');
  server.stop(); // the connection ends: the follower takes the message back into its queue
  await advance(MOCK_DELAY + 1);
  expect(follower.state).not.toBe('open');
  expect(follower.bufferedCount).toBe(1);
  const drops: DropInfo[] = [];
  follower.on('drop', (info) => drops.push(info));
  leaderTab.thaw();
  return { follower, drops };
}

it('a message taken back counts its UTF-8 bytes against maxBytes', async () => {
  const text = 'éééééé'; // 6 characters, 12 bytes
  const { follower, drops } = await handedBack(text, 12);
  expect(follower.send('abc')).toBe('buffered'); // 12 + 3 > 12: the oldest makes room
  expect(drops).toEqual([{ reason: 'overflow', messages: [text] }]);
  expect(follower.bufferedCount).toBe(1);
});

it('a Blob taken back counts its size against maxBytes', async () => {
  const blob = new Blob([new Uint8Array(10)]);
  const { follower, drops } = await handedBack(blob, 12);
  expect(follower.send('abc')).toBe('buffered');
  expect(drops).toEqual([{ reason: 'overflow', messages: [blob] }]);
});

it('the `binaryType` option sets how this tab receives binary messages (blob or arraybuffer only)', () => {
  const tab = new FakeBrowser().tab();
  const base = {
    WebSocket: WebSocketImpl,
    locks: tab.locks as never,
    BroadcastChannel: tab.BroadcastChannel as never,
    autoConnect: false,
  };
  const socket = new SharedSocket('ws://127.0.0.1:1', { ...base, binaryType: 'arraybuffer' });
  expect(socket.binaryType).toBe('arraybuffer');
  socket.close();
  expect(() => new SharedSocket('ws://127.0.0.1:1', { ...base, binaryType: 'nodebuffer' })).toThrow(RangeError);
  expect(() => new SharedSocket('ws://127.0.0.1:1', { ...base, binaryType: 'nodebuffer' })).toThrow(
    /`binaryType`.*"nodebuffer"/,
  );
});

it('ignores what it cannot read on its channel (null, or another shape), and carries on', async () => {
  const server = startServer();
  const browser = new FakeBrowser();
  const tab = browser.tab();
  const socket = share(tab, server);
  await advance(20);
  const stranger = new (browser.tab().BroadcastChannel)(`resilient-socket/2  ${server.url}`);
  stranger.postMessage(null);
  stranger.postMessage({ type: 'event', from: 'x', term: 1 });
  stranger.postMessage('hello');
  await advance(20);
  stranger.close();
  expect(socket.state).toBe('open');
  server.broadcast('still');
  const got: unknown[] = [];
  socket.on('message', (data) => got.push(data));
  server.broadcast('here');
  await advance(5);
  expect(got).toEqual(['here']);
});
