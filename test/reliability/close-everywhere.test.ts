import type { Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { constant } from '../../src/backoff/index.js';
import type { CloseEventInfo, ResilientSocketEvents, StateChange } from '../../src/core/events.js';
import type { ResilientSocketOptions, UrlProvider } from '../../src/node.js';
import { bufferPolicy, CLOSE_TIMEOUT, handshake, type ResilientSocket } from '../../src/node.js';
import { ACCEPT, type BehaviourSetting, ECHO } from '../faults/index.js';
import type { SocketRecorder } from '../helpers/socket-recorder.js';
import { Cleanup, sleep, waitFor } from '../helpers/wait.js';
import { createRig, expectNothingLeft, named, type Rig } from './leftovers.js';

// Case 11: close() in every state, twice in a row, and from inside every event handler. Every
// time: the socket ends `closed`, no timer and no listener on an underlying socket is left, the
// server sees the client go and no further connection, and open()/reconnect() throw ERR_RS_CLOSED
// (all checked by expectNothingLeft, ./leftovers.ts).

const cleanup = new Cleanup();
afterEach(() => cleanup.run());

const RETRY_DELAY = 30;
/** After close(), the server must see no new connection for this long. */
const QUIET = { quietMs: 200 };

interface Ctx {
  readonly rig: Rig;
  readonly socket: ResilientSocket;
  readonly rec: SocketRecorder;
}

/** Handshake hooks started, by the case that needs its client to be past the transport's open. */
let handshakesStarted = 0;

const isOpen = ({ socket }: Ctx) => waitFor(() => socket.state === 'open', 2_000, 'open');

/** Names of the events recorded from `index` on (what the user saw after close()). */
const namesFrom = (rec: SocketRecorder, index: number) => rec.log.slice(index).map((e) => e.name);
const statesFrom = (rec: SocketRecorder, index: number) =>
  rec.log
    .slice(index)
    .filter((e) => e.name === 'state')
    .map((e) => (e.payload as StateChange).current);

describe('close() in every state, twice in a row', () => {
  interface StateCase {
    readonly name: string;
    readonly behaviour?: BehaviourSetting;
    readonly options?: ResilientSocketOptions;
    readonly url?: (rig: Rig) => UrlProvider;
    /** Brings the socket to the state (none: close() synchronously, right after new). */
    readonly reach?: (ctx: Ctx) => Promise<unknown>;
    readonly state: string;
    /** The states the user sees after close(). */
    readonly statesAfter: string[];
    /** The `close` events the user sees after close(). */
    readonly closes: unknown[];
    /** What the server sees of the client's close, if it had a connection. */
    readonly serverSees?: { code: number; reason?: string };
    readonly code?: [number, string];
  }

  const cases: StateCase[] = [
    {
      name: 'idle (autoConnect: false)',
      options: { autoConnect: false },
      reach: () => sleep(20),
      state: 'idle',
      statesAfter: ['closed'],
      closes: [],
    },
    {
      name: 'connecting, before the URL is resolved (close() right after new)',
      state: 'connecting',
      statesAfter: ['closed'],
      closes: [],
    },
    {
      name: 'connecting, URL provider still pending (it resolves after close())',
      url: (rig) => () => sleep(100).then(() => rig.server.url),
      reach: () => sleep(30),
      state: 'connecting',
      statesAfter: ['closed'],
      closes: [],
    },
    {
      name: 'connecting, upgrade request sent and stalled by the server',
      behaviour: { kind: 'stall' },
      reach: ({ rig }) => waitFor(() => rig.server.upgrades.length === 1, 1_000, 'the stalled upgrade'),
      state: 'connecting',
      statesAfter: ['closed'],
      closes: [{ code: 1000, reason: '', wasClean: false, willReconnect: false }],
    },
    {
      // The transport is open: close() sends a close frame (it used to cut the connection: 1006).
      name: 'connecting, transport open but the handshake hook still running',
      options: {
        handshake: handshake((c) => {
          handshakesStarted++;
          return c.nextMessage((d) => d === 'never').then(() => undefined);
        }),
      },
      // The client's transport is open once its hook runs (the server counts the connection a
      // moment before the client reads the 101 response).
      reach: async () => {
        await waitFor(() => handshakesStarted > 0, 1_000, 'the transport to open and the hook to start');
        handshakesStarted = 0;
      },
      state: 'connecting',
      statesAfter: ['closing', 'closed'],
      closes: [{ code: 1000, reason: '', wasClean: true, willReconnect: false }],
      serverSees: { code: 1000, reason: '' },
    },
    {
      name: 'open',
      reach: isOpen,
      state: 'open',
      statesAfter: ['closing', 'closed'],
      closes: [{ code: 1000, reason: '', wasClean: true, willReconnect: false }],
      serverSees: { code: 1000, reason: '' },
    },
    {
      name: 'open, with close(4000, "bye")',
      reach: isOpen,
      state: 'open',
      statesAfter: ['closing', 'closed'],
      closes: [{ code: 4000, reason: 'bye', wasClean: true, willReconnect: false }],
      serverSees: { code: 4000, reason: 'bye' },
      code: [4000, 'bye'],
    },
    {
      name: 'reconnecting (waiting 2 s after the server went away)',
      options: { backoff: constant({ delay: 2_000 }) },
      reach: async (ctx) => {
        await isOpen(ctx);
        await ctx.rig.server.closeAll(1001, 'deploy');
        await waitFor(() => ctx.socket.state === 'reconnecting', 1_000, 'reconnecting');
      },
      state: 'reconnecting',
      statesAfter: ['closed'],
      closes: [],
    },
    {
      name: 'closed after a give-up (fatal close 1008)',
      reach: async (ctx) => {
        await isOpen(ctx);
        await ctx.rig.server.closeAll(1008, 'policy');
        await waitFor(() => ctx.rec.count('giveup') === 1, 1_000, 'giveup');
      },
      state: 'closed',
      statesAfter: [],
      closes: [],
    },
    {
      name: 'closed after a give-up (maxRetries 0, upgrade refused with 500)',
      behaviour: { kind: 'refuse', status: 500 },
      options: { maxRetries: 0 },
      reach: ({ rec }) => waitFor(() => rec.count('giveup') === 1, 1_000, 'giveup'),
      state: 'closed',
      statesAfter: [],
      closes: [],
    },
  ];

  it.each(named(cases))('%s', async (_name, c) => {
    const rig = await createRig(cleanup, c.behaviour ?? ECHO);
    const { socket, rec } = rig.socket(c.url?.(rig), { backoff: constant({ delay: RETRY_DELAY }), ...c.options });
    const ctx = { rig, socket, rec };
    if (c.reach) await c.reach(ctx);
    expect(socket.state).toBe(c.state);
    const queued = socket.state === 'closed' ? 'dropped' : socket.state === 'open' ? 'sent' : 'buffered';
    expect(socket.send('last words')).toBe(queued);
    if (!c.reach) expect(rig.instances, 'no ws socket yet').toHaveLength(0);

    const from = rec.log.length;
    const disconnectsBefore = rig.server.disconnects.length;
    if (c.code) socket.close(...c.code);
    else socket.close();
    socket.close(); // twice in a row: a no-op
    expect(['closing', 'closed']).toContain(socket.state);

    await expectNothingLeft(rig, socket, rec, QUIET);
    expect(statesFrom(rec, from)).toEqual(c.statesAfter);
    expect(rec.closes.slice(rec.closes.length - c.closes.length)).toEqual(c.closes);
    expect(namesFrom(rec, from).filter((n) => n === 'close')).toHaveLength(c.closes.length);
    // While `closing`, messages the server sent before it saw our close frame are still delivered
    // (here: the echo of 'last words'); nothing else but state, close and drop follows close().
    const allowed = ['state', 'close', 'drop', ...(c.statesAfter.includes('closing') ? ['message'] : [])];
    expect(namesFrom(rec, from).filter((n) => !allowed.includes(n))).toEqual([]);
    if (queued === 'buffered') {
      expect(rec.drops.at(-1)).toEqual({ reason: 'closed', messages: ['last words'] });
    }
    if (c.serverSees) {
      expect(rig.server.disconnects.slice(disconnectsBefore)).toEqual([expect.objectContaining(c.serverSees)]);
    }
    // A third close() (and one with arguments) after the fact changes nothing.
    socket.close(4001, 'again');
    expect(socket.state).toBe('closed');
    expect(statesFrom(rec, from)).toEqual(c.statesAfter);
  });
});

describe('close() while closing', () => {
  it('the server never answers the close frame: closing for CLOSE_TIMEOUT (3 s), then cut; close() again is a no-op', async () => {
    const rig = await createRig(cleanup);
    const { socket, rec } = rig.socket(undefined, { backoff: constant({ delay: RETRY_DELAY }) });
    await waitFor(() => socket.state === 'open', 2_000, 'open');
    // The server stops reading: our close frame is never answered.
    const serverSide = (rig.server.clients[0] as unknown as { _socket: Socket })._socket;
    serverSide.pause();

    const started = performance.now();
    socket.close(4000, 'bye');
    expect(socket.state).toBe('closing');
    expect(socket.send('too late')).toBe('dropped');
    socket.close();
    socket.close(4002, 'again');
    expect(rec.states).toEqual(['open', 'closing']);
    await sleep(500);
    expect(socket.state, 'still waiting for the close frame').toBe('closing');

    await waitFor(() => socket.state === 'closed', 4_000, 'closed after the close timeout');
    const waited = performance.now() - started;
    expect(waited).toBeGreaterThanOrEqual(CLOSE_TIMEOUT - 10);
    expect(waited).toBeLessThan(CLOSE_TIMEOUT + 500);
    expect(rec.closes).toEqual([{ code: 1006, reason: 'close timeout', wasClean: false, willReconnect: false }]);
    expect(rec.states).toEqual(['open', 'closing', 'closed']);
    expect(rec.drops).toEqual([{ reason: 'closed', messages: ['too late'] }]);

    serverSide.resume(); // the server reads our close frame at last and lets go
    await expectNothingLeft(rig, socket, rec, QUIET);
    expect(rig.server.disconnects.at(-1)).toMatchObject({ code: 4000, reason: 'bye' });
  });
});

describe('close() from inside every event handler', () => {
  type EventName = keyof ResilientSocketEvents;

  interface HandlerCase {
    readonly event: EventName;
    readonly name: string;
    /** Which emission to close in (default: the first). */
    readonly when?: (payload: unknown) => boolean;
    readonly behaviour?: BehaviourSetting;
    readonly options?: ResilientSocketOptions;
    readonly url?: UrlProvider;
    /** Stops the server before the socket exists (and restarts it after close()). */
    readonly serverDown?: boolean;
    /** Makes the event happen. */
    readonly trigger?: (ctx: Ctx) => Promise<void> | void;
    /** Events that may still follow the close() (besides state, close, drop). */
    readonly mayFollow?: EventName[];
    /** The state seen right after close() inside the handler. @default 'closing' or 'closed' */
    readonly stateInHandler?: string;
    readonly check?: (ctx: Ctx) => void;
  }

  const state = (current: string) => (p: unknown) => (p as StateChange).current === current;
  const openThen = (action: (ctx: Ctx) => Promise<void> | void) => async (ctx: Ctx) => {
    await isOpen(ctx);
    await action(ctx);
  };

  const cases: HandlerCase[] = [
    {
      event: 'state',
      name: '→ connecting (open() with autoConnect: false)',
      when: state('connecting'),
      options: { autoConnect: false },
      trigger: ({ socket }) => socket.open(),
      check: ({ rig, rec }) => {
        expect(rec.count('connecting')).toBe(0);
        expect(rig.instances).toHaveLength(0);
      },
    },
    { event: 'state', name: '→ open', when: state('open') },
    {
      event: 'state',
      name: '→ reconnecting (server closed with 1001)',
      when: state('reconnecting'),
      trigger: openThen(({ rig }) => rig.server.closeAll(1001)),
      check: ({ rec }) => expect(rec.count('reconnecting')).toBe(0),
    },
    {
      event: 'state',
      name: '→ closed (give-up after 1008)',
      when: state('closed'),
      trigger: openThen(({ rig }) => rig.server.closeAll(1008)),
      // The state changes first; why it gave up (the error) and the close follow. No giveup: the
      // listener's close() ended the socket.
      mayFollow: ['error'],
      check: ({ rec }) => {
        expect(rec.errors.map((e) => e.code)).toEqual(['ERR_RS_FATAL_CLOSE']);
        expect(rec.count('giveup')).toBe(0);
      },
    },
    {
      event: 'connecting',
      name: '(before the ws socket is created)',
      check: ({ rig }) => {
        expect(rig.instances).toHaveLength(0);
        expect(rig.server.upgrades).toHaveLength(0);
      },
    },
    { event: 'open', name: '(first open)', check: ({ rec }) => expect(rec.count('stable')).toBe(0) },
    {
      event: 'open',
      name: '(after a handshake, with messages consumed during it pending)',
      options: {
        handshake: handshake(async (c) => {
          c.send('hi');
          await c.nextMessage((d) => d === 'ack');
        }),
      },
      // No echo: an echo of 'hi' could arrive after 'ack', i.e. while closing (and be delivered).
      behaviour: ACCEPT,
      trigger: async ({ rig }) => {
        await waitFor(() => rig.server.connections === 1, 1_000, 'connection');
        rig.server.clients[0]?.send('early');
        rig.server.clients[0]?.send('ack');
      },
      // 'early' arrived during the handshake: its delivery after `open` must stop once closed.
      check: ({ rec }) => expect(rec.messages).toEqual([]),
    },
    {
      event: 'message',
      name: '(an echo)',
      trigger: openThen(({ socket }) => {
        socket.send('one');
        socket.send('two');
      }),
      // 'two' was echoed before the server saw the close frame: delivered while `closing`.
      mayFollow: ['message'],
    },
    {
      event: 'close',
      name: '(server closed with 1001)',
      trigger: openThen(({ rig }) => rig.server.closeAll(1001)),
      check: ({ rec }) => expect(rec.count('reconnecting')).toBe(0),
    },
    {
      event: 'close',
      name: '(fatal close 1008: no give-up after close())',
      trigger: openThen(({ rig }) => rig.server.closeAll(1008)),
      check: ({ rec }) => {
        expect(rec.count('giveup')).toBe(0);
        // state → closed, then the error saying why, then the close (whose listener closes).
        expect(rec.errors.map((e) => e.code)).toEqual(['ERR_RS_FATAL_CLOSE']);
      },
    },
    {
      event: 'reconnecting',
      name: '(server terminated the connection)',
      trigger: openThen(({ rig }) => {
        for (const client of rig.server.clients) client.terminate();
      }),
    },
    { event: 'stable', name: '(stableAfter 50 ms)', options: { stableAfter: 50 } },
    {
      event: 'error',
      name: 'ERR_RS_HANDSHAKE_FAILED',
      options: {
        handshake: handshake(() => {
          throw new Error('nope');
        }),
      },
      check: ({ rec }) => expect(rec.errors.map((e) => e.code)).toEqual(['ERR_RS_HANDSHAKE_FAILED']),
    },
    {
      event: 'error',
      name: 'ERR_RS_UPGRADE_REJECTED (503)',
      behaviour: { kind: 'refuse', status: 503 },
      check: ({ rec }) => expect(rec.errors.map((e) => e.code)).toEqual(['ERR_RS_UPGRADE_REJECTED']),
    },
    {
      event: 'error',
      name: 'ERR_RS_CONNECT_TIMEOUT (stalled upgrade)',
      behaviour: { kind: 'stall' },
      options: { connectTimeout: 200 },
      check: ({ rec }) => expect(rec.errors.map((e) => e.code)).toEqual(['ERR_RS_CONNECT_TIMEOUT']),
    },
    {
      event: 'error',
      name: 'ERR_RS_CONNECTION_FAILED (server down: connection refused)',
      serverDown: true,
      check: ({ rec }) => expect(rec.errors.map((e) => e.code)).toEqual(['ERR_RS_CONNECTION_FAILED']),
    },
    {
      event: 'error',
      name: 'ERR_RS_PROVIDER_FAILED',
      url: () => Promise.reject(new Error('no token')),
      check: ({ rec, rig }) => {
        expect(rec.errors.map((e) => e.code)).toEqual(['ERR_RS_PROVIDER_FAILED']);
        expect(rig.instances).toHaveLength(0);
      },
    },
    {
      event: 'error',
      name: 'ERR_RS_FATAL_CLOSE (1008, after the close event)',
      trigger: openThen(({ rig }) => rig.server.closeAll(1008)),
      check: ({ rec }) => expect(rec.count('giveup')).toBe(0),
    },
    {
      event: 'drop',
      name: "'not-connected' (send with buffer: false while connecting)",
      trigger: ({ socket }) => {
        expect(socket.send('volatile', { buffer: false })).toBe('dropped');
      },
    },
    {
      event: 'drop',
      name: "'overflow' (drop-newest)",
      options: { buffer: { maxMessages: 1 }, bufferPolicy: bufferPolicy({ overflow: 'drop-newest' }) },
      trigger: ({ socket }) => {
        expect(socket.send('kept')).toBe('buffered');
        expect(socket.send('overflowing')).toBe('dropped');
      },
    },
    {
      event: 'drop',
      name: "'expired' (the ttl timer, while the upgrade is stalled)",
      behaviour: { kind: 'stall' },
      options: { bufferPolicy: bufferPolicy({ ttl: 50 }) },
      trigger: ({ socket }) => {
        expect(socket.send('stale')).toBe('buffered');
      },
      check: ({ rec }) => expect(rec.drops[0]).toEqual({ reason: 'expired', messages: ['stale'] }),
    },
    {
      event: 'drop',
      name: "'closed' (re-entrant: the drop reported by close() itself)",
      // close() changes the state before it reports the queued messages: the nested close() is
      // a no-op and the state is already closed.
      stateInHandler: 'closed',
      trigger: ({ socket }) => {
        expect(socket.send('queued')).toBe('buffered');
        socket.close();
      },
    },
    {
      event: 'giveup',
      name: '(fatal close 1008)',
      trigger: openThen(({ rig }) => rig.server.closeAll(1008)),
    },
    {
      event: 'giveup',
      name: '(maxRetries 0, upgrade refused with 500)',
      behaviour: { kind: 'refuse', status: 500 },
      options: { maxRetries: 0 },
    },
  ];

  it.each(cases.map((c) => [`${c.event} ${c.name}`, c] as const))('%s', async (_name, c) => {
    const rig = await createRig(cleanup, c.behaviour ?? ECHO);
    if (c.serverDown) await rig.server.stop();
    const { socket, rec } = rig.socket(c.url ?? rig.server.url, {
      backoff: constant({ delay: RETRY_DELAY }),
      ...c.options,
    });
    let closedAt = -1;
    let stateInHandler = '';
    const onEvent = (...args: unknown[]) => {
      if (closedAt >= 0 || (c.when && !c.when(args[0]))) return;
      closedAt = rec.log.length;
      socket.close();
      stateInHandler = socket.state;
    };
    socket.on(c.event, onEvent as never);

    await c.trigger?.({ rig, socket, rec });
    await waitFor(() => closedAt >= 0, 2_000, `a '${c.event}' event`, { describe: () => rec.summary() });
    if (c.stateInHandler) expect(stateInHandler).toBe(c.stateInHandler);
    else expect(['closing', 'closed']).toContain(stateInHandler);
    if (c.serverDown) await rig.server.start();

    await expectNothingLeft(rig, socket, rec, QUIET);
    const allowed = ['state', 'close', 'drop', ...(c.mayFollow ?? [])];
    const after = namesFrom(rec, closedAt);
    expect(
      after.filter((n) => !allowed.includes(n)),
      `events after close(): ${after.join(', ')}`,
    ).toEqual([]);
    expect(statesFrom(rec, closedAt).at(-1) ?? socket.state).toBe('closed');
    const closesAfter = rec.log.slice(closedAt).filter((e) => e.name === 'close');
    expect(closesAfter.map((e) => (e.payload as CloseEventInfo).willReconnect)).not.toContain(true);
    c.check?.({ rig, socket, rec });
  });
});

describe('close() from a drop listener while send() is running', () => {
  /** Blocks the event loop (no timer can fire meanwhile), like a long synchronous task would. */
  function busyWait(ms: number): void {
    const until = performance.now() + ms;
    let spins = 0;
    while (performance.now() < until) spins++;
    expect(spins).toBeGreaterThan(0);
  }

  // Guards: send() first expires old messages (a `drop`, 'expired'); a `drop` listener that closes
  // the socket then must not leave the new message queued in a socket closed for good (never sent,
  // never reported, send() saying 'buffered'): it is reported as dropped ('closed').
  it("a message being sent when the listener of its send()'s own 'expired' drop closes the socket is reported, not lost", async () => {
    const rig = await createRig(cleanup);
    const { socket, rec } = rig.socket(undefined, { autoConnect: false, bufferPolicy: bufferPolicy({ ttl: 50 }) });
    socket.on('drop', (info) => {
      if (info.reason === 'expired') socket.close();
    });
    expect(socket.send('old')).toBe('buffered');
    busyWait(80); // 'old' is now older than ttl, and the ttl timer could not run
    const result = socket.send('new'); // expires 'old' first: the drop listener closes the socket

    await expectNothingLeft(rig, socket, rec, QUIET);
    expect(socket.bufferedCount, "'new' left in the buffer of a closed socket").toBe(0);
    expect(rec.drops).toEqual([
      { reason: 'expired', messages: ['old'] },
      { reason: 'closed', messages: ['new'] },
    ]);
    expect(result).toBe('dropped');
    expect(socket.stats.dropped).toBe(2);
  });
});

describe('control', () => {
  it('the leftover check itself fails on a leaked timer and on a leaked listener', async () => {
    const rig = await createRig(cleanup);
    const { socket, rec } = rig.socket();
    await waitFor(() => socket.state === 'open', 2_000, 'open');
    socket.close();

    const timer = setTimeout(() => undefined, 5_000);
    await expect(expectNothingLeft(rig, socket, rec, { quietMs: 20 })).rejects.toThrow(/live timers/);
    clearTimeout(timer);

    const ws = rig.instances[0];
    const listener = () => undefined;
    ws?.on('message', listener);
    await expect(expectNothingLeft(rig, socket, rec, { quietMs: 20 })).rejects.toThrow(/listeners left/);
    ws?.off('message', listener);

    await expectNothingLeft(rig, socket, rec, { quietMs: 20 });
  });
});
