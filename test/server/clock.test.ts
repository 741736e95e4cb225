/**
 * A clock that gives something other than a time: refused when the server is made, contained
 * later (the last good reading stands, `error` tells it once), and every wait the server computes
 * is a finite number >= 0.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { Clock } from '../../src/clock.js';
import { ReliableServer } from '../../src/server/index.js';
import { resolveServerOptions } from '../../src/server/options.js';
import { Cleanup } from '../helpers/wait.js';
import { fakeServer } from './fake.js';

const cleanup = new Cleanup();
afterEach(() => cleanup.run());

/** A hand-driven clock whose `now()` turns bad on demand; every delay it was asked for is kept. */
class BrokenClock implements Clock {
  time = 0;
  reading: () => unknown = () => this.time;
  readonly delays: number[] = [];
  readonly #timers = new Map<number, () => void>();
  #next = 0;

  now(): number {
    return this.reading() as number;
  }

  setTimeout(callback: () => void, ms: number): number {
    this.delays.push(ms);
    this.#next += 1;
    this.#timers.set(this.#next, callback);
    return this.#next;
  }

  clearTimeout(handle: unknown): void {
    this.#timers.delete(handle as number);
  }

  /** Fires every pending timer (not those they arm), `rounds` times over. */
  fire(rounds: number): void {
    for (let i = 0; i < rounds; i++) {
      const due = [...this.#timers.values()];
      this.#timers.clear();
      for (const callback of due) callback();
    }
  }
}

const wss = () => ({ on() {}, off() {} });

describe('ReliableServer: a bad clock', () => {
  it.each([
    ['NaN', Number.NaN],
    ['Infinity', Number.POSITIVE_INFINITY],
    ['a string', '5'],
    ['undefined', undefined],
  ])('is refused when its now() gives %s, with a RangeError naming `clock.now()`', (_label, value) => {
    const clock = new BrokenClock();
    clock.reading = () => value;
    for (const make of [() => resolveServerOptions({ clock }), () => new ReliableServer(wss(), { clock })]) {
      let thrown: unknown;
      try {
        make();
      } catch (error) {
        thrown = error;
      }
      expect(thrown).toMatchObject({ name: 'RangeError', code: 'ERR_RS_INVALID_VALUE' });
      expect((thrown as Error).message).toContain('`clock.now()`');
    }
  });

  it('that turns bad later is contained: finite waits, no busy loop, told once on `error`', async () => {
    const clock = new BrokenClock();
    const { server, connect } = fakeServer(cleanup, { clock, ackTimeout: 1_000, sessionTtl: 60_000 });
    const errors: Error[] = [];
    server.on('error', (error) => errors.push(error));
    const socket = connect();
    socket.receive({ rs: 'hello', session: 's1' });
    void server.send('s1', 'x').catch(() => {});
    void server.send('away', 'y').catch(() => {}); // a disconnected session: its expiry timer
    clock.time = 500;
    clock.reading = () => Number.NaN;
    clock.fire(50);
    await Promise.resolve(); // the report goes out of the operation that read the clock
    for (const ms of clock.delays) {
      expect(Number.isFinite(ms)).toBe(true);
      expect(ms).toBeGreaterThanOrEqual(0);
    }
    // Two expiries and one acknowledgement timer per firing: never a storm of immediate ones.
    expect(clock.delays.length).toBeLessThanOrEqual(3 + 50);
    expect(clock.delays.filter((ms) => ms === 0)).toEqual([]);
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatchObject({ name: 'ResilientSocketError', code: 'ERR_RS_CALLBACK_FAILED' });
    expect(errors[0]?.message).toContain('`clock.now()` returned NaN');
    expect(server.sessions.get('s1')).toMatchObject({ connected: true, pending: 1 });
  });

  it('two servers sharing a clock each hear of it', async () => {
    const clock = new BrokenClock();
    const one = fakeServer(cleanup, { clock });
    const two = fakeServer(cleanup, { clock });
    const heard: string[] = [];
    one.server.on('error', () => heard.push('one'));
    two.server.on('error', () => heard.push('two'));
    clock.reading = () => Number.NaN;
    void one.server.send('a', 1).catch(() => {});
    void two.server.send('b', 1).catch(() => {});
    await Promise.resolve();
    expect(heard.sort()).toEqual(['one', 'two']);
  });
});
