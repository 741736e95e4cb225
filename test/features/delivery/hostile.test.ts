/**
 * What `sendReliable()` sends, what it costs in `bufferedAmount`, and what a hostile peer can make
 * the client keep: a message is encoded once, at the call (later changes to the object, or a
 * cycle, change nothing, and `resent` counts only what was written); the bytes of the outbox not
 * yet written count in `bufferedAmount`, `writable` and `drain`; a peer's id over the protocol's
 * length is refused. mock-socket peers under fake timers (see ./helpers.ts).
 */
import { WebSocket as MockWebSocket } from 'mock-socket';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { MAX_ID_LENGTH } from '../../../src/features/delivery/codec.js';
import { delivery } from '../../../src/modular-node.js';
import type { WebSocketConstructorLike } from '../../../src/transports/websocket-like.js';
import { errorMessage } from '../../helpers/mode.js';
import { advance, cleanup, createSocket, MOCK_DELAY, record } from '../../resilient-socket/helpers.js';
import { outcome, startPeer } from './helpers.js';

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(cleanup);

describe('a message is sent as it was when sendReliable() was called', () => {
  it('changes to the object afterwards reach neither the first send nor a resend', async () => {
    const peer = startPeer();
    peer.acking = false;
    const socket = createSocket(peer.server.url, { delivery: delivery({ ackTimeout: 1_000 }) });
    await advance(MOCK_DELAY);
    const order = { sku: 'A-12', qty: 1 };
    const sent = outcome(socket.sendReliable(order));
    order.qty = 999;
    await advance(MOCK_DELAY);
    await advance(1_000 + MOCK_DELAY); // the resend
    expect(peer.log().filter((line) => line.startsWith('msg'))).toEqual([
      'msg:1:{"sku":"A-12","qty":1}',
      'msg:1:{"sku":"A-12","qty":1}',
    ]);
    peer.ack('1');
    await advance(0);
    expect(sent.value).toBe('resolved');
  });

  it('an object that becomes a cycle afterwards is still sent, again, and its promise settles', async () => {
    const peer = startPeer();
    peer.acking = false;
    const socket = createSocket(peer.server.url, { delivery: delivery({ ackTimeout: 1_000 }) });
    await advance(MOCK_DELAY);
    const node: Record<string, unknown> = { name: 'a' };
    const sent = outcome(socket.sendReliable(node));
    node.self = node; // JSON.stringify(node) throws from now on
    await advance(MOCK_DELAY + 1_000 + MOCK_DELAY);
    expect(peer.log().filter((line) => line.startsWith('msg'))).toEqual(['msg:1:{"name":"a"}', 'msg:1:{"name":"a"}']);
    expect(socket.stats.delivery?.resent).toBe(1);
    peer.ack('1');
    await advance(0);
    expect(sent.value).toBe('resolved');
  });

  it('while the store loads, what is sent is the copy taken at the call', async () => {
    const peer = startPeer();
    let load: (entries: [string, unknown][]) => void = () => undefined;
    const store = {
      persistent: true,
      load: () => new Promise<[string, unknown][]>((resolve) => (load = resolve)),
      put: () => Promise.resolve(),
      delete: () => Promise.resolve(),
    };
    const socket = createSocket(peer.server.url, { delivery: delivery({ store }) });
    const data = { n: 1 };
    const sent = outcome(socket.sendReliable(data));
    data.n = 2;
    load([]);
    await advance(MOCK_DELAY * 2);
    expect(peer.log().filter((line) => line.startsWith('msg'))).toEqual(['msg:1:{"n":1}']);
    await advance(0);
    expect(sent.value).toBe('resolved');
  });

  it('`resent` counts sends that were written, not attempts on a socket that refused them', async () => {
    const peer = startPeer();
    peer.acking = false;
    let refusing = false;
    class Refusing extends MockWebSocket {
      override send(data: Parameters<MockWebSocket['send']>[0]): void {
        if (refusing) throw new Error('the socket is going down');
        super.send(data);
      }
    }
    const socket = createSocket(peer.server.url, {
      delivery: delivery({ ackTimeout: 1_000 }),
      WebSocket: Refusing as unknown as WebSocketConstructorLike,
    });
    socket.on('drop', () => undefined); // what is still pending at the end is dropped by the cleanup's close()
    await advance(MOCK_DELAY);
    void outcome(socket.sendReliable('x'));
    await advance(MOCK_DELAY);
    refusing = true;
    await advance(3_000); // three resends due, none written
    expect(peer.log().filter((line) => line.startsWith('msg'))).toEqual(['msg:1:"x"']);
    expect(socket.stats.delivery?.resent).toBe(0);
    refusing = false;
    await advance(1_000 + MOCK_DELAY);
    expect(socket.stats.delivery?.resent).toBe(1);
  });
});

describe('bufferedAmount counts the reliable messages waiting to be written', () => {
  it('while disconnected: their bytes, above highWaterMark writable is false, drain once they are written', async () => {
    const peer = startPeer();
    peer.acking = false;
    const socket = createSocket(peer.server.url, { delivery: delivery(), highWaterMark: 100, autoConnect: false });
    socket.on('drop', () => undefined); // what is still pending at the end is dropped by the cleanup's close()
    const events = record(socket, ['drain']);
    const payload = 'x'.repeat(60);
    void outcome(socket.sendReliable(payload));
    const one = socket.bufferedAmount;
    expect(one).toBe(`{"rs":"msg","id":"1","data":"${payload}"}`.length);
    expect(socket.writable).toBe(true);
    void outcome(socket.sendReliable(payload));
    expect(socket.bufferedAmount).toBe(2 * one);
    expect(socket.writable).toBe(false);
    socket.open();
    await advance(MOCK_DELAY * 2);
    expect(socket.state).toBe('open');
    expect(peer.log().filter((line) => line.startsWith('msg'))).toHaveLength(2);
    expect(socket.bufferedAmount).toBe(0); // written (mock-socket buffers nothing)
    await advance(20);
    expect(socket.writable).toBe(true);
    expect(events.of('drain')).toHaveLength(1);
  });

  it('a connection that ends puts every unacknowledged message back in the count', async () => {
    const peer = startPeer();
    peer.acking = false;
    const socket = createSocket(peer.server.url, { delivery: delivery(), maxDelay: 1_000 });
    socket.on('drop', () => undefined); // what is still pending at the end is dropped by the cleanup's close()
    await advance(MOCK_DELAY);
    void outcome(socket.sendReliable('a'));
    void outcome(socket.sendReliable('b'));
    await advance(MOCK_DELAY);
    expect(socket.bufferedAmount).toBe(0);
    peer.server.closeLast(1012);
    await advance(MOCK_DELAY);
    expect(socket.state).toBe('reconnecting');
    expect(socket.bufferedAmount).toBe('{"rs":"msg","id":"1","data":"a"}'.length * 2);
    peer.ack('1'); // nobody to hear it: still counted
    expect(socket.bufferedAmount).toBeGreaterThan(0);
  });
});

describe('a hostile peer', () => {
  it('an id longer than the protocol allows is refused: not delivered, not acknowledged, the connection cut', async () => {
    const peer = startPeer();
    const socket = createSocket(peer.server.url, { delivery: delivery(), maxDelay: 1_000 });
    const events = record(socket, ['message', 'error', 'close']);
    await advance(MOCK_DELAY);
    peer.send('7'.repeat(MAX_ID_LENGTH), 'at the limit');
    peer.send('7'.repeat(MAX_ID_LENGTH + 1), 'over it');
    await advance(MOCK_DELAY);
    expect(events.of('message')).toEqual(['at the limit']);
    expect(peer.log().filter((line) => line.startsWith('ack'))).toEqual([`ack:${'7'.repeat(MAX_ID_LENGTH)}`]);
    const [error] = events.of('error') as { code: string; message: string }[];
    expect(error?.code).toBe('ERR_RS_PROTOCOL_VIOLATION');
    expect(error?.message).toBe(
      errorMessage(
        'ERR_RS_PROTOCOL_VIOLATION',
        `The peer sent an msg whose id has ${MAX_ID_LENGTH + 1} characters (at most ${MAX_ID_LENGTH})`,
      ),
    );
    expect(events.of('close')).toMatchObject([{ code: 1006, reason: 'protocol violation' }]);
  });
});
