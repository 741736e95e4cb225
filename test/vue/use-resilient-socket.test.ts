/**
 * The Vue composable on its own (no DOM, no network): sockets of a stand-in class, effect scopes
 * and Vue's reactivity, fake timers for the grace period. What the socket is made with (raw
 * objects, never Vue's proxies), when it is made and let go (a scope stopped, the grace period to
 * the millisecond, a move), what is re-read when a ref changes, and the warning outside any scope.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { effectScope, isProxy, nextTick, reactive, ref, shallowRef } from 'vue';
import type { BaseSocket } from '../../src/core/socket.js';
import { heartbeat } from '../../src/modular.js';
import { composableFor } from '../../src/vue/use-resilient-socket.js';
import { PRODUCTION } from '../helpers/mode.js';

/** A socket as the registry uses it, recording how it was made and whether it was closed. */
class StandIn {
  static made: StandIn[] = [];
  state = 'connecting';
  closed = false;
  readonly sent: unknown[] = [];
  readonly listeners = new Map<string, (payload: unknown) => void>();
  constructor(
    readonly url: unknown,
    readonly options: Record<string, unknown>,
  ) {
    StandIn.made.push(this);
  }
  on(event: string, listener: (payload: unknown) => void): this {
    this.listeners.set(event, listener);
    return this;
  }
  fire(event: string, payload: unknown): void {
    this.listeners.get(event)?.(payload);
  }
  send(data: unknown): string {
    this.sent.push(data);
    return 'buffered';
  }
  close(): void {
    this.closed = true;
  }
}

const useSocket = composableFor(StandIn as unknown as typeof BaseSocket);
const scopes: ReturnType<typeof effectScope>[] = [];

/** Runs `fn` in a new effect scope (stopped after the test). */
function inScope<T>(fn: () => T): [T, ReturnType<typeof effectScope>] {
  const scope = effectScope();
  scopes.push(scope);
  return [scope.run(fn) as T, scope];
}

beforeEach(() => {
  vi.useFakeTimers();
  StandIn.made = [];
});

afterEach(() => {
  for (const scope of scopes.splice(0)) scope.stop();
  vi.runOnlyPendingTimers();
  vi.useRealTimers();
  vi.restoreAllMocks();
});

describe('in an effect scope', () => {
  it('makes the socket at once, shares it, and closes it closeDelay ms after the last scope stopped', () => {
    const [a, first] = inScope(() => useSocket('ws://example.test/feed', { closeDelay: 100 }));
    const [b, second] = inScope(() => useSocket('ws://example.test/feed', { closeDelay: 100 }));
    expect(StandIn.made).toHaveLength(1);
    const socket = StandIn.made[0] as StandIn;
    expect(a.socket.value).toBe(socket);
    expect(b.socket.value).toBe(socket);
    expect(a.state.value).toBe('connecting');
    first.stop();
    vi.advanceTimersByTime(1_000);
    expect(socket.closed).toBe(false); // one user is left
    second.stop();
    expect(b.state.value).toBe('idle');
    expect(b.socket.value).toBeNull();
    vi.advanceTimersByTime(99);
    expect(socket.closed).toBe(false);
    vi.advanceTimersByTime(1);
    expect(socket.closed).toBe(true);
  });

  it('the refs follow the socket: state, lastMessage, lastJsonMessage', () => {
    const [refs] = inScope(() => useSocket('ws://example.test/feed'));
    const socket = StandIn.made[0] as StandIn;
    socket.state = 'open';
    socket.fire('state', { current: 'open' });
    expect(refs.state.value).toBe('open');
    socket.fire('message', '{"price":3}');
    expect(refs.lastMessage.value?.data).toBe('{"price":3}');
    expect(refs.lastJsonMessage.value).toEqual({ price: 3 });
    socket.fire('message', new Uint8Array([1]));
    expect(refs.lastJsonMessage.value).toBeUndefined();
  });

  it('gives the socket raw options, never Vue proxies, and the latest callbacks', () => {
    const feature = heartbeat({ interval: 5_000 });
    const calls: string[] = [];
    const reconnect = (name: string) => () => calls.push(name) > 0;
    const options = ref({
      maxDelay: 1_000,
      features: [feature],
      buffer: { maxMessages: 3 },
      shouldReconnect: reconnect('first'),
    });
    inScope(() => useSocket('ws://example.test/feed', options));
    const made = StandIn.made[0] as StandIn;
    expect(isProxy(made.options.features)).toBe(false);
    expect((made.options.features as unknown[])[0]).toBe(feature);
    expect(isProxy(made.options.buffer)).toBe(false);
    options.value = { ...options.value, shouldReconnect: reconnect('second') };
    return nextTick().then(() => {
      expect(StandIn.made).toHaveLength(1); // the same options by value: the same socket
      (made.options.shouldReconnect as () => boolean)();
      expect(calls).toEqual(['second']);
    });
  });

  it('moves when a ref or a getter changes, not when it gives an equal value', async () => {
    const room = ref('lobby');
    const retries = reactive({ maxDelay: 1_000 });
    inScope(() => useSocket(() => `ws://example.test/${room.value}`, retries));
    expect(StandIn.made.map((s) => s.url)).toEqual(['ws://example.test/lobby']);
    room.value = 'lobby';
    retries.maxDelay = 1_000;
    await nextTick();
    expect(StandIn.made).toHaveLength(1);
    room.value = 'kitchen';
    await nextTick();
    expect(StandIn.made.map((s) => s.url)).toEqual(['ws://example.test/lobby', 'ws://example.test/kitchen']);
    retries.maxDelay = 2_000;
    await nextTick();
    expect(StandIn.made).toHaveLength(3);
    expect(StandIn.made[2]?.options.maxDelay).toBe(2_000);
    vi.advanceTimersByTime(250);
    expect(StandIn.made.map((s) => s.closed)).toEqual([true, true, false]);
  });

  it('a function in a ref is a URL provider; the socket calls the latest one', async () => {
    const withToken = (token: string) => () => `ws://example.test/?token=${token}`;
    const provider = shallowRef(withToken('a'));
    inScope(() => useSocket(provider, { features: [] }));
    const made = StandIn.made[0] as StandIn;
    expect((made.url as () => string)()).toBe('ws://example.test/?token=a');
    provider.value = withToken('b');
    await nextTick();
    expect(StandIn.made).toHaveLength(1); // the same source text: the same socket
    expect((made.url as () => string)()).toBe('ws://example.test/?token=b');
  });
});

describe('outside any effect scope', () => {
  it('makes the socket, and warns once in development builds that nothing lets go of it', () => {
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => undefined);
    const a = useSocket('ws://example.test/feed');
    const b = useSocket('ws://example.test/other');
    expect(a.socket.value).toBe(StandIn.made[0]);
    expect(b.socket.value).toBe(StandIn.made[1]);
    expect(warn.mock.calls).toEqual(
      PRODUCTION ? [] : [[expect.stringMatching(/^resilient-socket\/vue: useResilientSocket\(\) was called outside/)]],
    );
    vi.advanceTimersByTime(10_000);
    expect(StandIn.made.map((s) => s.closed)).toEqual([false, false]);
  });
});
