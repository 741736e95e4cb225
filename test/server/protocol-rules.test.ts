/**
 * The rules a client must keep (docs/guide/protocol.md): ids and session ids of at most
 * MAX_ID_LENGTH characters, one hello per connection. A frame that breaks one is not read: the
 * connection is closed with 1008 and `error` says which rule, never the id.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { MAX_ID_LENGTH } from '../../src/server/codec.js';
import { Cleanup, waitFor } from '../helpers/wait.js';
import { type RawClient, settle, start } from './harness.js';

const cleanup = new Cleanup();
afterEach(() => cleanup.run());

/** The code and reason the client's connection closes with (bounded: 2 s). */
function closing(client: RawClient): () => Promise<[number, string]> {
  let result: [number, string] | undefined;
  client.ws.once('close', (code, reason) => {
    result = [code, String(reason)];
  });
  return async () => {
    await waitFor(() => result !== undefined, 2_000, 'the connection to close');
    return result as [number, string];
  };
}

const long = (c: string) => c.repeat(MAX_ID_LENGTH + 1);
const longest = (c: string) => c.repeat(MAX_ID_LENGTH);

describe('ReliableServer: ids longer than MAX_ID_LENGTH', () => {
  it('MAX_ID_LENGTH is the protocol’s 128', () => {
    expect(MAX_ID_LENGTH).toBe(128);
  });

  it('accepts ids and session ids of exactly MAX_ID_LENGTH characters', async () => {
    const { server, connect } = await start(cleanup);
    const seen: unknown[] = [];
    server.on('message', (data) => seen.push(data));
    const client = await connect();
    client.hello(longest('s'));
    client.msg(longest('i'), 'x');
    await settle(client);
    expect(seen).toEqual(['x']);
    expect(client.frames()).toEqual([{ rs: 'ack', id: longest('i') }]);
    expect(server.sessions.get(longest('s'))?.connected).toBe(true);
  });

  it.each([
    ['msg', (c: RawClient) => c.msg(long('i'), 'x'), 'an id longer than 128 characters', 'Id too long'],
    ['ack', (c: RawClient) => c.ack(long('i')), 'an id longer than 128 characters', 'Id too long'],
  ])(
    'refuses a %s with a longer id: not read, closed with 1008, told on `error`',
    async (_kind, sendIt, rule, reason) => {
      const { server, connect } = await start(cleanup);
      const seen: unknown[] = [];
      server.on('message', (data) => seen.push(data));
      const plain: unknown[] = [];
      server.on('plain', (data) => plain.push(data));
      const errors: Error[] = [];
      server.on('error', (error) => errors.push(error));
      const client = await connect();
      const closed = closing(client);
      client.hello('s1');
      await settle(client);
      sendIt(client);
      expect(await closed()).toEqual([1008, reason]);
      expect(seen).toEqual([]);
      expect(plain).toEqual([]);
      expect(client.frames()).toEqual([]); // no acknowledgement
      expect(errors).toHaveLength(1);
      expect(errors[0]).toMatchObject({ name: 'ResilientSocketError', code: 'ERR_RS_PROTOCOL_VIOLATION' });
      expect(errors[0]?.message).toContain(rule);
      expect(errors[0]?.message).not.toContain('iiii'); // never the id itself
      expect(server.sessions.get('s1')?.connected).toBe(false); // kept for `sessionTtl`, as after any disconnection
    },
  );

  it('refuses a hello with a longer session id: no session, closed with 1008', async () => {
    const { server, connect } = await start(cleanup);
    const sessions: string[] = [];
    server.on('session', (s) => sessions.push(s.id));
    const errors: Error[] = [];
    server.on('error', (error) => errors.push(error));
    const client = await connect();
    const closed = closing(client);
    client.hello(long('s'));
    client.msg('1', 'x');
    expect(await closed()).toEqual([1008, 'Session id too long']);
    expect(sessions).toEqual([]);
    expect(server.sessions.size).toBe(0);
    expect(server.bytes).toBe(0);
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatchObject({ code: 'ERR_RS_PROTOCOL_VIOLATION' });
    expect(errors[0]?.message).toContain('a session id longer than 128 characters');
    expect(errors[0]?.message).not.toContain('ssss');
  });

  it('refuses a send() to a session id no client can name, with a RangeError that does not echo it', async () => {
    const { server } = await start(cleanup);
    const sent = server.send(long('s'), 'x');
    await expect(sent).rejects.toMatchObject({ name: 'RangeError', code: 'ERR_RS_INVALID_VALUE' });
    await expect(sent).rejects.toThrow('at most 128 characters');
    await expect(sent).rejects.not.toThrow('ssss');
    expect(server.sessions.size).toBe(0);
  });

  it('a msg before the hello is not read as a frame, whatever its id: it passes through', async () => {
    const { server, connect } = await start(cleanup);
    const plain: unknown[] = [];
    server.on('plain', (data) => plain.push(data));
    const client = await connect();
    client.msg(long('i'), 'x');
    await settle(client);
    expect(plain).toHaveLength(1);
    expect(client.ws.readyState).toBe(1);
  });
});

describe('ReliableServer: one session per connection', () => {
  it('a second hello, even for the same session, ends the connection with 1008 and resends nothing', async () => {
    const { server, connect } = await start(cleanup);
    const errors: Error[] = [];
    server.on('error', (error) => errors.push(error));
    const first = await connect();
    first.hello('s1');
    await settle(first);
    await first.close();
    void server.send('s1', 'a').catch(() => {});
    void server.send('s1', 'b').catch(() => {});
    const client = await connect();
    const closed = closing(client);
    for (let i = 0; i < 30; i++) client.hello('s1');
    expect(await closed()).toEqual([1008, 'One hello per connection']);
    // The pending messages went once, on the first hello: never once per hello.
    expect(client.frames().map((f) => f.data)).toEqual(['a', 'b']);
    expect(errors.map((e) => (e as { code?: string }).code)).toEqual(['ERR_RS_PROTOCOL_VIOLATION']);
    expect(server.sessions.get('s1')).toMatchObject({ connected: false, pending: 2 });
  });

  it('a hello for a session another open connection holds takes it over; the old connection is cut', async () => {
    const { server, wss, connect } = await start(cleanup);
    const messages: [unknown, unknown][] = [];
    server.on('message', (data, session) => messages.push([data, session.socket]));
    const old = await connect();
    const oldClosed = closing(old);
    old.hello('s1');
    await settle(old);
    const oldServerSide = server.sessions.get('s1')?.socket;
    const fresh = await connect();
    fresh.hello('s1');
    await settle(fresh);
    expect((await oldClosed())[0]).toBe(1006); // terminated: no closing handshake
    expect(oldServerSide?.readyState).toBe(3);
    expect(server.sessions.get('s1')?.socket).not.toBe(oldServerSide);
    expect(server.sessions.get('s1')?.connected).toBe(true);
    fresh.msg('1', 'on the new connection');
    await settle(fresh);
    expect(messages).toEqual([['on the new connection', [...wss.clients][0]]]);
    expect(wss.clients.size).toBe(1);
  });
});
