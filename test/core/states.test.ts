import { describe, expect, it } from 'vitest';
import { canTransition, RULES, type SocketState, STATES } from '../../src/core/states.js';

const ALL: readonly SocketState[] = ['idle', 'connecting', 'open', 'reconnecting', 'closing', 'closed'];

describe('STATES table', () => {
  it('lists exactly the six states', () => {
    expect(Object.keys(STATES).sort()).toEqual([...ALL].sort());
  });

  it('is the rules the machine runs on, each with its transitions', () => {
    for (const state of ALL) {
      const { next, ...rule } = STATES[state];
      expect(rule, state).toEqual(RULES[state]);
      expect(next.length, state).toBeGreaterThan(0);
    }
  });

  it('is frozen', () => {
    expect(Object.isFrozen(STATES)).toBe(true);
  });

  it.each(ALL)('every `next` target of %s is a state, listed once, and not the state itself', (state) => {
    const next = STATES[state].next;
    for (const target of next) expect(ALL).toContain(target);
    expect(new Set(next).size).toBe(next.length);
    expect(next).not.toContain(state);
  });

  it('closed only leads to connecting (open()/reconnect() after a give-up)', () => {
    expect(STATES.closed.next).toEqual(['connecting']);
  });

  it('closing only leads to closed', () => {
    expect(STATES.closing.next).toEqual(['closed']);
  });

  it('every state but closed can change to closed directly', () => {
    for (const state of ALL) {
      if (state === 'closed') continue;
      expect(STATES[state].next, state).toContain('closed');
    }
  });

  it('only open is reachable from connecting, and only connecting leads to open', () => {
    const intoOpen = ALL.filter((s) => STATES[s].next.includes('open'));
    expect(intoOpen).toEqual(['connecting']);
  });

  it('closing is entered only where a socket can be open: open, and connecting while the handshake hook runs', () => {
    expect(ALL.filter((s) => STATES[s].next.includes('closing'))).toEqual(['connecting', 'open']);
  });

  it('only open sends directly; every state but closing and closed buffers', () => {
    expect(ALL.filter((s) => STATES[s].sendsDirectly)).toEqual(['open']);
    expect(ALL.filter((s) => STATES[s].buffersSends)).toEqual(['idle', 'connecting', 'open', 'reconnecting']);
  });

  it('closing and closed are the terminal states', () => {
    expect(ALL.filter((s) => STATES[s].terminal)).toEqual(['closing', 'closed']);
  });

  it('every state is reachable from idle', () => {
    const seen = new Set<SocketState>(['idle']);
    const queue: SocketState[] = ['idle'];
    for (let s = queue.shift(); s !== undefined; s = queue.shift()) {
      for (const n of STATES[s].next) {
        if (!seen.has(n)) {
          seen.add(n);
          queue.push(n);
        }
      }
    }
    expect([...seen].sort()).toEqual([...ALL].sort());
  });
});

describe('canTransition', () => {
  it('agrees with the table for every pair', () => {
    for (const from of ALL) {
      for (const to of ALL) {
        expect(canTransition(from, to), `${from} → ${to}`).toBe(STATES[from].next.includes(to));
      }
    }
  });

  it.each([
    ['idle', 'connecting', true],
    ['idle', 'open', false],
    ['connecting', 'open', true],
    ['connecting', 'closing', true],
    ['reconnecting', 'closing', false],
    ['open', 'closing', true],
    ['open', 'connecting', true],
    ['reconnecting', 'open', false],
    ['reconnecting', 'connecting', true],
    ['closing', 'connecting', false],
    ['closing', 'closed', true],
    ['closed', 'connecting', true],
    ['closed', 'open', false],
    ['closed', 'idle', false],
    ['open', 'open', false],
  ] as const)('%s → %s is %s', (from, to, expected) => {
    expect(canTransition(from, to)).toBe(expected);
  });
});

/**
 * The machine (`src/core/machine.ts`) reads the state it is in rather than the table, so the two
 * are checked against each other here: in every state a socket is driven to, `send()` does what
 * `sendsDirectly`/`buffersSends` say, the timer armed on entering it is the row's deadline, and a
 * `close` reported in it says `willReconnect` exactly when the state is not terminal.
 */
describe('the machine follows the table', () => {
  it('send() in each state, the deadline each state arms, willReconnect', async () => {
    const { vi } = await import('vitest');
    const { BaseSocket } = await import('../../src/core/socket.js');
    const { TestClock } = await import('../../src/testing/test-clock.js');
    const { FlakyServer } = await import('../../src/testing/flaky-server.js');
    vi.useFakeTimers();
    try {
      const server = new FlakyServer({ url: 'ws://states.test/' });
      const clock = new TestClock();
      const socket = new BaseSocket(server.url, {
        WebSocket: server.WebSocket,
        clock,
        autoConnect: false,
        stableAfter: 1_000,
        connectTimeout: 2_000,
        backoff: { next: () => 3_000, reset: () => undefined },
      });
      const closes: boolean[] = [];
      socket.on('close', ({ willReconnect }) => closes.push(willReconnect));
      socket.on('drop', () => undefined);
      const check = (state: SocketState, deadline: number | undefined): void => {
        expect(socket.state).toBe(state);
        const row = STATES[state];
        const expected = row.sendsDirectly ? 'sent' : row.buffersSends ? 'buffered' : 'dropped';
        const armed = clock.nextAt === undefined ? undefined : clock.nextAt - clock.now();
        expect(armed, `the deadline of ${state}`).toBe(deadline);
        expect(socket.send('x', { buffer: row.buffersSends }), `send() while ${state}`).toBe(expected);
      };
      check('idle', undefined);
      socket.open();
      check('connecting', 2_000);
      await vi.advanceTimersByTimeAsync(10); // mock-socket opens after 4 ms
      check('open', 1_000);
      server.drop();
      await vi.advanceTimersByTimeAsync(10);
      check('reconnecting', 3_000);
      expect(closes).toEqual([!STATES.reconnecting.terminal]);
      await clock.advance(3_000);
      await vi.advanceTimersByTimeAsync(10);
      expect(socket.state).toBe('open');
      socket.close();
      check('closing', 3_000);
      await vi.advanceTimersByTimeAsync(10);
      check('closed', undefined);
      expect(closes).toEqual([true, !STATES.closed.terminal]);
    } finally {
      vi.useRealTimers();
    }
  });
});
