/**
 * The order of the feature hooks (src/core/feature.ts), with a feature that records every hook call:
 * relative to each other and to the socket's events over a whole cycle (the table in feature.ts's
 * header and the one in events.ts), when an attempt fails before it opens, and across features by
 * rank.
 */
import { describe, expect, it, vi } from 'vitest';
import { advance, MOCK_DELAY, startServer, uniqueUrl } from '../resilient-socket/helpers.js';
import { base, logEvents, recorder, setUpFeatureSockets, take } from './helpers.js';

setUpFeatureSockets();

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
