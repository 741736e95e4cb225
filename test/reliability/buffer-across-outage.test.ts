import { afterEach, describe, expect, it } from 'vitest';
import { constant } from '../../src/backoff/index.js';
import type { Clock } from '../../src/clock.js';
import type { StateChange } from '../../src/core/events.js';
import { bufferPolicy, type ResilientSocketOptions, type SendResult } from '../../src/node.js';
import { ACCEPT } from '../faults/index.js';
import { Cleanup, sleep, waitFor } from '../helpers/wait.js';
import { closeAndCheckLeftovers, createRig, type Rig, thrownBy } from './leftovers.js';

// Case 13: the outbound buffer across a real outage (the server is stopped, clients cut without a
// close frame, then restarted on the same port). Every message the user sent is accounted for
// exactly once: delivered to the server after recovery, in order, XOR reported by a `drop` event.
// Every test ends with close() and checks what is left behind (./leftovers.ts).

const cleanup = new Cleanup();
afterEach(() => cleanup.run());

const RETRY_DELAY = 30;

/** Opens, proves the link with one message, then stops the server and waits for the client to notice. */
async function openThenOutage(options: ResilientSocketOptions) {
  const rig = await createRig(cleanup, ACCEPT);
  const { socket, rec } = rig.socket(undefined, { backoff: constant({ delay: RETRY_DELAY }), ...options });
  await waitFor(() => socket.state === 'open', 2_000, 'first open');
  expect(socket.send('before')).toBe('sent');
  await waitFor(() => rig.server.received.length === 1, 1_000, 'the first message');

  await rig.server.stop();
  await waitFor(() => socket.state !== 'open', 1_000, 'the client to notice the outage');
  expect(rec.closes).toEqual([{ code: 1006, reason: '', wasClean: false, willReconnect: true }]);
  return { rig, socket, rec };
}

/** Restarts the server and waits for the reconnect and for `count` messages in total to arrive. */
async function recover(rig: Rig, socket: { state: string }, count: number) {
  await rig.server.start();
  await waitFor(() => socket.state === 'open', 2_000, 'the reconnect');
  await waitFor(() => rig.server.received.length >= count, 3_000, `${count} messages at the server`, {
    describe: () => ({ received: rig.server.received.length }),
  });
  await sleep(50); // nothing more may arrive
}

const messages = (n: number, prefix = 'm') => Array.from({ length: n }, (_, i) => `${prefix}${i}`);
const tally = (results: SendResult[]) => ({
  sent: results.filter((r) => r === 'sent').length,
  buffered: results.filter((r) => r === 'buffered').length,
  dropped: results.filter((r) => r === 'dropped').length,
});

describe('10,000 messages buffered across an outage', () => {
  it('are delivered exactly once and in order after recovery', async () => {
    const { rig, socket, rec } = await openThenOutage({ buffer: { maxMessages: 20_000, maxBytes: Infinity } });
    const expected = messages(10_000);
    const results = expected.map((m) => socket.send(m));
    expect(tally(results)).toEqual({ sent: 0, buffered: 10_000, dropped: 0 });
    expect(socket.bufferedCount).toBe(10_000);

    await sleep(100); // a few refused attempts against the stopped server
    expect(socket.state).not.toBe('open');
    expect(rec.errors.length).toBeGreaterThan(0);
    expect(rec.errors.every((e) => e.code === 'ERR_RS_CONNECTION_FAILED')).toBe(true);

    await recover(rig, socket, 10_001);
    expect(rig.server.received).toEqual(['before', ...expected]);
    expect(socket.bufferedCount).toBe(0);
    expect(rec.drops).toEqual([]);
    expect(socket.stats.dropped).toBe(0);
    expect(socket.stats.messagesOut).toBe(10_001);
    expect(rec.opens.at(-1)?.reconnected).toBe(true);

    await closeAndCheckLeftovers(rig, socket, rec);
    expect(rec.drops).toEqual([]);
  });
});

describe('overflow policies over a real outage (maxMessages 100, 1,000 sends)', () => {
  it.each([
    // drop-oldest: every send is buffered, each one past the 100th evicts the oldest (reported).
    { overflow: 'drop-oldest' as const, tally: { sent: 0, buffered: 1_000, dropped: 0 }, kept: [900, 1_000] },
    // drop-newest: the first 100 are buffered, the 900 others refused (returned 'dropped', reported).
    { overflow: 'drop-newest' as const, tally: { sent: 0, buffered: 100, dropped: 900 }, kept: [0, 100] },
  ])(
    '$overflow: every message is delivered after recovery XOR reported dropped, each exactly once, in order',
    async ({ overflow, tally: expectedTally, kept }) => {
      const { rig, socket, rec } = await openThenOutage({
        buffer: { maxMessages: 100 },
        bufferPolicy: bufferPolicy({ overflow }),
      });
      const all = messages(1_000);
      const results = all.map((m) => socket.send(m));
      expect(tally(results)).toEqual(expectedTally);
      expect(socket.bufferedCount).toBe(100);

      await recover(rig, socket, 101);
      const delivered = rig.server.received.slice(1);
      const dropped = rec.drops.flatMap((d) => d.messages as string[]);
      expect(rec.drops.every((d) => d.reason === 'overflow')).toBe(true);

      // Exactly once: the two sets partition the messages…
      const deliveredSet = new Set(delivered);
      const droppedSet = new Set(dropped);
      expect(delivered.length + dropped.length).toBe(all.length);
      expect(deliveredSet.size).toBe(delivered.length);
      expect(droppedSet.size).toBe(dropped.length);
      expect(all.every((m) => deliveredSet.has(m) !== droppedSet.has(m))).toBe(true);
      // …each in send order…
      expect(delivered).toEqual(all.filter((m) => deliveredSet.has(m)));
      expect(dropped).toEqual(all.filter((m) => droppedSet.has(m)));
      // …and what send() returned adds up: buffered − evicted later = delivered; refused are dropped.
      const { buffered, dropped: refused } = tally(results);
      const evicted = all.filter((m, i) => results[i] === 'buffered' && droppedSet.has(m)).length;
      expect(buffered - evicted).toBe(delivered.length);
      expect(refused + evicted).toBe(dropped.length);
      expect(all.filter((_, i) => results[i] === 'dropped').every((m) => droppedSet.has(m))).toBe(true);
      // The policy decides which ones.
      expect(delivered).toEqual(all.slice(kept[0], kept[1]));
      expect(socket.stats.dropped).toBe(900);

      await closeAndCheckLeftovers(rig, socket, rec);
      expect(rec.drops.flatMap((d) => d.messages)).toHaveLength(900); // nothing left to drop at close()
    },
  );

  it("'error': the 101st send throws ERR_RS_BUFFER_OVERFLOW, nothing of the first 100 is lost", async () => {
    const { rig, socket, rec } = await openThenOutage({
      buffer: { maxMessages: 100 },
      bufferPolicy: bufferPolicy({ overflow: 'error' }),
    });
    const first = messages(100);
    expect(tally(first.map((m) => socket.send(m)))).toEqual({ sent: 0, buffered: 100, dropped: 0 });

    const error = thrownBy(() => socket.send('m100'));
    expect(error).toMatchObject({ name: 'ResilientSocketError', code: 'ERR_RS_BUFFER_OVERFLOW' });
    expect(thrownBy(() => socket.send('m101'))).toMatchObject({ code: 'ERR_RS_BUFFER_OVERFLOW' });
    expect(socket.bufferedCount).toBe(100);
    expect(rec.drops).toEqual([]); // a refused message stays the caller's: not reported as dropped

    await recover(rig, socket, 101);
    expect(rig.server.received).toEqual(['before', ...first]);
    expect(rec.drops).toEqual([]);
    expect(socket.stats.dropped).toBe(0);

    await closeAndCheckLeftovers(rig, socket, rec);
  });
});

describe('ttl over a real outage', () => {
  it("messages older than ttl by the reconnect are reported 'expired' and not delivered; younger ones are", async () => {
    const { rig, socket, rec } = await openThenOutage({ bufferPolicy: bufferPolicy({ ttl: 250 }) });
    const old = messages(5, 'old');
    const young = messages(5, 'young');
    for (const m of old) expect(socket.send(m)).toBe('buffered');
    await sleep(320);
    for (const m of young) expect(socket.send(m)).toBe('buffered');

    await recover(rig, socket, 1 + young.length);
    expect(rig.server.received).toEqual(['before', ...young]);
    expect(rec.drops.map((d) => d.reason)).not.toContain('overflow');
    expect(rec.drops.every((d) => d.reason === 'expired')).toBe(true);
    expect(rec.drops.flatMap((d) => d.messages)).toEqual(old);
    expect(socket.stats.dropped).toBe(old.length);

    await closeAndCheckLeftovers(rig, socket, rec);
  });

  /** A clock whose `now()` can jump ahead (a machine waking from sleep); timers stay real. */
  function jumpingClock() {
    let offset = 0;
    const clock: Clock = {
      setTimeout: (callback, ms) => setTimeout(callback, ms),
      clearTimeout: (handle) => clearTimeout(handle as ReturnType<typeof setTimeout>),
      now: () => Date.now() + offset,
    };
    return { clock, jump: (ms: number) => (offset += ms) };
  }

  it("messages found expired at the reconnect itself (wall clock jumped, ttl timer not due yet) are reported 'expired'", async () => {
    const { clock, jump } = jumpingClock();
    const { rig, socket, rec } = await openThenOutage({ bufferPolicy: bufferPolicy({ ttl: 2_000 }), clock });
    const stale = messages(5, 'stale');
    for (const m of stale) expect(socket.send(m)).toBe('buffered');
    jump(10_000); // the ttl timer (2 s of real time) will not have fired by the reconnect

    await rig.server.start();
    await waitFor(() => socket.state === 'open', 2_000, 'the reconnect');
    await sleep(50);
    expect(rig.server.received).toEqual(['before']);
    expect(rec.drops).toEqual([{ reason: 'expired', messages: stale }]);
    expect(socket.stats.dropped).toBe(stale.length);

    await closeAndCheckLeftovers(rig, socket, rec);
  });

  // Guards: messages that expired while the socket was down are reported (`drop`, 'expired') even
  // when a `state` listener calls close() or reconnect() as the connection opens: taken out of the
  // queue, they are in neither the queue nor close()'s 'closed' drop, so they must be reported
  // before the state change, never lost silently (docs/guide/sending.md).
  it.each(['close', 'reconnect'] as const)(
    "messages expired at the reconnect are still reported when a state listener calls %s() on 'open'",
    async (call) => {
      const { clock, jump } = jumpingClock();
      const { rig, socket, rec } = await openThenOutage({ bufferPolicy: bufferPolicy({ ttl: 2_000 }), clock });
      const stale = messages(5, 'stale');
      for (const m of stale) expect(socket.send(m)).toBe('buffered');
      jump(10_000);
      let done = false;
      socket.on('state', (change: StateChange) => {
        if (done || change.current !== 'open') return;
        done = true;
        socket[call]();
      });

      await rig.server.start();
      await waitFor(() => done, 2_000, 'the reconnect');
      await sleep(100);
      const reported = rec.drops.flatMap((d) => d.messages);
      expect(rig.server.received).toEqual(['before']);
      expect(reported, 'every stale message reported exactly once').toEqual(stale);
      expect(socket.stats.dropped).toBe(stale.length);
    },
  );
});

describe('close() during the outage', () => {
  it("reports every queued message as dropped ('closed'), and no attempt follows once the server is back", async () => {
    const { rig, socket, rec } = await openThenOutage({ buffer: { maxMessages: 100 } });
    const queued = messages(50);
    for (const m of queued) socket.send(m);
    await closeAndCheckLeftovers(rig, socket, rec);
    expect(rec.drops).toEqual([{ reason: 'closed', messages: queued }]);
    await rig.server.start();
    await sleep(100);
    expect(rig.server.upgrades).toHaveLength(1);
    expect(rig.server.received).toEqual(['before']);
  });
});
