/**
 * One client cannot make the server forget another's session: a full table (`maxSessions`, or
 * `maxBytes`) refuses the newcomer (close 1013, `ERR_RS_BUFFER_OVERFLOW`); no session is ever
 * evicted while inside its `sessionTtl`.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { sessionBytes } from '../../src/server/budget.js';
import { Cleanup, waitFor } from '../helpers/wait.js';
import { type RawClient, settle, start } from './harness.js';

const cleanup = new Cleanup();
afterEach(() => cleanup.run());

/** The code the connection closes with (bounded: 2 s). */
async function closeCode(closed: { code?: number }): Promise<number> {
  await waitFor(() => closed.code !== undefined, 2_000, 'the connection to close');
  return closed.code as number;
}

/** Records the code `client`'s connection closes with. */
function watchClose(client: RawClient): { code?: number } {
  const closed: { code?: number } = {};
  client.ws.once('close', (code) => {
    closed.code = code;
  });
  return closed;
}

describe('ReliableServer: a full server refuses newcomers, never evicts', () => {
  it('hellos for fresh sessions cannot push out a briefly disconnected one', async () => {
    const { server, connect } = await start(cleanup, { maxSessions: 3 });
    const processed: unknown[] = [];
    server.on('message', (data) => processed.push(data));
    const errors: { code?: string }[] = [];
    server.on('error', (error) => errors.push(error));

    // A legitimate client: its message is processed, but the ack is lost with the connection.
    const legit = await connect();
    legit.hello('legit');
    legit.msg('1', 'order');
    await settle(legit);
    await legit.close();
    let settled: 'resolved' | Error | undefined;
    server.send('legit', 'receipt').then(
      () => {
        settled = 'resolved';
      },
      (error: Error) => {
        settled = error;
      },
    );

    // One connection tries maxSessions + 1 fresh sessions: the second hello ends it.
    const attacker = await connect();
    const attackerClosed = watchClose(attacker);
    for (let i = 0; i <= 3; i++) attacker.hello(`fresh-${i}`);
    expect(await closeCode(attackerClosed)).toBe(1008);

    // More connections, one fresh session each, until the table is full: then refused with 1013.
    const outcomes: (number | 'kept')[] = [];
    for (let i = 10; i < 14; i++) {
      const c = await connect();
      const closed = watchClose(c);
      c.hello(`fresh-${i}`);
      await waitFor(() => closed.code !== undefined || server.sessions.has(`fresh-${i}`), 2_000, 'an answer');
      outcomes.push(closed.code ?? 'kept');
    }
    expect(outcomes).toEqual(['kept', 1013, 1013, 1013]);
    expect(errors.filter((e) => e.code === 'ERR_RS_BUFFER_OVERFLOW')).toHaveLength(3);
    expect([...server.sessions.keys()]).toEqual(['legit', 'fresh-0', 'fresh-10']);
    expect(settled).toBeUndefined(); // still pending

    // The legitimate client comes back: its session is there, its window too.
    const back = await connect();
    back.hello('legit');
    back.msg('1', 'order'); // sent again: its acknowledgement was lost
    await back.waitFrames((f) => f.rs === 'msg');
    await settle(back);
    expect(processed).toEqual(['order']); // not a second time
    expect(back.frames().find((f) => f.rs === 'msg')?.data).toBe('receipt');
    back.ack(back.frames().find((f) => f.rs === 'msg')?.id as string);
    await settle(back);
    expect(settled).toBe('resolved');
  });

  it('a new session past `maxBytes` is refused like one past `maxSessions`', async () => {
    const room = sessionBytes('a') + sessionBytes('b');
    const { server, connect } = await start(cleanup, { maxBytes: room, maxSessionBytes: 0 });
    const errors: Error[] = [];
    server.on('error', (error) => errors.push(error));
    for (const id of ['a', 'b']) {
      const c = await connect();
      c.hello(id);
      await settle(c);
    }
    expect(server.bytes).toBe(room);
    const third = await connect();
    const closed = watchClose(third);
    third.hello('c');
    expect(await closeCode(closed)).toBe(1013);
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatchObject({ code: 'ERR_RS_BUFFER_OVERFLOW' });
    expect(errors[0]?.message).toContain('`maxBytes`');
    expect([...server.sessions.keys()]).toEqual(['a', 'b']);
    await expect(server.send('d', 'x')).rejects.toMatchObject({ code: 'ERR_RS_BUFFER_OVERFLOW' });
  });

  it('room comes back when a session expires', async () => {
    const { server, clock, connect } = await start(cleanup, { maxSessions: 1, sessionTtl: 1_000 });
    const first = await connect();
    first.hello('a');
    await settle(first);
    await first.close();
    await expect(server.send('b', 'x')).rejects.toMatchObject({ code: 'ERR_RS_BUFFER_OVERFLOW' });
    await clock.advance(1_000);
    expect(server.sessions.size).toBe(0);
    expect(server.bytes).toBe(0);
    const second = await connect();
    second.hello('b');
    await settle(second);
    expect([...server.sessions.keys()]).toEqual(['b']);
  });
});
