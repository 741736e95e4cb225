/**
 * The feature seam (src/core/feature.ts): custom features that record every hook call, on a
 * BaseSocket over mock-socket under fake timers. The order of the hooks relative to each other
 * and to the socket's events (the table in feature.ts's header and the one in events.ts), rank
 * order, what a truthy hook result does (consume, gate, refuse, hold), feature timer slots, and
 * how equal features and equal options share one object and one config.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { clearTimer, type Feature, type Host, hasTimer, type Loss, setTimer } from '../../src/core/feature.js';
import { resolveOptions } from '../../src/core/resolve.js';
import { BaseSocket } from '../../src/core/socket.js';
import type { SocketState } from '../../src/core/states.js';
import type { Data } from '../../src/data.js';
import { bufferPolicy } from '../../src/features/buffer-policy/buffer-policy.js';
import { handshake } from '../../src/features/handshake/handshake.js';
import { heartbeat } from '../../src/features/heartbeat/heartbeat.js';
import { resume } from '../../src/features/resume/resume.js';
import { stats } from '../../src/features/stats/stats.js';
import { upgradeRejection } from '../../src/features/upgrade-rejection/upgrade-rejection.js';
import type { ResilientSocket } from '../../src/node.js';
import { browserTransport } from '../../src/transports/browser.js';
import { advance, cleanup, MOCK_DELAY, record, startServer, uniqueUrl, WebSocketImpl } from '../full/helpers.js';

const sockets = new Set<BaseSocket>();

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(async () => {
  for (const socket of sockets) socket.close();
  sockets.clear();
  await cleanup();
});

/** A BaseSocket on mock-socket, closed after the test. */
function base(url: string, options: ConstructorParameters<typeof BaseSocket>[1] = {}): BaseSocket {
  const socket = new BaseSocket(url, { WebSocket: WebSocketImpl, ...options });
  sockets.add(socket);
  return socket;
}

/** What a recording feature may do besides recording (each returns the hook's result). */
interface Behaviour {
  slots?: number;
  message?: (m: Host, me: number, data: Data) => boolean;
  gate?: (m: Host, me: number) => PromiseLike<unknown> | undefined;
  admit?: (m: Host, me: number, bytes: number) => 'dropped' | undefined;
  hold?: (m: Host, me: number) => boolean;
  open?: (m: Host, me: number) => void;
  timer?: (m: Host, me: number, local: number) => void;
}

/** A feature that logs `<tag>.<hook>[:detail]` for every hook call into `log`, with the host and `me` it was given. */
function recorder(tag: string, rank: number, log: string[], behaviour: Behaviour = {}) {
  const seen: { hosts: Set<Host>; me: Set<number> } = { hosts: new Set(), me: new Set() };
  const note = (m: Host, me: number, entry: string): void => {
    seen.hosts.add(m);
    seen.me.add(me);
    log.push(`${tag}.${entry}`);
  };
  const feature: Feature = {
    name: `recorder-${tag}`,
    rank,
    ...(behaviour.slots === undefined ? {} : { slots: behaviour.slots }),
    check() {
      log.push(`${tag}.check`);
    },
    init(m, me) {
      note(m, me, 'init');
    },
    target(m, me) {
      note(m, me, 'target');
      return undefined;
    },
    gate(m, me, attempt) {
      note(m, me, `gate:#${attempt.number}`);
      return behaviour.gate?.(m, me);
    },
    flush(m, me) {
      note(m, me, 'flush');
    },
    open(m, me, attempt) {
      note(m, me, `open:#${attempt.number}`);
      behaviour.open?.(m, me);
    },
    message(m, me, _attempt, data) {
      note(m, me, `message:${String(data)}`);
      return behaviour.message?.(m, me, data) ?? false;
    },
    deliver(m, me, data) {
      note(m, me, `deliver:${String(data)}`);
    },
    pong(m, me) {
      note(m, me, 'pong');
    },
    lost(m, me, loss: Loss) {
      note(m, me, `lost:#${loss.attempt}${loss.close ? ` close ${loss.close.code}` : ''}`);
    },
    hold(m, me) {
      note(m, me, 'hold');
      return behaviour.hold?.(m, me) ?? false;
    },
    state(m, me, previous: SocketState, next: SocketState) {
      note(m, me, `state:${previous}→${next}`);
    },
    admit(m, me, bytes) {
      note(m, me, `admit:${bytes}`);
      return behaviour.admit?.(m, me, bytes);
    },
    timer(m, me, local) {
      note(m, me, `timer:${local}`);
      behaviour.timer?.(m, me, local);
    },
    end(m, me, attempt) {
      note(m, me, `end:#${attempt.number}`);
    },
    dispose(m, me) {
      note(m, me, 'dispose');
    },
  };
  return { feature, seen };
}

/** Logs the socket's events into the same log, as `event:<name>[:detail]`. */
function logEvents(socket: BaseSocket, log: string[]): void {
  socket.on('state', ({ previous, current }) => log.push(`event:state:${previous}→${current}`));
  socket.on('connecting', ({ attempt }) => log.push(`event:connecting:#${attempt}`));
  socket.on('open', ({ attempt }) => log.push(`event:open:#${attempt}`));
  socket.on('message', (data) => log.push(`event:message:${String(data)}`));
  socket.on('close', ({ code }) => log.push(`event:close:${code}`));
  socket.on('reconnecting', ({ attempt }) => log.push(`event:reconnecting:#${attempt}`));
  socket.on('stable', () => log.push('event:stable'));
  socket.on('error', (error) => log.push(`event:error:${error.code}`));
  socket.on('giveup', () => log.push('event:giveup'));
  socket.on('drop', ({ reason }) => log.push(`event:drop:${reason}`));
}

/** Takes everything logged so far (and empties the log). */
const take = (log: string[]): string[] => log.splice(0);

/** Asserts `a` comes before `b` in `log` (both present). */
function expectBefore(log: readonly string[], a: string, b: string): void {
  expect(log, `${a} is logged`).toContain(a);
  expect(log, `${b} is logged`).toContain(b);
  expect(log.indexOf(a), `${a} before ${b} in ${JSON.stringify(log)}`).toBeLessThan(log.indexOf(b));
}

describe('the hooks over one cycle', () => {
  it('construct, connect, open, a message, a server close, the retry, open again, close()', async () => {
    const log: string[] = [];
    const server = startServer();
    const { feature, seen } = recorder('r', 50, log);
    // A constant wait keeps the timing exact; `stableAfter` out of the way.
    const socket = base(server.url, { autoConnect: false, features: [feature], maxDelay: 100, ceiling: 1 });
    logEvents(socket, log);
    expect(take(log), 'construction').toEqual(['r.check', 'r.init']);

    socket.open();
    // The target hook runs at once (a sync provider is called inside open()); the WebSocket and
    // `connecting` come after open() returned.
    expect(take(log), 'open(): the state hook runs before the state event, then the target').toEqual([
      'r.state:idle→connecting',
      'event:state:idle→connecting',
      'r.target',
    ]);
    await advance(0);
    expect(take(log), 'then `connecting`').toEqual(['event:connecting:#1']);

    await advance(MOCK_DELAY);
    expect(take(log), 'the open').toEqual([
      'r.gate:#1',
      'r.flush',
      'r.state:connecting→open',
      'event:state:connecting→open',
      'r.open:#1',
      'event:open:#1',
    ]);

    server.broadcast('hello');
    await advance(0);
    expect(take(log), 'a message').toEqual(['r.message:hello', 'r.deliver:hello', 'event:message:hello']);

    const random = vi.spyOn(Math, 'random').mockReturnValue(0.5); // a wait of 50 ms
    server.closeLast(1011, 'restart');
    await advance(MOCK_DELAY);
    random.mockRestore();
    expect(take(log), 'the server closes').toEqual([
      'r.end:#1',
      'r.lost:#1 close 1011',
      'r.hold',
      'r.state:open→reconnecting',
      'event:state:open→reconnecting',
      'event:close:1011',
      'event:reconnecting:#2',
    ]);

    await advance(49);
    expect(take(log)).toEqual([]);
    await advance(1);
    expect(take(log), 'the retry is due').toEqual([
      'r.hold',
      'r.state:reconnecting→connecting',
      'event:state:reconnecting→connecting',
      'r.target',
      'event:connecting:#2',
    ]);
    await advance(MOCK_DELAY);
    expect(take(log), 'open again').toEqual([
      'r.gate:#2',
      'r.flush',
      'r.state:connecting→open',
      'event:state:connecting→open',
      'r.open:#2',
      'event:open:#2',
    ]);

    socket.close();
    expect(take(log), 'close(): dispose, the attempt ends, closing').toEqual([
      'r.dispose',
      'r.end:#2',
      'r.state:open→closing',
      'event:state:open→closing',
    ]);
    await advance(MOCK_DELAY);
    expect(take(log), 'the server answered').toEqual([
      'r.state:closing→closed',
      'event:state:closing→closed',
      'event:close:1000',
    ]);
    await advance(10_000);
    expect(take(log), 'nothing after').toEqual([]);
    expect(vi.getTimerCount()).toBe(0);

    // Every hook was given this socket's host and the feature's position (0: the only feature).
    expect([...seen.me]).toEqual([0]);
    expect(seen.hosts.size).toBe(1);
    const [host] = seen.hosts;
    expect(host?.socket_).toBe(socket);
  });

  it('documented relations: state hook < state event; flush < open hook < open event; message < deliver < message event; lost < → reconnecting', async () => {
    const log: string[] = [];
    const server = startServer();
    const { feature } = recorder('r', 50, log);
    const socket = base(server.url, { autoConnect: false, features: [feature], maxDelay: 100, ceiling: 1 });
    logEvents(socket, log);
    socket.open();
    await advance(MOCK_DELAY);
    server.broadcast('m');
    server.closeLast(1011);
    await advance(MOCK_DELAY);
    expectBefore(log, 'r.state:idle→connecting', 'event:state:idle→connecting');
    expectBefore(log, 'r.state:connecting→open', 'event:state:connecting→open');
    expectBefore(log, 'r.flush', 'r.open:#1');
    expectBefore(log, 'r.open:#1', 'event:open:#1');
    expectBefore(log, 'r.message:m', 'r.deliver:m');
    expectBefore(log, 'r.deliver:m', 'event:message:m');
    expectBefore(log, 'r.lost:#1 close 1011', 'event:state:open→reconnecting');
    expectBefore(log, 'r.end:#1', 'r.lost:#1 close 1011');
  });

  it('`end` when an attempt fails before it opens (no gate, no open hook)', async () => {
    const log: string[] = [];
    const { feature } = recorder('r', 50, log);
    const socket = base(uniqueUrl(), { autoConnect: false, features: [feature], maxDelay: 60_000, ceiling: 1 });
    logEvents(socket, log);
    take(log);
    socket.open();
    await advance(MOCK_DELAY); // no server: the attempt fails
    expect(log).toEqual([
      'r.state:idle→connecting',
      'event:state:idle→connecting',
      'r.target',
      'event:connecting:#1',
      'r.end:#1',
      'r.lost:#1 close 1000',
      'r.hold',
      'r.state:connecting→reconnecting',
      'event:state:connecting→reconnecting',
      'event:error:ERR_RS_CONNECTION_FAILED',
      'event:close:1000',
      'event:reconnecting:#2',
    ]);
  });
});

describe('rank order', () => {
  it('features given with ranks 50 then 10 run rank 10 first, for every hook; `me` is the rank position', async () => {
    const log: string[] = [];
    const server = startServer();
    const late = recorder('late', 50, log);
    const early = recorder('early', 10, log);
    const socket = base(server.url, { autoConnect: false, features: [late.feature, early.feature] });
    socket.open();
    await advance(MOCK_DELAY);
    server.broadcast('x');
    socket.close();
    await advance(MOCK_DELAY);
    const hooks = log.map((entry) => entry.slice(entry.indexOf('.') + 1));
    // Every hook call comes in pairs: early, then late, with the same hook and detail.
    expect(log.length % 2).toBe(0);
    for (let i = 0; i < log.length; i += 2) {
      expect(log[i], `call ${i}: ${JSON.stringify(log)}`).toMatch(/^early\./);
      expect(log[i + 1]).toMatch(/^late\./);
      expect(hooks[i + 1]).toBe(hooks[i]);
    }
    expect(hooks.filter((_, i) => i % 2 === 0)).toEqual([
      'check',
      'init',
      'state:idle→connecting',
      'target',
      'gate:#1',
      'flush',
      'state:connecting→open',
      'open:#1',
      'message:x',
      'deliver:x',
      'dispose',
      'end:#1',
      'state:open→closing',
      'state:closing→closed',
    ]);
    expect([...early.seen.me]).toEqual([0]);
    expect([...late.seen.me]).toEqual([1]);
  });
});

describe('what a hook result does', () => {
  it('a `message` hook returning true consumes the message: no deliver, no `message` event, no later `message` hook', async () => {
    const log: string[] = [];
    const server = startServer();
    const consumer = recorder('first', 10, log, { message: (_m, _me, data) => data === 'pong' });
    const after = recorder('second', 20, log);
    const socket = base(server.url, { features: [after.feature, consumer.feature] });
    const events = record(socket as ResilientSocket);
    await advance(MOCK_DELAY);
    take(log);
    server.broadcast('pong');
    server.broadcast('data');
    await advance(0);
    expect(log).toEqual([
      'first.message:pong',
      'first.message:data',
      'second.message:data',
      'first.deliver:data',
      'second.deliver:data',
    ]);
    expect(events.of('message')).toEqual(['data']);
  });

  it('a `gate` returning a promise holds `open` until it resolves', async () => {
    const log: string[] = [];
    const server = startServer();
    let pass: () => void = () => undefined;
    const gate = new Promise<void>((resolve) => {
      pass = resolve;
    });
    const { feature } = recorder('g', 10, log, { gate: () => gate });
    const later = recorder('l', 20, log);
    const socket = base(server.url, { features: [feature, later.feature] });
    logEvents(socket, log);
    expect(socket.send('queued')).toBe('buffered');
    await advance(MOCK_DELAY);
    take(log);
    await advance(5_000);
    expect(socket.state).toBe('connecting');
    expect(server.clients).toHaveLength(1); // the transport is open: only the gate holds it
    expect(server.received).toEqual([]); // the queue is not flushed while the gate holds
    expect(log).toEqual([]);
    // The later feature's gate is asked once the first has passed (gates hold the open in turn).
    pass();
    await advance(0);
    expect(socket.state).toBe('open');
    expect(take(log)).toEqual([
      'l.gate:#1',
      'g.flush',
      'l.flush',
      'g.state:connecting→open',
      'l.state:connecting→open',
      'event:state:connecting→open',
      'g.open:#1',
      'l.open:#1',
      'event:open:#1',
    ]);
    await advance(MOCK_DELAY);
    expect(server.received).toEqual(['queued']);
  });

  it('gates hold the open in turn: the second waits for the first, the open waits for both', async () => {
    const log: string[] = [];
    const server = startServer();
    const passes: (() => void)[] = [];
    const holding = () =>
      new Promise<void>((resolve) => {
        passes.push(resolve);
      });
    const first = recorder('a', 10, log, { gate: holding });
    const second = recorder('b', 20, log, { gate: holding });
    const socket = base(server.url, { features: [first.feature, second.feature] });
    await advance(MOCK_DELAY);
    expect(log.filter((e) => e.includes('gate'))).toEqual(['a.gate:#1']);
    passes[0]?.();
    await advance(0);
    expect(log.filter((e) => e.includes('gate'))).toEqual(['a.gate:#1', 'b.gate:#1']);
    expect(socket.state).toBe('connecting');
    passes[1]?.();
    await advance(0);
    expect(socket.state).toBe('open');
  });

  it('a `gate` holds: the later feature is not asked while the first gate is pending', async () => {
    const log: string[] = [];
    const server = startServer();
    const { feature } = recorder('g', 10, log, { gate: () => new Promise(() => undefined) });
    const later = recorder('l', 20, log);
    base(server.url, { features: [feature, later.feature] });
    await advance(MOCK_DELAY);
    expect(log.filter((e) => e.includes('gate'))).toEqual(['g.gate:#1']);
  });

  it("an `admit` hook returning 'dropped' makes send() return 'dropped' with a `drop` event, reason 'overflow'", () => {
    const log: string[] = [];
    const { feature } = recorder('a', 10, log, { admit: (_m, _me, bytes) => (bytes > 3 ? 'dropped' : undefined) });
    const socket = base(uniqueUrl(), { autoConnect: false, features: [feature] });
    const events = record(socket as ResilientSocket);
    expect(socket.send('abc')).toBe('buffered');
    expect(socket.send('abcd')).toBe('dropped');
    expect(socket.bufferedCount).toBe(1);
    expect(log.filter((e) => e.startsWith('a.admit'))).toEqual(['a.admit:3', 'a.admit:4']);
    expect(events.of('drop')).toEqual([{ reason: 'overflow', messages: ['abcd'] }]);
  });

  it('`hold` returning true when a retry is due keeps it from starting; the feature starts it later', async () => {
    const log: string[] = [];
    const server = startServer();
    let offline = false;
    let host: Host | undefined;
    const { feature } = recorder('h', 10, log, {
      hold: (m) => {
        host = m;
        return offline;
      },
    });
    const socket = base(server.url, { features: [feature], maxDelay: 100, ceiling: 1 });
    await advance(MOCK_DELAY);
    const events = record(socket as ResilientSocket);
    server.closeLast(1011);
    await advance(MOCK_DELAY);
    expect(socket.state).toBe('reconnecting'); // decided: retry (hold said no then)
    const [{ delay } = { delay: -1 }] = events.of('reconnecting');
    offline = true; // the network goes away during the wait
    await advance(Math.ceil(delay) + 1_000);
    expect(socket.state).toBe('reconnecting');
    expect(events.of('connecting')).toEqual([]);
    expect(server.clients).toHaveLength(1);
    expect(vi.getTimerCount()).toBe(0); // nothing armed: the feature retries when it sees fit
    offline = false;
    host?.startAttempt_('back online');
    expect(socket.state).toBe('connecting');
    await advance(MOCK_DELAY);
    expect(socket.state).toBe('open');
    expect(server.clients).toHaveLength(2);
  });

  it('`hold` returning true when the loss is decided: wait for the network (no delay drawn, no `reconnecting`)', async () => {
    const log: string[] = [];
    const server = startServer();
    let offline = false;
    const { feature } = recorder('h', 10, log, { hold: () => offline });
    const socket = base(server.url, { features: [feature] });
    await advance(MOCK_DELAY);
    const events = record(socket as ResilientSocket);
    offline = true;
    server.closeLast(1011);
    await advance(MOCK_DELAY);
    expect(events.of('state')).toEqual([
      { previous: 'open', current: 'reconnecting', reason: 'offline: waiting for the network' },
    ]);
    expect(events.of('reconnecting')).toEqual([]);
    expect(vi.getTimerCount()).toBe(0);
  });
});

describe('feature timers', () => {
  it('`setTimer_(me, local, ms)` fires the `timer` hook of that feature with its local slot', async () => {
    const log: string[] = [];
    const server = startServer();
    // Two features with slots: their slots follow the core's; each sees its own local numbers.
    const a = recorder('a', 10, log, {
      slots: 2,
      open: (m, me) => {
        setTimer(m, me, 1, 300);
        setTimer(m, me, 0, 500);
      },
    });
    const b = recorder('b', 20, log, { slots: 1, open: (m, me) => setTimer(m, me, 0, 100) });
    base(server.url, { features: [b.feature, a.feature] });
    await advance(MOCK_DELAY);
    const timers = () => log.filter((e) => e.includes('.timer'));
    await advance(99);
    expect(timers()).toEqual([]);
    await advance(1);
    expect(timers()).toEqual(['b.timer:0']);
    await advance(200);
    expect(timers()).toEqual(['b.timer:0', 'a.timer:1']);
    await advance(200);
    expect(timers()).toEqual(['b.timer:0', 'a.timer:1', 'a.timer:0']);
    await advance(5_000);
    expect(timers()).toHaveLength(3); // each fired once
  });

  it('hasTimer_ and clearTimer_ work on the local slot', async () => {
    const log: string[] = [];
    const server = startServer();
    let host: Host | undefined;
    const { feature } = recorder('t', 10, log, {
      slots: 1,
      open: (m, me) => {
        host = m;
        setTimer(m, me, 0, 100);
      },
    });
    base(server.url, { features: [feature] });
    await advance(MOCK_DELAY);
    expect(hasTimer(host as Host, 0, 0)).toBe(true);
    clearTimer(host as Host, 0, 0);
    expect(hasTimer(host as Host, 0, 0)).toBe(false);
    await advance(1_000);
    expect(log.filter((e) => e.includes('.timer'))).toEqual([]);
  });

  it('close() clears feature timers: the hook never fires, no timer is left, and none can be armed after', async () => {
    const log: string[] = [];
    const server = startServer();
    let host: Host | undefined;
    const { feature } = recorder('t', 10, log, {
      slots: 1,
      open: (m, me) => {
        host = m;
        setTimer(m, me, 0, 1_000);
      },
    });
    const socket = base(server.url, { features: [feature], stableAfter: 0 });
    await advance(MOCK_DELAY);
    expect(hasTimer(host as Host, 0, 0)).toBe(true);
    socket.close();
    expect(hasTimer(host as Host, 0, 0)).toBe(false);
    setTimer(host as Host, 0, 0, 10);
    expect(hasTimer(host as Host, 0, 0)).toBe(false);
    await advance(MOCK_DELAY);
    expect(vi.getTimerCount()).toBe(0);
    await advance(5_000);
    expect(log.filter((e) => e.includes('.timer'))).toEqual([]);
  });
});

describe('interning and shared configs', () => {
  it('heartbeat({ interval: 5000 }) twice is the same object; other options another', () => {
    const a = heartbeat({ interval: 5_000 });
    const b = heartbeat({ interval: 5_000 });
    expect(b).toBe(a);
    const c = heartbeat({ interval: 6_000 });
    expect(c).not.toBe(a);
    expect(heartbeat({ interval: 6_000 })).toBe(c);
    expect(heartbeat({ interval: 6_000, timeout: 1_000 })).not.toBe(c);
  });

  it('the same for the other factories with options', () => {
    const hook = () => undefined;
    expect(handshake(hook, { timeout: 1_000 })).toBe(handshake(hook, { timeout: 1_000 }));
    expect(handshake(hook, { timeout: 1_000 })).not.toBe(handshake(() => undefined, { timeout: 1_000 }));
    expect(upgradeRejection({ maxRetryAfter: 1_000 })).toBe(upgradeRejection({ maxRetryAfter: 1_000 }));
    expect(upgradeRejection({ maxRetryAfter: 1_000 })).not.toBe(upgradeRejection({ maxRetryAfter: 2_000 }));
    expect(bufferPolicy({ ttl: 1_000 })).toBe(bufferPolicy({ ttl: 1_000 }));
    expect(bufferPolicy({ ttl: 1_000 })).not.toBe(bufferPolicy({ ttl: 1_000, overflow: 'error' }));
    expect(resume({ probeTimeout: 500 })).toBe(resume({ probeTimeout: 500 }));
    // Given explicitly or by default: the same options, the same object.
    expect(heartbeat({ interval: 30_000 })).toBe(heartbeat());
    expect(stats()).toBe(stats());
  });

  it('resolveOptions: equal options and equal features share one frozen config; different ones do not', () => {
    const options = () => ({
      WebSocket: WebSocketImpl,
      maxRetries: 3,
      features: [heartbeat({ interval: 5_000 }), stats()],
    });
    const first = resolveOptions('ws://localhost:1', options(), browserTransport);
    const second = resolveOptions('ws://localhost:2', options(), browserTransport);
    expect(second.config).toBe(first.config);
    expect(Object.isFrozen(first.config)).toBe(true);
    expect(second.url).toBe('ws://localhost:2'); // per socket, not shared
    const otherFeature = resolveOptions(
      'ws://localhost:1',
      { ...options(), features: [heartbeat({ interval: 6_000 }), stats()] },
      browserTransport,
    );
    expect(otherFeature.config).not.toBe(first.config);
    const otherOption = resolveOptions('ws://localhost:1', { ...options(), maxRetries: 4 }, browserTransport);
    expect(otherOption.config).not.toBe(otherFeature.config);
    // The order the features are given in does not matter (they are sorted by rank).
    const again = resolveOptions('ws://localhost:1', { ...options(), maxRetries: 4 }, browserTransport);
    const reversed = resolveOptions(
      'ws://localhost:1',
      { ...options(), maxRetries: 4, features: [stats(), heartbeat({ interval: 5_000 })] },
      browserTransport,
    );
    expect(reversed.config).toBe(again.config);
  });

  it('sockets created alike share the config their features see (m.config_)', () => {
    const configs: object[] = [];
    const probe: Feature = { name: 'probe', rank: 1, init: (m) => void configs.push(m.config_) };
    const make = (maxRetries: number) =>
      base(uniqueUrl(), { autoConnect: false, maxRetries, features: [probe, heartbeat({ interval: 5_000 })] });
    make(3);
    make(3);
    make(4);
    expect(configs).toHaveLength(3);
    expect(configs[1]).toBe(configs[0]);
    expect(configs[2]).not.toBe(configs[0]);
  });
});
