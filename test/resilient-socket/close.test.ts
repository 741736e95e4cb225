import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { constant } from '../../src/backoff/constant.js';
import { ErrorCodes } from '../../src/errors.js';
import { CLOSE_TIMEOUT, handshake, type ResilientSocket } from '../../src/node.js';
import {
  advance,
  cleanup,
  createSocket,
  type EventName,
  expectRsError,
  MOCK_DELAY,
  openSocket,
  record,
  startServer,
  thrown,
  trackingWebSocket,
  uniqueUrl,
} from './helpers.js';

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(cleanup);

/** The socket is closed for good: state, readyState, no timer left, open()/reconnect() refused. */
async function expectClosedForGood(socket: ResilientSocket): Promise<void> {
  await advance(MOCK_DELAY * 2);
  expect(socket.state).toBe('closed');
  expect(socket.readyState).toBe(3);
  expect(vi.getTimerCount()).toBe(0);
  expectRsError(
    thrown(() => socket.open()),
    ErrorCodes.CLOSED,
  );
  expectRsError(
    thrown(() => socket.reconnect()),
    ErrorCodes.CLOSED,
  );
}

/** Events that must never follow a close(): the socket does not try to connect again. */
const REVIVAL: readonly EventName[] = ['connecting', 'open', 'reconnecting', 'stable', 'giveup'];

describe('close() in every state', () => {
  const setups: [string, () => Promise<ResilientSocket>][] = [
    ['idle', async () => createSocket(uniqueUrl(), { autoConnect: false })],
    ['connecting (URL not resolved yet)', async () => createSocket(startServer().url)],
    [
      'connecting (socket created, not open)',
      async () => {
        const s = createSocket(startServer().url);
        await advance(0);
        return s;
      },
    ],
    ['open', async () => (await openSocket()).socket],
    [
      'reconnecting',
      async () => {
        const s = createSocket(uniqueUrl(), { backoff: constant({ delay: 10_000 }) });
        await advance(MOCK_DELAY);
        expect(s.state).toBe('reconnecting');
        return s;
      },
    ],
    [
      'closed after a give-up',
      async () => {
        const s = createSocket(uniqueUrl(), { maxRetries: 0 });
        const giveups = record(s, ['giveup']); // heard, as an app would
        await advance(MOCK_DELAY);
        expect(s.state).toBe('closed');
        expect(giveups.of('giveup').map((info) => info.error.code)).toEqual(['ERR_RS_RETRIES_EXHAUSTED']);
        return s;
      },
    ],
  ];

  it.each(setups)('%s → closed, no timers, ERR_RS_CLOSED afterwards; a second close() is a no-op', async (_, setup) => {
    const socket = await setup();
    const log = record(socket);
    socket.close();
    socket.close();
    await expectClosedForGood(socket);
    const count = log.events.length;
    socket.close(4000, 'again');
    await advance(30_000);
    expect(log.events).toHaveLength(count);
    for (const name of REVIVAL) expect(log.names()).not.toContain(name);
    expect(log.of('close').length).toBeLessThanOrEqual(1);
    expect(log.states().filter((s) => s.endsWith('→closed')).length).toBeLessThanOrEqual(1);
  });

  it('while connecting with a socket: close event {willReconnect: false}, the server never sees the connection', async () => {
    const server = startServer();
    const socket = createSocket(server.url);
    const log = record(socket);
    await advance(0);
    socket.close(4001, 'never mind');
    expect(socket.state).toBe('closed');
    expect(log.of('close')).toEqual([{ code: 4001, reason: 'never mind', wasClean: false, willReconnect: false }]);
    expect(log.states()).toEqual(['connecting→closed']);
    await expectClosedForGood(socket);
    expect(server.clients).toEqual([]);
  });

  it('while reconnecting: no close event (no connection), the pending retry is cancelled', async () => {
    const socket = createSocket(uniqueUrl(), { backoff: constant({ delay: 1000 }) });
    await advance(MOCK_DELAY);
    const log = record(socket);
    socket.close();
    expect(log.names()).toEqual(['state']);
    expect(log.states()).toEqual(['reconnecting→closed']);
    expect(socket.stats.nextRetryAt).toBeUndefined();
    await expectClosedForGood(socket);
  });
});

describe('close() on an open socket', () => {
  it('close(1000, "bye"): closing, then closed with the close event once the server acknowledges', async () => {
    const server = startServer();
    const tracking = trackingWebSocket();
    const socket = createSocket(server.url, { WebSocket: tracking.WebSocket });
    await advance(MOCK_DELAY);
    const underlying = tracking.instances[0];
    if (!underlying) throw new Error('no socket');
    const closeSpy = vi.spyOn(underlying, 'close');
    const log = record(socket);
    socket.close(1000, 'bye');
    expect(closeSpy).toHaveBeenCalledWith(1000, 'bye');
    expect(socket.state).toBe('closing');
    expect(socket.readyState).toBe(2);
    expect(log.events).toEqual([
      { name: 'state', payload: { previous: 'open', current: 'closing', reason: 'close() called' } },
    ]);
    await advance(MOCK_DELAY - 1);
    expect(socket.state).toBe('closing');
    await advance(1);
    // The state first: inside the close listener the socket already reads closed (readyState 3).
    expect(log.events.slice(1)).toEqual([
      { name: 'state', payload: { previous: 'closing', current: 'closed', reason: 'closed by close()' } },
      { name: 'close', payload: { code: 1000, reason: 'bye', wasClean: true, willReconnect: false } },
    ]);
    await expectClosedForGood(socket);
  });

  it('passes an application close code to the server', async () => {
    const server = startServer();
    const { socket, log } = await openSocket({}, server);
    const seenByServer: number[] = [];
    server.last().addEventListener('close', ((event: { code: number }) => seenByServer.push(event.code)) as never);
    socket.close(4321, 'app');
    await advance(MOCK_DELAY);
    expect(seenByServer).toEqual([4321]);
    expect(log.of('close')).toEqual([{ code: 4321, reason: 'app', wasClean: false, willReconnect: false }]);
  });

  it(`cuts the connection after CLOSE_TIMEOUT (${CLOSE_TIMEOUT} ms) when the server never acknowledges`, async () => {
    const server = startServer();
    const tracking = trackingWebSocket({ close() {} }); // the close frame is lost
    const socket = createSocket(server.url, { WebSocket: tracking.WebSocket });
    await advance(MOCK_DELAY);
    const log = record(socket);
    socket.close();
    await advance(CLOSE_TIMEOUT - 1);
    expect(socket.state).toBe('closing');
    await advance(1);
    expect(log.of('close')).toEqual([{ code: 1006, reason: 'close timeout', wasClean: false, willReconnect: false }]);
    await expectClosedForGood(socket);
  });

  it('stops the heartbeat and the stable timer at once', async () => {
    const { socket, log } = await openSocket({ heartbeat: { interval: 100, timeout: 100 }, stableAfter: 150 });
    socket.close();
    // the closing timer is the only one left until the server answers
    expect(vi.getTimerCount()).toBe(2); // CLOSE_TIMEOUT + mock-socket's 4 ms close delivery
    await expectClosedForGood(socket);
    expect(log.names()).not.toContain('stable');
    expect(log.errors()).toEqual([]);
  });
});

describe('close() argument validation', () => {
  it.each<[string, unknown[], ErrorConstructor]>([
    ['close(999)', [999], RangeError],
    ['close(1001)', [1001], RangeError],
    ['close(5000)', [5000], RangeError],
    ["close(1000, 'x'.repeat(124))", [1000, 'x'.repeat(124)], RangeError],
    ["close('a')", ['a'], TypeError],
    ['close(1000, 5)', [1000, 5], TypeError],
  ])('%s throws %o and leaves the socket open', async (_, args, Type) => {
    const { socket } = await openSocket();
    expect(() => (socket.close as (...a: unknown[]) => void)(...args)).toThrow(Type);
    expect(socket.state).toBe('open');
  });

  it('validates even after the socket is closed', async () => {
    const socket = createSocket(uniqueUrl(), { autoConnect: false });
    socket.close();
    expect(() => socket.close(999)).toThrow(RangeError);
  });

  it('accepts a reason of exactly 123 bytes (multibyte included)', async () => {
    const { socket, log } = await openSocket();
    const reason = `${'€'.repeat(41)}`; // 123 bytes
    socket.close(3000, reason);
    await advance(MOCK_DELAY);
    expect(log.of('close')[0]).toMatchObject({ code: 3000, reason });
  });
});

describe('close() from inside event listeners', () => {
  interface Scenario {
    readonly event: EventName;
    readonly label: string;
    /** Starts the socket and makes `event` happen; `close` is installed as a listener before. */
    run(install: (socket: ResilientSocket) => void): Promise<ResilientSocket>;
  }

  const scenarios: Scenario[] = [
    {
      event: 'state',
      label: 'state (idle → connecting)',
      async run(install) {
        const socket = createSocket(startServer().url, { autoConnect: false });
        install(socket);
        socket.open();
        return socket;
      },
    },
    {
      event: 'state',
      label: 'state (open → reconnecting)',
      async run(install) {
        const { server, socket } = await openSocket({ backoff: constant({ delay: 10 }) });
        install(socket);
        server.closeLast(1012);
        return socket;
      },
    },
    {
      event: 'connecting',
      label: 'connecting',
      async run(install) {
        const socket = createSocket(startServer().url);
        install(socket);
        return socket;
      },
    },
    {
      event: 'open',
      label: 'open',
      async run(install) {
        const socket = createSocket(startServer().url);
        install(socket);
        return socket;
      },
    },
    {
      event: 'message',
      label: 'message',
      async run(install) {
        const { server, socket } = await openSocket();
        install(socket);
        server.broadcast('hi');
        return socket;
      },
    },
    {
      event: 'close',
      label: 'close (server closed the connection)',
      async run(install) {
        const { server, socket } = await openSocket({ backoff: constant({ delay: 10 }) });
        install(socket);
        server.closeLast(1011);
        return socket;
      },
    },
    {
      event: 'close',
      label: 'close (failed attempt)',
      async run(install) {
        const socket = createSocket(uniqueUrl(), { backoff: constant({ delay: 10 }) });
        install(socket);
        return socket;
      },
    },
    {
      event: 'reconnecting',
      label: 'reconnecting',
      async run(install) {
        const { server, socket } = await openSocket({ backoff: constant({ delay: 10 }) });
        install(socket);
        server.closeLast(1011);
        return socket;
      },
    },
    {
      event: 'error',
      label: 'error (connection failed)',
      async run(install) {
        const socket = createSocket(uniqueUrl(), { backoff: constant({ delay: 10 }) });
        install(socket);
        return socket;
      },
    },
    {
      event: 'error',
      label: 'error (handshake failed)',
      async run(install) {
        const socket = createSocket(startServer().url, {
          handshake: handshake(() => {
            throw new Error('no');
          }),
        });
        install(socket);
        return socket;
      },
    },
    {
      event: 'error',
      label: 'error (fatal close, before giveup)',
      async run(install) {
        const { server, socket } = await openSocket();
        install(socket);
        server.closeLast(1008);
        return socket;
      },
    },
    {
      event: 'stable',
      label: 'stable',
      async run(install) {
        const socket = createSocket(startServer().url, { stableAfter: 100 });
        install(socket);
        return socket;
      },
    },
    {
      event: 'giveup',
      label: 'giveup',
      async run(install) {
        const socket = createSocket(uniqueUrl(), { maxRetries: 0 });
        install(socket);
        return socket;
      },
    },
    {
      event: 'drop',
      label: 'drop',
      async run(install) {
        const socket = createSocket(startServer().url);
        install(socket);
        socket.send('x', { buffer: false });
        return socket;
      },
    },
  ];

  it.each(scenarios.map((s) => [s.label, s] as const))(
    '%s: the socket ends closed, with no timer and no new attempt',
    async (_, scenario) => {
      let closedAt = -1;
      let log: ReturnType<typeof record> | undefined;
      const socket = await scenario.run((s) => {
        log = record(s);
        (s.on as (event: string, fn: () => void) => unknown)(scenario.event, () => {
          if (closedAt >= 0) return;
          closedAt = log?.events.length ?? 0;
          s.close();
        });
      });
      await advance(200);
      expect(closedAt).toBeGreaterThanOrEqual(0);
      await expectClosedForGood(socket);
      const after = log?.events.slice(closedAt).map((e) => e.name) ?? [];
      for (const name of REVIVAL) expect(after).not.toContain(name);
      expect(log?.errors().filter((c) => c === ErrorCodes.LISTENER_THREW)).toEqual([]);
    },
  );

  // Guards: close() called from a `state` listener on the connecting → open change. The open must
  // stop there: no stable timer or heartbeat armed after close() cleared every timer, and no `open`
  // event while the state is already `closing`.
  it('state (connecting → open): no `open` event and no new timer after close()', async () => {
    const socket = createSocket(startServer().url, { heartbeat: { interval: 1000, timeout: 500 } });
    const log = record(socket);
    let timersAfterClose = -1;
    socket.on('state', ({ current }) => {
      if (current !== 'open') return;
      socket.close();
      timersAfterClose = vi.getTimerCount();
    });
    await advance(MOCK_DELAY);
    expect(socket.state).toBe('closing');
    expect(log.names()).not.toContain('open');
    // close() leaves CLOSE_TIMEOUT and mock-socket's close delivery; nothing may be added after it
    expect(vi.getTimerCount()).toBe(timersAfterClose);
  });

  // Guards: close() called from an `error` listener for ERR_RS_DEAD_LINK (the heartbeat found an
  // open connection dead). The dead connection still reads OPEN, so close() starts the closing
  // handshake; the loss that follows must not clear its deadline or detach the socket, or the
  // socket would stay `closing` for ever (readyState 2, no timer left to finish it).
  it('error (ERR_RS_DEAD_LINK): the socket ends closed', async () => {
    const { socket, log } = await openSocket({ heartbeat: { interval: 1000, timeout: 500 } });
    socket.on('error', () => socket.close());
    await advance(1500);
    expect(log.errors()).toEqual([ErrorCodes.DEAD_LINK]);
    await advance(CLOSE_TIMEOUT + MOCK_DELAY);
    expect(socket.state).toBe('closed');
  });
});

describe('the signal option', () => {
  it('aborting does what close() does (code 1000, reason "aborted")', async () => {
    const controller = new AbortController();
    const { socket, log } = await openSocket({ signal: controller.signal });
    log.clear();
    controller.abort();
    expect(socket.state).toBe('closing');
    await advance(MOCK_DELAY);
    expect(log.of('close')).toEqual([{ code: 1000, reason: 'aborted', wasClean: true, willReconnect: false }]);
    await expectClosedForGood(socket);
  });

  it('aborting while reconnecting closes at once and cancels the retry', async () => {
    const controller = new AbortController();
    const socket = createSocket(uniqueUrl(), { signal: controller.signal, backoff: constant({ delay: 1000 }) });
    await advance(MOCK_DELAY);
    expect(socket.state).toBe('reconnecting');
    controller.abort();
    expect(socket.state).toBe('closed');
    await expectClosedForGood(socket);
  });

  it('aborting after close() does nothing', async () => {
    const controller = new AbortController();
    const { socket, log } = await openSocket({ signal: controller.signal });
    socket.close(4000, 'mine');
    await advance(MOCK_DELAY);
    const count = log.events.length;
    controller.abort();
    expect(log.events).toHaveLength(count);
    expect(log.of('close')[0]).toMatchObject({ code: 4000, reason: 'mine' });
  });

  it('close() takes its listener off the signal (a long-lived signal does not keep the socket)', async () => {
    const controller = new AbortController();
    const add = vi.spyOn(controller.signal, 'addEventListener');
    const remove = vi.spyOn(controller.signal, 'removeEventListener');
    const { socket } = await openSocket({ signal: controller.signal });
    expect(add).toHaveBeenCalledTimes(1);
    expect(remove).not.toHaveBeenCalled();
    socket.close();
    expect(remove).toHaveBeenCalledTimes(1);
    expect(remove.mock.calls[0]?.slice(0, 2)).toEqual(add.mock.calls[0]?.slice(0, 2));
  });

  // Regression, it was: one abort listener per socket,
  // so more than ten sockets on one signal made Node print MaxListenersExceededWarning.
  it('many sockets on one signal share one listener: no MaxListenersExceededWarning; abort closes them all', async () => {
    const warnings: Error[] = [];
    const onWarning = (warning: Error) => warnings.push(warning);
    process.on('warning', onWarning);
    try {
      const controller = new AbortController();
      const add = vi.spyOn(controller.signal, 'addEventListener');
      const remove = vi.spyOn(controller.signal, 'removeEventListener');
      const server = startServer();
      const sockets = Array.from({ length: 25 }, () => createSocket(server.url, { signal: controller.signal }));
      await advance(MOCK_DELAY);
      expect(add).toHaveBeenCalledTimes(1);
      sockets[0]?.close(); // one leaves; the others stay linked
      expect(remove).not.toHaveBeenCalled();
      controller.abort();
      expect(sockets.slice(1).map((socket) => socket.state)).toEqual(Array(24).fill('closing'));
      await advance(MOCK_DELAY);
      expect(sockets.map((socket) => socket.state)).toEqual(Array(25).fill('closed'));
      // Warnings are emitted on a later tick (process.nextTick is not faked).
      for (let i = 0; i < 3; i++) await new Promise((resolve) => process.nextTick(resolve));
      expect(warnings.map((w) => w.name)).not.toContain('MaxListenersExceededWarning');
    } finally {
      process.off('warning', onWarning);
    }
  });

  it('the last socket to close takes the shared listener off the signal', async () => {
    const controller = new AbortController();
    const remove = vi.spyOn(controller.signal, 'removeEventListener');
    const sockets = [1, 2, 3].map(() => createSocket(uniqueUrl(), { autoConnect: false, signal: controller.signal }));
    sockets[0]?.close();
    sockets[1]?.close();
    expect(remove).not.toHaveBeenCalled();
    sockets[2]?.close();
    expect(remove).toHaveBeenCalledTimes(1);
  });

  it('an already aborted signal creates the socket closed, without connecting', async () => {
    const server = startServer();
    const socket = createSocket(server.url, { signal: AbortSignal.abort() });
    expect(socket.state).toBe('closed');
    await expectClosedForGood(socket);
    expect(server.clients).toEqual([]);
  });
});
