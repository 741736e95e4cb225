/**
 * Memory bounded in bytes: what each session keeps (window ids, outbox frames) against
 * `maxSessionBytes`, what all keep against `maxBytes`, counted as `budget.ts` says.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { ID_SLOT, idBytes, MESSAGE_BYTES, messageBytes, sessionBytes } from '../../src/server/budget.js';
import { Cleanup } from '../helpers/wait.js';
import { fakeServer } from './fake.js';

const cleanup = new Cleanup();
afterEach(() => cleanup.run());

/** An id of 128 characters ending with `n`. */
const id = (n: number) => String(n).padStart(128, 'i');

describe('ReliableServer budgets: counting', () => {
  it('counts a session, its window and its outbox, and gives every byte back', async () => {
    const { server, clock, connect } = fakeServer(cleanup, { sessionTtl: 1_000 });
    const socket = connect();
    socket.receive({ rs: 'hello', session: 's1' });
    expect(server.bytes).toBe(sessionBytes('s1'));
    socket.receive({ rs: 'msg', id: 'a', data: 1 }); // the newest id: in the room the session keeps
    expect(server.bytes).toBe(sessionBytes('s1'));
    socket.receive({ rs: 'msg', id: 'bb', data: 1 });
    expect(server.bytes).toBe(sessionBytes('s1') + idBytes('a'));
    const sent = server.send('s1', 'x');
    const frame = JSON.stringify(socket.sent.at(-1));
    const msgId = socket.sent.at(-1)?.id as string;
    expect(server.bytes).toBe(sessionBytes('s1') + idBytes('a') + messageBytes(msgId, frame));
    expect(messageBytes(msgId, frame)).toBe(MESSAGE_BYTES + 2 * msgId.length + 2 * frame.length);
    socket.receive({ rs: 'ack', id: msgId });
    await sent;
    expect(server.bytes).toBe(sessionBytes('s1') + idBytes('a'));
    socket.close();
    await clock.advance(1_000);
    expect(server.sessions.size).toBe(0);
    expect(server.bytes).toBe(0);
  });

  it('close() gives every byte back', () => {
    const { server, connect } = fakeServer(cleanup);
    const socket = connect();
    socket.receive({ rs: 'hello', session: 's1' });
    for (let n = 0; n < 5; n++) socket.receive({ rs: 'msg', id: id(n), data: n });
    void server.send('s1', 'x').catch(() => {});
    void server.send('other', 'y').catch(() => {});
    server.close();
    expect(server.bytes).toBe(0);
  });
});

describe('ReliableServer budgets: the window', () => {
  it('past `maxSessionBytes`, the oldest ids leave the window (a copy of one is delivered again)', () => {
    // Two counted ids of 128 characters fit; the newest sits in the session's own room.
    const { server, connect } = fakeServer(cleanup, { maxSessionBytes: 2 * idBytes(id(0)) });
    const seen: unknown[] = [];
    server.on('message', (data) => seen.push(data));
    const socket = connect();
    socket.receive({ rs: 'hello', session: 's1' });
    for (let n = 0; n < 4; n++) socket.receive({ rs: 'msg', id: id(n), data: n });
    expect(server.bytes).toBe(sessionBytes('s1') + 2 * idBytes(id(0)));
    socket.receive({ rs: 'msg', id: id(3), data: 3 }); // in the window: acknowledged only
    socket.receive({ rs: 'msg', id: id(1), data: 1 }); // in the window
    socket.receive({ rs: 'msg', id: id(0), data: 0 }); // left it: delivered again
    expect(seen).toEqual([0, 1, 2, 3, 0]);
    expect(socket.sent.map((f) => f.rs)).toEqual(Array(7).fill('ack'));
  });

  it('with `maxSessionBytes` 0 the window still keeps the newest id', () => {
    const { server, connect } = fakeServer(cleanup, { maxSessionBytes: 0 });
    const seen: unknown[] = [];
    server.on('message', (data) => seen.push(data));
    const socket = connect();
    socket.receive({ rs: 'hello', session: 's1' });
    socket.receive({ rs: 'msg', id: '1', data: 1 });
    socket.receive({ rs: 'msg', id: '1', data: 1 });
    socket.receive({ rs: 'msg', id: '2', data: 2 });
    socket.receive({ rs: 'msg', id: '1', data: 1 });
    expect(seen).toEqual([1, 2, 1]);
    expect(server.bytes).toBe(sessionBytes('s1'));
  });

  it('past `maxBytes`, a window no longer grows: each new id replaces its oldest', () => {
    // Room for two sessions and three counted ids in all.
    const maxBytes = 2 * sessionBytes('s1') + 3 * idBytes(id(0));
    const { server, connect } = fakeServer(cleanup, { maxBytes, maxSessionBytes: maxBytes });
    const seen: [string, unknown][] = [];
    server.on('message', (data, session) => seen.push([session.id, data]));
    const a = connect();
    const b = connect();
    a.receive({ rs: 'hello', session: 's1' });
    b.receive({ rs: 'hello', session: 's2' });
    for (let n = 0; n < 10; n++) a.receive({ rs: 'msg', id: id(n), data: n });
    expect(server.bytes).toBe(maxBytes);
    for (let n = 0; n < 10; n++) b.receive({ rs: 'msg', id: id(n), data: n });
    expect(server.bytes).toBe(maxBytes); // s2 keeps its newest id only, in the room its session keeps
    seen.length = 0;
    for (const n of [9, 8, 7, 6, 5]) a.receive({ rs: 'msg', id: id(n), data: n });
    for (const n of [9, 8]) b.receive({ rs: 'msg', id: id(n), data: n });
    expect(seen).toEqual([
      ['s1', 5],
      ['s2', 8],
    ]);
    expect(server.bytes).toBeLessThanOrEqual(maxBytes);
    expect(ID_SLOT).toBe(idBytes(id(0)));
  });
});

describe('ReliableServer budgets: send()', () => {
  it('rejects past `maxSessionBytes` at once, queueing nothing', async () => {
    const { server, connect } = fakeServer(cleanup, { maxSessionBytes: 2_000 });
    const socket = connect();
    socket.receive({ rs: 'hello', session: 's1' });
    void server.send('s1', 'x'.repeat(100)).catch(() => {}); // about 0.85 kB
    const big = server.send('s1', 'y'.repeat(1_000));
    await expect(big).rejects.toMatchObject({ name: 'ResilientSocketError', code: 'ERR_RS_BUFFER_OVERFLOW' });
    await expect(big).rejects.toThrow('`maxSessionBytes` (2000 bytes)');
    expect(server.sessions.get('s1')?.pending).toBe(1);
    expect(socket.sent).toHaveLength(1);
  });

  it('counts what the connection has not written yet against `maxSessionBytes`', async () => {
    const { server, connect } = fakeServer(cleanup, { maxSessionBytes: 100_000 });
    const socket = connect();
    socket.receive({ rs: 'hello', session: 's1' });
    void server.send('s1', 'x').catch(() => {});
    socket.bufferedAmount = 100_000;
    await expect(server.send('s1', 'y')).rejects.toMatchObject({ code: 'ERR_RS_BUFFER_OVERFLOW' });
    socket.bufferedAmount = 0;
    void server.send('s1', 'z').catch(() => {});
    expect(socket.sent.map((f) => f.data)).toEqual(['x', 'z']);
  });

  it('rejects past `maxBytes`, the sessions together', async () => {
    const maxBytes = sessionBytes('a') + sessionBytes('b') + 1_000;
    const { server } = fakeServer(cleanup, { maxBytes, maxSessionBytes: 1_000 });
    void server.send('a', 'x').catch(() => {});
    void server.send('b', 'y').catch(() => {});
    const third = server.send('b', 'z');
    await expect(third).rejects.toMatchObject({ code: 'ERR_RS_BUFFER_OVERFLOW' });
    await expect(third).rejects.toThrow('`maxBytes`');
    expect(server.bytes).toBeLessThanOrEqual(maxBytes);
  });

  it('does not write an acknowledgement while the connection holds more than `maxSessionBytes`', () => {
    const { server, connect } = fakeServer(cleanup, { maxSessionBytes: 1_000 });
    const seen: unknown[] = [];
    server.on('message', (data) => seen.push(data));
    const socket = connect();
    socket.receive({ rs: 'hello', session: 's1' });
    socket.bufferedAmount = 1_001; // a client that sends without reading
    socket.receive({ rs: 'msg', id: '1', data: 1 });
    expect(seen).toEqual([1]);
    expect(socket.sent).toEqual([]);
    socket.bufferedAmount = 0;
    socket.receive({ rs: 'msg', id: '1', data: 1 }); // sent again: acknowledged, not delivered again
    expect(seen).toEqual([1]);
    expect(socket.sent).toEqual([{ rs: 'ack', id: '1' }]);
  });
});
