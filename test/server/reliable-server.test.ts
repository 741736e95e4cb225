import { afterEach, describe, expect, it, vi } from 'vitest';
import type { Session } from '../../src/server/index.js';
import { Cleanup } from '../helpers/wait.js';
import { settle, start } from './harness.js';

const cleanup = new Cleanup();
afterEach(() => cleanup.run());

/** A promise's outcome, without letting it reject unheard. */
function outcome(promise: Promise<void>): { readonly value: 'pending' | 'resolved' | Error } {
  const box: { value: 'pending' | 'resolved' | Error } = { value: 'pending' };
  promise.then(
    () => {
      box.value = 'resolved';
    },
    (error: Error) => {
      box.value = error;
    },
  );
  return box;
}

const isMsg = (f: { rs?: string }) => f.rs === 'msg';

describe('ReliableServer: incoming reliable messages', () => {
  it('delivers each id once, with its session, and acknowledges every copy', async () => {
    const { server, connect } = await start(cleanup);
    const seen: [unknown, string][] = [];
    server.on('message', (data, session) => seen.push([data, session.id]));
    const client = await connect();
    client.hello('s1');
    client.msg('1', { n: 1 });
    client.msg('1', { n: 1 });
    client.msg('2', 'two');
    client.msg('1', { n: 1 });
    await settle(client);
    expect(seen).toEqual([
      [{ n: 1 }, 's1'],
      ['two', 's1'],
    ]);
    expect(client.frames()).toEqual([
      { rs: 'ack', id: '1' },
      { rs: 'ack', id: '1' },
      { rs: 'ack', id: '2' },
      { rs: 'ack', id: '1' },
    ]);
  });

  it('remembers the ids across reconnects of the session, and forgets the oldest past `window`', async () => {
    const { server, connect } = await start(cleanup, { window: 2 });
    const seen: unknown[] = [];
    server.on('message', (data) => seen.push(data));
    const first = await connect();
    first.hello('s1');
    first.msg('1', 'a');
    first.msg('2', 'b');
    await settle(first);
    await first.close();
    const second = await connect();
    second.hello('s1');
    second.msg('2', 'b'); // still in the window: acknowledged, not delivered
    second.msg('3', 'c'); // pushes '1' out
    second.msg('1', 'a'); // out of the window: delivered again
    await settle(second);
    expect(seen).toEqual(['a', 'b', 'c', 'a']);
    expect(second.frames().map((f) => f.id)).toEqual(['2', '3', '1']);
  });

  it('acknowledges only after the listeners ran (what they send goes first)', async () => {
    const { server, connect } = await start(cleanup);
    server.on('message', (data, session) => {
      void server.send(session, `reply to ${String(data)}`).catch(() => {});
    });
    const client = await connect();
    client.hello('s1');
    client.msg('7', 'x');
    await settle(client);
    expect(client.frames().map((f) => f.rs)).toEqual(['msg', 'ack']);
    expect(client.frames()[0]).toMatchObject({ rs: 'msg', data: 'reply to x' });
    expect(client.frames()[1]).toEqual({ rs: 'ack', id: '7' });
  });

  it('contains a listener that throws: reported on `error`, the message still acknowledged', async () => {
    const { server, connect } = await start(cleanup);
    const boom = new Error('boom');
    server.on('message', () => {
      throw boom;
    });
    const errors: Error[] = [];
    server.on('error', (error) => errors.push(error));
    const client = await connect();
    client.hello('s1');
    client.msg('1', 'x');
    await settle(client);
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatchObject({ name: 'ResilientSocketError', code: 'ERR_RS_LISTENER_THREW', cause: boom });
    expect(errors[0]?.message).toContain('A `message` listener of ReliableServer threw: boom');
    expect(client.frames()).toEqual([{ rs: 'ack', id: '1' }]);
  });

  it('with no `error` listener, a throwing listener becomes a process warning, never an exception', async () => {
    const { server, connect } = await start(cleanup);
    const warn = vi.spyOn(process, 'emitWarning').mockImplementation(() => {});
    cleanup.add(warn, (w) => w.mockRestore());
    server.on('session', () => {
      throw new Error('bad session listener');
    });
    const client = await connect();
    client.hello('s1');
    client.msg('1', 'x');
    await settle(client);
    expect(warn).toHaveBeenCalledTimes(1);
    expect(warn.mock.calls[0]?.[0]).toMatchObject({ code: 'ERR_RS_LISTENER_THREW' });
    expect(client.frames()).toEqual([{ rs: 'ack', id: '1' }]);
  });
});

describe('ReliableServer: frames that are not the protocol', () => {
  it('pass through on `plain` as they came, with the session once there was a hello', async () => {
    const { server, connect } = await start(cleanup);
    const plain: [unknown, boolean, string | undefined][] = [];
    server.on('plain', (data, socket, session) => plain.push([data, socket !== undefined, session?.id]));
    const messages: unknown[] = [];
    server.on('message', (data) => messages.push(data));
    const client = await connect();
    client.send('hi');
    client.msg('1', 'before hello'); // the first frame must be the hello: this one passes through
    client.hello('s1');
    client.send('{"rs":"other","id":"2"}');
    client.send('{"rs":"msg","id":2,"data":1}'); // an id that is not a string: not a frame
    client.send(Buffer.from([1, 2, 3]));
    await settle(client);
    expect(messages).toEqual([]);
    expect(plain).toEqual([
      ['hi', true, undefined],
      ['{"rs":"msg","id":"1","data":"before hello"}', true, undefined],
      ['{"rs":"other","id":"2"}', true, 's1'],
      ['{"rs":"msg","id":2,"data":1}', true, 's1'],
      [Buffer.from([1, 2, 3]), true, 's1'],
    ]);
    expect(client.frames()).toEqual([]);
  });
});

describe('ReliableServer: send()', () => {
  it('writes at once to a connected session and resolves on the acknowledgement', async () => {
    const { server, connect } = await start(cleanup);
    const sessions: Session[] = [];
    server.on('session', (s) => sessions.push(s));
    const client = await connect();
    client.hello('s1');
    await settle(client);
    expect(sessions.map((s) => s.id)).toEqual(['s1']);
    const session = server.sessions.get('s1') as Session;
    expect(session).toBe(sessions[0]);
    expect(session.connected).toBe(true);
    const sent = outcome(server.send(session, { hello: 'client' }));
    await client.waitFrames(isMsg);
    const [frame] = client.frames();
    expect(frame).toEqual({ rs: 'msg', id: expect.stringMatching(/^\d+$/), data: { hello: 'client' } });
    expect(session.pending).toBe(1);
    expect(sent.value).toBe('pending');
    client.ack(frame?.id as string);
    await settle(client);
    expect(sent.value).toBe('resolved');
    expect(session.pending).toBe(0);
  });

  it('numbers a session’s messages in sequence, in base 10', async () => {
    const { server, connect } = await start(cleanup);
    const client = await connect();
    client.hello('s1');
    await settle(client);
    for (const n of [1, 2, 3]) void server.send('s1', n).catch(() => {});
    await client.waitFrames(isMsg, 3);
    const ids = client.frames().map((f) => Number(f.id));
    expect(ids).toEqual([ids[0], (ids[0] as number) + 1, (ids[0] as number) + 2]);
  });

  it('keeps what it sends to a session not connected yet, and sends it on its hello, in order', async () => {
    const { server, connect } = await start(cleanup);
    const a = outcome(server.send('later', 'a'));
    const b = outcome(server.send('later', 'b'));
    expect(server.sessions.get('later')).toMatchObject({ connected: false, pending: 2 });
    const client = await connect();
    client.hello('later');
    await client.waitFrames(isMsg, 2);
    expect(client.frames().map((f) => f.data)).toEqual(['a', 'b']);
    for (const f of client.frames()) client.ack(f.id as string);
    await settle(client);
    expect([a.value, b.value]).toEqual(['resolved', 'resolved']);
  });

  it('sends what was not acknowledged again on the next hello, in first-sent order, then the newer', async () => {
    const { server, connect } = await start(cleanup);
    const first = await connect();
    first.hello('s1');
    await settle(first);
    const sends = ['a', 'b', 'c'].map((d) => outcome(server.send('s1', d)));
    await first.waitFrames(isMsg, 3);
    const ids = first.frames().map((f) => f.id as string);
    first.ack(ids[1] as string); // 'b' arrived and was acknowledged
    await settle(first);
    await first.close();
    const d = outcome(server.send('s1', 'd')); // while the client is away
    const second = await connect();
    second.hello('s1');
    await second.waitFrames(isMsg, 3);
    expect(second.frames().map((f) => [f.id, f.data])).toEqual([
      [ids[0], 'a'],
      [ids[2], 'c'],
      [String(Number(ids[2]) + 1), 'd'],
    ]);
    for (const f of second.frames()) second.ack(f.id as string);
    await settle(second);
    expect([...sends, d].map((s) => s.value)).toEqual(['resolved', 'resolved', 'resolved', 'resolved']);
  });

  it('sends a message again after `ackTimeout` on an open connection, and gives up after `maxAttempts`', async () => {
    const { server, clock, connect } = await start(cleanup, { ackTimeout: 1_000, maxAttempts: 3 });
    const client = await connect();
    client.hello('s1');
    await settle(client);
    const sent = outcome(server.send('s1', 'x'));
    await client.waitFrames(isMsg, 1);
    await clock.advance(999);
    await settle(client);
    expect(client.frames()).toHaveLength(1);
    await clock.advance(1);
    await client.waitFrames(isMsg, 2);
    await clock.advance(1_000);
    await client.waitFrames(isMsg, 3);
    const [one, two, three] = client.frames();
    expect(two).toEqual(one);
    expect(three).toEqual(one);
    expect(sent.value).toBe('pending');
    await clock.advance(1_000);
    await settle(client);
    expect(client.frames()).toHaveLength(3); // not a fourth time
    expect(sent.value).toMatchObject({ name: 'ResilientSocketError', code: 'ERR_RS_NOT_ACKNOWLEDGED' });
    expect((sent.value as Error).message).toContain('sent 3 times');
    expect(server.sessions.get('s1')?.pending).toBe(0);
    expect(clock.pending).toBe(0);
  });

  it('counts the sends on the next hello toward `maxAttempts`', async () => {
    const { server, connect } = await start(cleanup, { maxAttempts: 1 });
    const first = await connect();
    first.hello('s1');
    await settle(first);
    const sent = outcome(server.send('s1', 'x'));
    await first.waitFrames(isMsg);
    await first.close();
    const second = await connect();
    second.hello('s1');
    await settle(second);
    expect(second.frames()).toEqual([]);
    expect(sent.value).toMatchObject({ code: 'ERR_RS_NOT_ACKNOWLEDGED' });
  });

  it('rejects past `maxPending` at once, queueing nothing', async () => {
    const { server } = await start(cleanup, { maxPending: 2 });
    void server.send('s1', 1).catch(() => {});
    void server.send('s1', 2).catch(() => {});
    await expect(server.send('s1', 3)).rejects.toMatchObject({ code: 'ERR_RS_BUFFER_OVERFLOW' });
    expect(server.sessions.get('s1')?.pending).toBe(2);
  });

  it('rejects data the codec cannot encode with a TypeError, and a bad session', async () => {
    const { server } = await start(cleanup);
    await expect(server.send('s1', undefined)).rejects.toMatchObject({
      name: 'TypeError',
      code: 'ERR_RS_INVALID_TYPE',
    });
    await expect(server.send(42 as unknown as string, 'x')).rejects.toMatchObject({
      name: 'TypeError',
      code: 'ERR_RS_INVALID_TYPE',
    });
    expect(server.sessions.get('s1')?.pending).toBe(0);
  });

  it('moves a session to the connection that said hello last, resends there, and cuts the old one', async () => {
    const { server, connect } = await start(cleanup);
    const old = await connect();
    old.hello('s1');
    await settle(old);
    const sent = outcome(server.send('s1', 'x'));
    await old.waitFrames(isMsg);
    const oldClosed = new Promise<number>((resolve) => old.ws.once('close', (code) => resolve(code)));
    const fresh = await connect(); // the client reconnected before the server saw the old one go
    fresh.hello('s1');
    await fresh.waitFrames(isMsg);
    expect(fresh.frames()[0]).toEqual(old.frames()[0]);
    expect(await oldClosed).toBe(1006); // cut (terminate), not closed with a handshake
    fresh.ack(fresh.frames()[0]?.id as string);
    await settle(fresh);
    expect(sent.value).toBe('resolved');
    // The old connection going away does not disconnect the session.
    expect(server.sessions.get('s1')?.connected).toBe(true);
    expect(server.sessions.get('s1')?.socket?.readyState).toBe(1);
  });
});

describe('ReliableServer: sessions', () => {
  it('one session per connection: a second hello is a protocol violation (1008), nothing after it is read', async () => {
    const { server, connect } = await start(cleanup);
    const seen: [unknown, string][] = [];
    server.on('message', (data, session) => seen.push([data, session.id]));
    const errors: Error[] = [];
    server.on('error', (error) => errors.push(error));
    const client = await connect();
    const closed = new Promise<[number, string]>((resolve) =>
      client.ws.once('close', (code, reason) => resolve([code, String(reason)])),
    );
    client.hello('s1');
    client.msg('1', 'for s1');
    client.hello('s2');
    client.msg('1', 'for s2'); // never read: the connection ended at the second hello
    expect(await closed).toEqual([1008, 'One hello per connection']);
    expect(seen).toEqual([['for s1', 's1']]);
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatchObject({ code: 'ERR_RS_PROTOCOL_VIOLATION' });
    expect(errors[0]?.message).toContain('a second hello on one connection');
    expect(errors[0]?.message).not.toContain('s2');
    expect(server.sessions.get('s1')?.connected).toBe(false);
    expect(server.sessions.has('s2')).toBe(false);
  });
});

describe('ReliableServer: bounded memory', () => {
  it('forgets a session `sessionTtl` after its client went away; its sends reject', async () => {
    const { server, clock, connect } = await start(cleanup, { sessionTtl: 5_000 });
    const client = await connect();
    client.hello('s1');
    await settle(client);
    const sent = outcome(server.send('s1', 'x'));
    await client.waitFrames(isMsg);
    await client.close();
    await clock.advance(4_999);
    expect(server.sessions.has('s1')).toBe(true);
    await clock.advance(1);
    expect(server.sessions.has('s1')).toBe(false);
    expect(sent.value).toMatchObject({ name: 'ResilientSocketError', code: 'ERR_RS_DELIVERY_STOPPED' });
    expect((sent.value as Error).message).toContain('`sessionTtl`, 5000 ms');
    expect(clock.pending).toBe(0);
  });

  it('a client back within `sessionTtl` keeps its session (no new `session` event)', async () => {
    const { server, clock, connect } = await start(cleanup, { sessionTtl: 5_000 });
    const sessions: string[] = [];
    server.on('session', (s) => sessions.push(s.id));
    const first = await connect();
    first.hello('s1');
    await settle(first);
    await first.close();
    await clock.advance(4_000);
    const second = await connect();
    second.hello('s1');
    await settle(second);
    await clock.advance(10_000);
    expect(server.sessions.get('s1')?.connected).toBe(true);
    expect(sessions).toEqual(['s1']);
  });

  it('past `maxSessions`, refuses a new session, connected or not, and forgets none to make room', async () => {
    const { server, clock, connect } = await start(cleanup, { maxSessions: 2 });
    const a = outcome(server.send('a', 'for a'));
    await clock.advance(10);
    const b = outcome(server.send('b', 'for b'));
    const c = server.send('c', 'for c'); // no room: refused, 'a' kept
    await expect(c).rejects.toMatchObject({ code: 'ERR_RS_BUFFER_OVERFLOW' });
    await expect(c).rejects.toThrow('`maxSessions` (2)');
    expect([...server.sessions.keys()]).toEqual(['a', 'b']);
    expect([a.value, b.value]).toEqual(['pending', 'pending']);

    const errors: Error[] = [];
    server.on('error', (error) => errors.push(error));
    const one = await connect();
    one.hello('a');
    await settle(one);
    await one.close(); // 'a' is disconnected again, still within its `sessionTtl`
    const three = await connect();
    const closed = new Promise<[number, string]>((resolve) =>
      three.ws.once('close', (code, reason) => resolve([code, String(reason)])),
    );
    three.hello('d');
    expect(await closed).toEqual([1013, 'Server full']);
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatchObject({ code: 'ERR_RS_BUFFER_OVERFLOW' });
    expect([...server.sessions.keys()]).toEqual(['a', 'b']);
    expect([a.value, b.value]).toEqual(['pending', 'pending']);
    await expect(server.send('e', 'x')).rejects.toMatchObject({ code: 'ERR_RS_BUFFER_OVERFLOW' });
  });
});

describe('ReliableServer: close()', () => {
  it('settles every pending send, stops every timer and listener, and refuses later sends', async () => {
    const { wss, server, clock, connect } = await start(cleanup, { ackTimeout: 1_000 });
    const before = wss.listenerCount('connection');
    const client = await connect();
    client.hello('s1');
    await settle(client);
    const inFlight = outcome(server.send('s1', 'x'));
    const waiting = outcome(server.send('elsewhere', 'y'));
    await client.waitFrames(isMsg);
    expect(clock.pending).toBe(2); // the acknowledgement timer and the other session's expiry
    server.close();
    server.close(); // idempotent
    await Promise.resolve();
    for (const o of [inFlight, waiting]) {
      expect(o.value).toMatchObject({ code: 'ERR_RS_DELIVERY_STOPPED' });
      expect((o.value as Error).message).toContain('The ReliableServer was closed');
    }
    expect(clock.pending).toBe(0);
    expect(server.sessions.size).toBe(0);
    expect(server.closed).toBe(true);
    expect(wss.listenerCount('connection')).toBe(before - 1);
    const messages: unknown[] = [];
    server.on('message', (data) => messages.push(data));
    client.msg('1', 'after close');
    await settle(client);
    expect(messages).toEqual([]);
    expect(client.frames().filter((f) => f.rs === 'ack')).toEqual([]);
    expect(client.ws.readyState).toBe(1); // the connections are the app's: left open
    await expect(server.send('s1', 'z')).rejects.toMatchObject({ code: 'ERR_RS_CLOSED' });
  });
});

describe('ReliableServer: codec', () => {
  it('reads and writes frames with the codec given', async () => {
    // A protocol of its own: "H <session>", "M <id> <json>", "A <id>".
    const codec = {
      encode: (f: import('../../src/server/index.js').Frame) =>
        f.rs === 'hello' ? `H ${f.session}` : f.rs === 'ack' ? `A ${f.id}` : `M ${f.id} ${JSON.stringify(f.data)}`,
      decode(raw: unknown) {
        if (typeof raw !== 'string') return undefined;
        const [kind, a = '', ...rest] = raw.split(' ');
        if (kind === 'H') return { rs: 'hello' as const, session: a };
        if (kind === 'A') return { rs: 'ack' as const, id: a };
        if (kind === 'M') return { rs: 'msg' as const, id: a, data: JSON.parse(rest.join(' ')) };
        return undefined;
      },
    };
    const { server, connect } = await start(cleanup, { codec });
    const got: unknown[] = [];
    server.on('message', (data) => got.push(data));
    const client = await connect();
    client.send('H s1');
    client.send('M 1 {"a":1}');
    await settle(client);
    expect(got).toEqual([{ a: 1 }]);
    const sent = outcome(server.send('s1', [1, 2]));
    await settle(client);
    expect(client.received[0]).toBe('A 1');
    const m = /^M (\d+) \[1,2\]$/.exec(String(client.received[1]));
    expect(m).not.toBeNull();
    client.send(`A ${m?.[1]}`);
    await settle(client);
    expect(sent.value).toBe('resolved');
  });

  it('reports a codec that throws while decoding, and passes the frame through', async () => {
    const { server, connect } = await start(cleanup, {
      codec: {
        encode: () => '',
        decode: () => {
          throw new Error('cannot read');
        },
      },
    });
    const errors: Error[] = [];
    server.on('error', (e) => errors.push(e));
    const plain: unknown[] = [];
    server.on('plain', (data) => plain.push(data));
    const client = await connect();
    client.send('anything');
    await settle(client);
    expect(plain).toEqual(['anything']);
    expect(errors[0]).toMatchObject({ code: 'ERR_RS_CALLBACK_FAILED' });
    expect(errors[0]?.message).toContain('`codec.decode` failed: cannot read');
  });

  it('reports a codec that decodes to something that is not a frame, and passes the message through', async () => {
    const { server, connect } = await start(cleanup, {
      codec: { encode: () => '', decode: () => ({ rs: 'msg' }) as never },
    });
    const errors: Error[] = [];
    server.on('error', (e) => errors.push(e));
    const plain: unknown[] = [];
    server.on('plain', (data) => plain.push(data));
    const client = await connect();
    client.send('x');
    await settle(client);
    expect(plain).toEqual(['x']);
    expect(errors[0]?.message).toContain('`codec.decode` failed: not a hello, msg or ack');
  });
});
