import { WebSocket as MockWebSocket } from 'mock-socket';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { constant } from '../../../src/backoff/constant.js';
import type { Data } from '../../../src/data.js';
import { BaseSocket, delivery, handshake } from '../../../src/modular-node.js';
import type { WebSocketConstructorLike } from '../../../src/transports/websocket-like.js';
import { errorMessage, expectInputError, rethrow } from '../../helpers/mode.js';
import {
  advance,
  cleanup,
  createSocket,
  expectRsError,
  MOCK_DELAY,
  record,
  WebSocketImpl,
} from '../../resilient-socket/helpers.js';
import { outcome, startPeer } from './helpers.js';

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(cleanup);

const retry = constant({ delay: 10 });

describe('sending reliably', () => {
  it('hello first on every connection, then the unacknowledged in first-sent order, then newer ones', async () => {
    const peer = startPeer();
    peer.acking = false;
    const socket = createSocket(peer.server.url, { delivery: delivery(), backoff: retry });
    const a = outcome(socket.sendReliable({ n: 1 }));
    socket.send('plain');
    const b = outcome(socket.sendReliable('two'));
    await advance(MOCK_DELAY * 2);
    const [hello] = peer.log();
    expect(hello).toMatch(/^hello:.+/);
    expect(peer.log()).toEqual([hello, 'plain:plain', 'msg:1:{"n":1}', 'msg:2:"two"']);
    peer.frames.length = 0;
    peer.server.closeLast(1012);
    await advance(MOCK_DELAY + 10 + MOCK_DELAY);
    expect(socket.state).toBe('open');
    const c = outcome(socket.sendReliable(3));
    await advance(MOCK_DELAY);
    // The same session; the two unacknowledged again, in order; then the newer one.
    expect(peer.log()).toEqual([hello, 'msg:1:{"n":1}', 'msg:2:"two"', 'msg:3:3']);
    expect(socket.stats.delivery).toEqual({ pending: 3, acked: 0, resent: 2, duplicates: 0 });
    expect(socket.stats.messagesOut).toBe(8); // every frame written counts: the hellos and the resent ones too
    const log = record(socket, ['acked']);
    peer.ack('2');
    peer.ack('1');
    await advance(0);
    expect([a.value, b.value, c.value]).toEqual(['resolved', 'resolved', 'pending']);
    expect(log.of('acked')).toEqual([
      { id: '2', data: 'two' },
      { id: '1', data: { n: 1 } },
    ]);
    peer.ack('3');
    peer.ack('3'); // a second ack of the same id changes nothing
    await advance(0);
    expect(c.value).toBe('resolved');
    expect(socket.stats.delivery).toEqual({ pending: 0, acked: 3, resent: 2, duplicates: 0 });
  });

  it('sends again after ackTimeout on an open connection, until acknowledged', async () => {
    const peer = startPeer();
    peer.acking = false;
    const socket = createSocket(peer.server.url, { delivery: delivery({ ackTimeout: 1_000 }) });
    await advance(MOCK_DELAY);
    const sent = outcome(socket.sendReliable('x'));
    await advance(999);
    expect(peer.log().filter((l) => l.startsWith('msg'))).toEqual(['msg:1:"x"']);
    await advance(1 + MOCK_DELAY);
    expect(peer.log().filter((l) => l.startsWith('msg'))).toEqual(['msg:1:"x"', 'msg:1:"x"']);
    await advance(1_000);
    expect(socket.stats.delivery?.resent).toBe(2);
    peer.ack('1');
    await advance(5_000);
    expect(sent.value).toBe('resolved');
    expect(peer.log().filter((l) => l.startsWith('msg'))).toHaveLength(3);
  });

  it('maxAttempts: rejects with ERR_RS_NOT_ACKNOWLEDGED and drops it as unacknowledged', async () => {
    const peer = startPeer();
    peer.acking = false;
    const socket = createSocket(peer.server.url, { delivery: delivery({ ackTimeout: 100, maxAttempts: 2 }) });
    const log = record(socket, ['drop']);
    await advance(MOCK_DELAY);
    const sent = outcome(socket.sendReliable({ lost: true }));
    const kept = outcome(socket.sendReliable('acked in time'));
    peer.ack('2');
    await advance(100);
    expect(sent.value).toBe('pending');
    await advance(100);
    const error = expectRsError(sent.value, 'ERR_RS_NOT_ACKNOWLEDGED');
    expect(error.message).toBe(
      errorMessage('ERR_RS_NOT_ACKNOWLEDGED', 'No acknowledgement after 2 sends (`delivery.maxAttempts`)'),
    );
    expect(kept.value).toBe('resolved');
    expect(log.of('drop')).toEqual([{ reason: 'unacknowledged', messages: [{ lost: true }] }]);
    expect(socket.stats.delivery).toMatchObject({ pending: 0, acked: 1, resent: 1 });
  });

  it('maxAttempts spent on a connection that ended: given up at the next connection, not sent again', async () => {
    const peer = startPeer();
    peer.acking = false;
    const socket = createSocket(peer.server.url, { delivery: delivery({ maxAttempts: 1 }), backoff: retry });
    const log = record(socket, ['drop']);
    await advance(MOCK_DELAY);
    const sent = outcome(socket.sendReliable('once'));
    await advance(MOCK_DELAY);
    peer.server.closeLast(1012);
    await advance(MOCK_DELAY + 10 + MOCK_DELAY * 2);
    expectRsError(sent.value, 'ERR_RS_NOT_ACKNOWLEDGED');
    expect(peer.log().filter((l) => l.startsWith('msg'))).toEqual(['msg:1:"once"']);
    expect(log.of('drop')).toEqual([{ reason: 'unacknowledged', messages: ['once'] }]);
  });

  it('close(): pending promises reject with ERR_RS_DELIVERY_STOPPED, reported by drop (closed); later sends too', async () => {
    const peer = startPeer();
    peer.acking = false;
    const socket = createSocket(peer.server.url, { delivery: delivery() });
    const log = record(socket, ['drop']);
    await advance(MOCK_DELAY);
    const sent = outcome(socket.sendReliable('a'));
    const queued = outcome(socket.sendReliable('b'));
    socket.close();
    await advance(0);
    for (const box of [sent, queued]) {
      expect(expectRsError(box.value, 'ERR_RS_DELIVERY_STOPPED').message).toBe(
        errorMessage(
          'ERR_RS_DELIVERY_STOPPED',
          'The socket was closed before the acknowledgement, and the store keeps nothing across sessions',
        ),
      );
    }
    const late = outcome(socket.sendReliable('c'));
    await advance(0);
    expectRsError(late.value, 'ERR_RS_DELIVERY_STOPPED');
    expect(log.of('drop')).toEqual([
      { reason: 'closed', messages: ['a', 'b'] },
      { reason: 'closed', messages: ['c'] },
    ]);
    expect(socket.stats.delivery?.pending).toBe(0);
  });

  it('a give-up rejects what is pending (memory store): never a promise that hangs', async () => {
    const peer = startPeer();
    const socket = createSocket(peer.server.url, { delivery: delivery(), maxRetries: 0 });
    const log = record(socket, ['drop', 'giveup']);
    peer.server.stop();
    const sent = outcome(socket.sendReliable('never'));
    await advance(MOCK_DELAY * 3);
    expect(socket.state).toBe('closed');
    expect(expectRsError(sent.value, 'ERR_RS_DELIVERY_STOPPED').message).toBe(
      errorMessage(
        'ERR_RS_DELIVERY_STOPPED',
        'The socket gave up before the acknowledgement, and the store keeps nothing across sessions',
      ),
    );
    expect(log.names()).toEqual(['giveup', 'drop']);
  });

  it('maxPending: past it sendReliable rejects at once with ERR_RS_BUFFER_OVERFLOW, nothing kept', async () => {
    const peer = startPeer();
    const socket = createSocket(peer.server.url, { delivery: delivery({ maxPending: 2 }) });
    const kept = [outcome(socket.sendReliable(1)), outcome(socket.sendReliable(2))];
    const over = outcome(socket.sendReliable(3));
    await advance(0);
    expectRsError(over.value, 'ERR_RS_BUFFER_OVERFLOW');
    expect(socket.stats.delivery?.pending).toBe(2);
    await advance(MOCK_DELAY * 3);
    expect(kept.map((k) => k.value)).toEqual(['resolved', 'resolved']);
    expect(peer.log().filter((l) => l.startsWith('msg'))).toEqual(['msg:1:1', 'msg:2:2']);
  });

  it('data without a JSON form is a TypeError naming `data`; nothing is queued', async () => {
    const peer = startPeer();
    const socket = createSocket(peer.server.url, { delivery: delivery() });
    const bad = outcome(socket.sendReliable(undefined));
    await advance(MOCK_DELAY);
    expectInputError(rethrow(bad.value), TypeError, 'ERR_RS_INVALID_TYPE', 'data', /cannot encode `data`/);
    expect(socket.stats.delivery?.pending).toBe(0);
  });

  it('without the feature, sendReliable() is a TypeError naming delivery()', () => {
    const socket = createSocket('ws://localhost:1', { autoConnect: false });
    expectInputError(
      () => socket.sendReliable('x'),
      TypeError,
      'ERR_RS_NEEDS_FEATURE',
      'delivery()',
      /This needs the delivery\(\) feature/,
    );
  });
});

describe('listeners that throw are contained', () => {
  it('an acked or message listener that throws: reported, the promise still resolves, the ack still goes', async () => {
    const peer = startPeer();
    const socket = createSocket(peer.server.url, { delivery: delivery() });
    const errors: string[] = [];
    socket.on('error', (error) => errors.push(error.code));
    socket.on('acked', () => {
      throw new Error('acked listener');
    });
    socket.on('message', () => {
      throw new Error('message listener');
    });
    const sent = outcome(socket.sendReliable('x'));
    await advance(MOCK_DELAY * 3);
    peer.send('1', 'in');
    await advance(MOCK_DELAY);
    expect(sent.value).toBe('resolved');
    expect(errors).toEqual(['ERR_RS_LISTENER_THREW', 'ERR_RS_LISTENER_THREW']);
    expect(peer.log().filter((l) => l.startsWith('ack'))).toEqual(['ack:1']);
  });
});

describe('receiving reliably', () => {
  it('a msg reaches listeners once as its data, then is acked; a duplicate is acked again, not delivered', async () => {
    const peer = startPeer();
    const sent: Data[] = [];
    class Recording extends MockWebSocket {
      override send(data: Data): void {
        sent.push(data);
        super.send(data as never);
      }
    }
    const socket = createSocket(peer.server.url, {
      delivery: delivery(),
      WebSocket: Recording as unknown as WebSocketConstructorLike,
    });
    const order: string[] = [];
    socket.on('message', (data) =>
      order.push(
        `message:${JSON.stringify(data)} acks so far:${sent.filter((s) => String(s).includes('"ack"')).length}`,
      ),
    );
    await advance(MOCK_DELAY);
    peer.send('1', { hi: 1 });
    peer.send('2', 'two');
    peer.send('1', { hi: 1 });
    peer.client().send('plain text');
    peer.client().send('{"rs":"other"}');
    await advance(MOCK_DELAY);
    expect(order).toEqual([
      'message:{"hi":1} acks so far:0',
      'message:"two" acks so far:1',
      'message:"plain text" acks so far:3',
      'message:"{\\"rs\\":\\"other\\"}" acks so far:3',
    ]);
    expect(peer.log().filter((l) => l.startsWith('ack'))).toEqual(['ack:1', 'ack:2', 'ack:1']);
    expect(socket.stats.delivery).toMatchObject({ duplicates: 1 });
    expect(socket.stats.messagesIn).toBe(5);
  });

  it('the window is bounded: an id older than `window` ids is delivered again', async () => {
    const peer = startPeer();
    const socket = createSocket(peer.server.url, { delivery: delivery({ window: 2 }) });
    const got: unknown[] = [];
    socket.on('message', (data) => got.push(data));
    await advance(MOCK_DELAY);
    for (const id of ['1', '2', '2', '3', '1']) peer.send(id, Number(id));
    expect(got).toEqual([1, 2, 3, 1]);
    expect(socket.stats.delivery?.duplicates).toBe(1);
  });

  it('a msg that arrives while a later gate (a handshake) holds waits for the open', async () => {
    const peer = startPeer();
    let pass = (): void => undefined;
    const socket = createSocket(peer.server.url, {
      delivery: delivery(),
      handshake: handshake(
        () =>
          new Promise<void>((resolve) => {
            pass = resolve;
          }),
      ),
    });
    const order: string[] = [];
    socket.on('open', () => order.push('open'));
    socket.on('message', (data) => order.push(String(data)));
    await advance(MOCK_DELAY);
    peer.send('1', 'early');
    expect(order).toEqual([]);
    pass();
    await advance(MOCK_DELAY);
    expect(order).toEqual(['open', 'early']);
    expect(peer.log().filter((l) => l.startsWith('ack'))).toEqual(['ack:1']);
  });

  it('feeds async iterators (the deliver hook) with the data', async () => {
    const peer = startPeer();
    const socket = createSocket(peer.server.url, { delivery: delivery() });
    const iterator = socket[Symbol.asyncIterator]();
    await advance(MOCK_DELAY);
    peer.send('1', { via: 'iterator' });
    await expect(iterator.next()).resolves.toEqual({ value: { via: 'iterator' }, done: false });
  });
});

describe('the modular feature', () => {
  it('BaseSocket with delivery() sends reliably; a user codec that throws is contained', async () => {
    const peer = startPeer();
    const codec = {
      encode: (frame: unknown) => JSON.stringify(frame),
      decode: (raw: unknown) => {
        if (raw === 'boom') throw new Error('bad frame');
        return typeof raw === 'string' && raw.startsWith('{"rs"') ? JSON.parse(raw) : undefined;
      },
    };
    const socket = new BaseSocket(peer.server.url, { WebSocket: WebSocketImpl, features: [delivery({ codec })] });
    const errors: unknown[] = [];
    const messages: unknown[] = [];
    socket.on('error', (error) => errors.push(error));
    socket.on('message', (data) => messages.push(data));
    const sent = outcome(socket.sendReliable([1, 2]));
    await advance(MOCK_DELAY * 3);
    expect(sent.value).toBe('resolved');
    peer.client().send('boom');
    expect(messages).toEqual(['boom']); // not a frame: it passes through
    expect(expectRsError(errors[0], 'ERR_RS_CALLBACK_FAILED').message).toBe(
      errorMessage('ERR_RS_CALLBACK_FAILED', '`delivery.codec.decode` threw: bad frame'),
    );
    socket.close();
  });
});

describe('with a heartbeat', () => {
  it('the protocol frames it consumes are signs of life: a connection watched for silence that hears only acks stays open', async () => {
    const peer = startPeer();
    // No ping on this socket and no `message`: the heartbeat watches for silence (1.5 s here).
    const socket = createSocket(peer.server.url, {
      delivery: delivery(),
      heartbeat: { interval: 1_000, timeout: 500 },
      backoff: retry,
    });
    await advance(MOCK_DELAY * 2);
    expect(socket.state).toBe('open');
    const log = record(socket, ['close']);
    for (let n = 0; n < 5; n++) {
      const sent = outcome(socket.sendReliable(n)); // the peer answers with an ack, nothing else
      await advance(1_000);
      expect(sent.value).toBe('resolved');
    }
    expect(log.of('close')).toEqual([]);
    expect(socket.state).toBe('open');
    await advance(1_500); // then silence: the heartbeat finds the connection dead
    expect(log.of('close')[0]).toMatchObject({ code: 1006, reason: 'heartbeat timeout' });
  });
});
