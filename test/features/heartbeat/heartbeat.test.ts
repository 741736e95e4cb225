import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { constant } from '../../../src/backoff/constant.js';
import { ErrorCodes } from '../../../src/errors.js';
import { bufferPolicy } from '../../../src/features/buffer-policy/buffer-policy.js';
import { heartbeat } from '../../../src/features/heartbeat/heartbeat.js';
import { expectInputError, inMode, productionMessage } from '../../helpers/mode.js';
import {
  advance,
  cleanup,
  expectRsError,
  MOCK_DELAY,
  openSocket,
  startServer,
  uniqueUrl,
} from '../../resilient-socket/helpers.js';

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(cleanup);

const SILENCE = { interval: 1000, timeout: 500 } as const;

describe('options', () => {
  it('a `message` that is neither data nor a function: a TypeError naming `heartbeat.message`', () => {
    expectInputError(
      () => heartbeat({ message: 5 as never, isPong: () => true }),
      TypeError,
      'ERR_RS_INVALID_TYPE',
      'heartbeat.message',
      'Expected `heartbeat.message` to be a string, binary data or a function, got number 5',
    );
  });

  it('a `message` without `isPong`: a TypeError naming `heartbeat.isPong`, saying why it is needed', () => {
    expectInputError(
      () => heartbeat({ message: 'ping' }),
      TypeError,
      'ERR_RS_INVALID_TYPE',
      'heartbeat.isPong',
      'Expected `heartbeat.isPong` to be a function when `heartbeat.message` is set (a heartbeat that sends pings ' +
        'must recognise their answers; leave out `message` for silence detection), got undefined',
    );
  });
});

describe('silence detection (browser API, no message configured)', () => {
  it('no server message for interval + timeout → close 1006 "heartbeat timeout", ERR_RS_DEAD_LINK, reconnect', async () => {
    const { server, socket, log } = await openSocket({
      heartbeat: SILENCE,
      backoff: constant({ delay: 100 }),
      stableAfter: 60_000,
    });
    log.clear();
    await advance(1499);
    expect(socket.state).toBe('open');
    expect(log.events).toEqual([]);
    await advance(1);
    expect(log.names()).toEqual(['state', 'error', 'close', 'reconnecting']);
    const error = expectRsError(log.of('error')[0], ErrorCodes.DEAD_LINK);
    expect(error.message).toBe(inMode('The heartbeat found the connection dead', ErrorCodes.DEAD_LINK));
    expect(socket.stats.lastError).toBe(error);
    expect(log.of('close')).toEqual([
      { code: 1006, reason: 'heartbeat timeout', wasClean: false, willReconnect: true },
    ]);
    expect(log.of('reconnecting')).toEqual([{ attempt: 2, delay: 100 }]);
    expect(server.clients[0]?.readyState).not.toBe(1); // the dead connection was closed
    await advance(100 + MOCK_DELAY);
    expect(socket.state).toBe('open');
    expect(log.of('open')).toEqual([{ attempt: 2, reconnected: true }]);
  });

  it('server messages keep the link alive, each one restarting the deadline', async () => {
    const { server, socket, log } = await openSocket({ heartbeat: SILENCE, stableAfter: 60_000 });
    for (let i = 0; i < 10; i++) {
      await advance(1400);
      server.broadcast(`tick ${i}`);
    }
    expect(socket.state).toBe('open');
    expect(log.errors()).toEqual([]);
    expect(log.of('message')).toHaveLength(10);
    await advance(1499);
    expect(socket.state).toBe('open');
    await advance(1);
    expect(log.errors()).toEqual([ErrorCodes.DEAD_LINK]);
  });

  it('sends nothing to the server', async () => {
    const { server } = await openSocket({ heartbeat: SILENCE });
    await advance(1400);
    expect(server.received).toEqual([]);
  });
});

describe('app-level ping (heartbeat.message)', () => {
  const PING = { interval: 1000, timeout: 500, message: 'ping', isPong: (d: unknown) => d === 'pong' } as const;

  it('sends the ping every interval; a server answering pong keeps it alive; pongs are not emitted', async () => {
    const server = startServer(uniqueUrl(), (client) => {
      client.on('message', (data) => {
        if (data === 'ping') client.send('pong');
      });
    });
    const { socket, log } = await openSocket({ heartbeat: PING, stableAfter: 60_000 }, server);
    await advance(999);
    expect(server.received).toEqual([]);
    await advance(1 + MOCK_DELAY);
    expect(server.received).toEqual(['ping']);
    await advance(10_000);
    expect(socket.state).toBe('open');
    expect(server.received).toEqual(Array(11).fill('ping'));
    expect(log.errors()).toEqual([]);
    expect(log.of('message')).toEqual([]);
    expect(socket.stats.messagesIn).toBe(11); // pongs are counted, just not emitted
    expect(socket.stats.messagesOut).toBe(11); // and so are the pings
  });

  it('a server that does not answer: dead timeout ms after the first ping', async () => {
    const { server, socket, log } = await openSocket({ heartbeat: PING, backoff: constant({ delay: 10_000 }) });
    await advance(1499);
    expect(socket.state).toBe('open');
    await advance(1);
    expect(log.errors()).toEqual([ErrorCodes.DEAD_LINK]);
    expect(log.of('close')[0]).toMatchObject({ code: 1006, reason: 'heartbeat timeout', willReconnect: true });
    expect(socket.state).toBe('reconnecting');
    await advance(MOCK_DELAY);
    expect(server.received).toEqual(['ping']);
  });

  // Only the answer to a ping proves the link alive: otherwise a link dead only from client to
  // server goes unnoticed while the server streams.
  it('only the answer counts: a server that streams but never answers the pings is found dead', async () => {
    const { server, socket, log } = await openSocket({
      heartbeat: PING,
      stableAfter: 60_000,
      backoff: constant({ delay: 60_000 }),
    });
    await advance(1000); // the first ping goes out
    for (let i = 0; i < 4; i++) {
      server.broadcast(`data ${i}`); // a message every 100 ms, none of them a pong
      await advance(100);
    }
    await advance(99);
    expect(socket.state).toBe('open');
    expect(log.errors()).toEqual([]);
    await advance(1); // 500 ms after the ping: no pong
    expect(log.errors()).toEqual([ErrorCodes.DEAD_LINK]);
    expect(socket.state).toBe('reconnecting');
    expect(log.of('message')).toEqual(['data 0', 'data 1', 'data 2', 'data 3']); // still delivered
  });

  it('isPong that throws is reported (ERR_RS_CALLBACK_FAILED), the message is delivered, nothing crashes', async () => {
    const { server, socket, log } = await openSocket({
      heartbeat: {
        interval: 1000,
        timeout: 500,
        message: 'ping',
        isPong: (data) => JSON.parse(String(data)).type === 'pong',
      },
      stableAfter: 60_000,
    });
    expect(() => server.broadcast('hello, not JSON')).not.toThrow();
    expect(socket.state).toBe('open');
    expect(log.of('message')).toEqual(['hello, not JSON']);
    const error = expectRsError(log.of('error')[0], ErrorCodes.CALLBACK_FAILED);
    expect(error.message).toContain(inMode('`heartbeat.isPong` threw', ErrorCodes.CALLBACK_FAILED));
    expect(error.cause).toBeInstanceOf(SyntaxError);
  });

  it('accepts a function that builds each ping', async () => {
    let n = 0;
    const { server } = await openSocket({
      heartbeat: { interval: 1000, timeout: 5000, message: () => `ping ${++n}`, isPong: (d) => d === 'pong' },
      stableAfter: 60_000,
    });
    await advance(3000 + MOCK_DELAY);
    expect(server.received).toEqual(['ping 1', 'ping 2', 'ping 3']);
  });

  it('a heartbeat.message() that throws or returns no message is reported; no ping, the link is not declared dead', async () => {
    const results: unknown[] = [new Error('cannot build a ping'), 42, 'ping'];
    const { server, socket, log } = await openSocket(
      {
        heartbeat: {
          interval: 1000,
          timeout: 500,
          message: () => {
            const next = results.shift();
            if (next instanceof Error) throw next;
            return next as string;
          },
          isPong: (d) => d === 'pong',
        },
        stableAfter: 60_000,
      },
      startServer(uniqueUrl(), (client) => client.on('message', () => client.send('pong'))),
    );
    await advance(2000 + 500);
    expect(socket.state).toBe('open');
    expect(log.errors()).toEqual([ErrorCodes.CALLBACK_FAILED, ErrorCodes.CALLBACK_FAILED]);
    const [threw, returned] = log.of('error') as (Error & { cause?: Error & { code?: string } })[];
    expect(threw?.message).toBe(inMode('`heartbeat.message` threw: cannot build a ping', ErrorCodes.CALLBACK_FAILED));
    expect(returned?.message).toBe(
      inMode(
        'Expected `heartbeat.message()` to return a string or binary data, got number 42; no ping sent',
        ErrorCodes.CALLBACK_FAILED,
      ),
    );
    // What it returned is a TypeError about the callback, the cause.
    expect(returned?.cause).toBeInstanceOf(TypeError);
    expect(returned?.cause?.code).toBe('ERR_RS_INVALID_TYPE');
    expect(returned?.cause?.message).toBe(
      inMode(
        'Expected `heartbeat.message()` to return a string or binary data, got number 42',
        productionMessage('heartbeat.message()', 'ERR_RS_INVALID_TYPE'),
      ),
    );
    await advance(500 + MOCK_DELAY);
    expect(server.received).toEqual(['ping']); // the third ping went out and was answered
    expect(socket.state).toBe('open');
    expect(log.errors()).toHaveLength(2);
  });
});

describe('no heartbeat', () => {
  it('by default with mock-socket (no protocol ping): no heartbeat timers, the link is never declared dead', async () => {
    const { server, socket, log } = await openSocket();
    expect(vi.getTimerCount()).toBe(1); // only the stableAfter timer
    await advance(5000);
    expect(log.names()).toContain('stable');
    expect(vi.getTimerCount()).toBe(0);
    await advance(120_000);
    expect(socket.state).toBe('open');
    expect(log.errors()).toEqual([]);
    expect(server.received).toEqual([]);
  });

  it('heartbeat: false arms no heartbeat timer (and stableAfter: 0 none either)', async () => {
    const { socket } = await openSocket({ heartbeat: false, stableAfter: 0 });
    expect(vi.getTimerCount()).toBe(0);
    await advance(120_000);
    expect(socket.state).toBe('open');
  });

  it('each pending slot (stable, heartbeat, buffer ttl) is one timer; close() leaves none', async () => {
    const { server, socket } = await openSocket({
      heartbeat: { interval: 1000, timeout: 500, message: 'ping', isPong: (d) => d === 'pong' },
      bufferPolicy: bufferPolicy({ ttl: 700 }),
      backoff: constant({ delay: 10_000 }),
      // Counting the socket's own slots: leave out the shared suspend watcher (see resume tests).
      resume: { detectSuspend: false },
    });
    expect(vi.getTimerCount()).toBe(2); // stable (5 s) and ping (1 s)
    await advance(1000 + MOCK_DELAY);
    expect(server.received).toEqual(['ping']);
    expect(vi.getTimerCount()).toBe(3); // stable, ping and pong
    server.closeLast(1012);
    await advance(MOCK_DELAY);
    expect(socket.state).toBe('reconnecting');
    expect(socket.send('queued')).toBe('buffered');
    expect(vi.getTimerCount()).toBe(2); // reconnect wait and ttl
    socket.close();
    expect(vi.getTimerCount()).toBe(0);
  });

  it('the heartbeat stops when the connection is lost (no stale timer kills the next one)', async () => {
    const { server, socket, log } = await openSocket({
      heartbeat: SILENCE,
      backoff: constant({ delay: 1000 }),
      stableAfter: 60_000,
    });
    await advance(1000);
    server.closeLast(1012);
    await advance(MOCK_DELAY);
    expect(socket.state).toBe('reconnecting');
    expect(vi.getTimerCount()).toBe(1); // the reconnect wait only
    await advance(1000 + MOCK_DELAY);
    expect(socket.state).toBe('open');
    await advance(1499);
    expect(socket.state).toBe('open');
    expect(log.errors()).toEqual([]);
  });
});
