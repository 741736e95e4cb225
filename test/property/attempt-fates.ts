/**
 * Every way a connection attempt can end, as data (a "fate" per attempt), and the scripted
 * WebSocket, URL provider, subprotocols provider and handshake hook that play them out on an
 * injected TestClock. Used by test/property/retry-spacing.test.ts.
 *
 * The WebSocket speaks ws's EventEmitter dialect (`emit`, `ping`, `terminate`), so the socket binds
 * it natively as it binds ws: refused upgrades (HTTP status, Retry-After) and pongs reach it.
 */
import { EventEmitter } from 'node:events';
import fc from 'fast-check';
import { ErrorCodes } from '../../src/errors.js';
import type { TestClock } from '../../src/testing/test-clock.js';

/** When the transport answers, as a fraction of `connectTimeout` (always before it). */
type At = { readonly at: number };

export type Fate =
  /** The connection is refused (ECONNREFUSED): `error`, then `close` 1006, never open. */
  | ({ readonly kind: 'refused' } & At)
  /** Nothing ever answers: the connect timeout ends it. */
  | { readonly kind: 'hang' }
  /** The WebSocket constructor throws (a bad URL for the runtime, a CSP refusal, …). */
  | { readonly kind: 'constructor-throws' }
  /** The WebSocket constructor returns something without the WebSocket API. */
  | { readonly kind: 'not-a-websocket' }
  /** The URL provider throws, rejects after `after` (fraction of connectTimeout), or returns something invalid. */
  | {
      readonly kind: 'url';
      readonly how: 'throws' | 'rejects' | 'invalid';
      readonly after: number;
      readonly value: unknown;
    }
  /** The subprotocols provider throws or returns something invalid. */
  | { readonly kind: 'protocols'; readonly how: 'throws' | 'invalid'; readonly value: unknown }
  /** The server answers the upgrade with an HTTP status instead of 101. */
  | ({ readonly kind: 'upgrade'; readonly status: number; readonly retryAfter: string | undefined } & At)
  /** Opens, then the handshake hook throws, rejects after `after` (fraction of its handshake(…) timeout), or never settles. */
  | ({ readonly kind: 'handshake'; readonly how: 'throws' | 'rejects' | 'hangs'; readonly after: number } & At)
  /** Opens, then the server closes with `code` after `lives` ms. */
  | ({ readonly kind: 'close'; readonly code: number; readonly reason: string; readonly lives: number } & At)
  /** Opens, then never answers a ping: the heartbeat finds it dead. */
  | ({ readonly kind: 'dead-link' } & At)
  /** Opens, then ws reports a protocol error (a bad frame) and the connection closes 1006 after `lives` ms. */
  | ({ readonly kind: 'protocol-error'; readonly lives: number } & At);

/** The close codes the default `shouldReconnect` stops on. */
export const FATAL_CODES: readonly number[] = [1002, 1003, 1007, 1008, 1009, 1010];

/** When the transport answers: spread evenly over [0, 0.9] (fc.double alone is biased to the extremes), the extremes too. */
const atArb = fc.oneof(
  fc.integer({ min: 0, max: 900 }).map((k) => k / 1_000),
  fc.double({ min: 0, max: 0.9, noNaN: true }),
);

/** Any fate, the ones that need a provider or a handshake hook included (see {@link playable}). */
export const fateArb: fc.Arbitrary<Fate> = fc.oneof(
  fc.record({ kind: fc.constant('refused' as const), at: atArb }),
  fc.constant({ kind: 'hang' as const }),
  fc.constant({ kind: 'constructor-throws' as const }),
  fc.constant({ kind: 'not-a-websocket' as const }),
  fc.record({
    kind: fc.constant('url' as const),
    how: fc.constantFrom('throws' as const, 'rejects' as const, 'invalid' as const),
    after: atArb,
    value: fc.constantFrom<unknown>(42, null, 'ftp://x.test/', 'ws://x.test/#fragment', 'not a url', {}),
  }),
  fc.record({
    kind: fc.constant('protocols' as const),
    how: fc.constantFrom('throws' as const, 'invalid' as const),
    value: fc.constantFrom<unknown>(5, ['a b'], ['v1', 'v1'], [''], { v: 1 }),
  }),
  fc.record({
    kind: fc.constant('upgrade' as const),
    at: atArb,
    status: fc.constantFrom(400, 401, 403, 404, 429, 500, 502, 503),
    retryAfter: fc.oneof(fc.constant(undefined), fc.constant('soon'), fc.nat(900).map(String)),
  }),
  fc.record({
    kind: fc.constant('handshake' as const),
    at: atArb,
    how: fc.constantFrom('throws' as const, 'rejects' as const, 'hangs' as const),
    after: atArb,
  }),
  fc.record({
    kind: fc.constant('close' as const),
    at: atArb,
    code: fc.constantFrom(1000, 1001, 1002, 1003, 1006, 1008, 1011, 1012, 1013, 3000, 4000, 4999),
    reason: fc.constantFrom('', 'bye', 'restarting'),
    lives: fc.oneof(fc.nat(50), fc.nat(30_000)),
  }),
  fc.record({ kind: fc.constant('dead-link' as const), at: atArb }),
  fc.record({ kind: fc.constant('protocol-error' as const), at: atArb, lives: fc.nat(5_000) }),
);

/** What a run of the socket has, to play a fate with. */
export interface Stage {
  readonly urlProvider: boolean;
  readonly protocolsProvider: boolean;
  readonly handshake: boolean;
}

/** `fate` as this stage can play it: a provider's or a hook's fate without one is a refused connection. */
export function playable(fate: Fate, stage: Stage): Fate {
  const missing =
    (fate.kind === 'url' && !stage.urlProvider) ||
    (fate.kind === 'protocols' && !stage.protocolsProvider) ||
    (fate.kind === 'handshake' && !stage.handshake);
  return missing ? { kind: 'refused', at: 0.5 } : fate;
}

/** The error the socket reports first for an attempt that ends this way (`undefined`: none of its own). */
export function errorOf(fate: Fate): string | undefined {
  switch (fate.kind) {
    case 'refused':
    case 'constructor-throws':
    case 'not-a-websocket':
    case 'protocol-error':
      return ErrorCodes.CONNECTION_FAILED;
    case 'hang':
      return ErrorCodes.CONNECT_TIMEOUT;
    case 'url':
    case 'protocols':
      return ErrorCodes.PROVIDER_FAILED;
    case 'upgrade':
      return ErrorCodes.UPGRADE_REJECTED;
    case 'handshake':
      return fate.how === 'hangs' ? ErrorCodes.HANDSHAKE_TIMEOUT : ErrorCodes.HANDSHAKE_FAILED;
    case 'dead-link':
      return ErrorCodes.DEAD_LINK;
    case 'close':
      return undefined;
  }
}

/**
 * The scripted side of one run: the fate of each attempt (by the order attempts start), played on
 * `clock` by the WebSocket, the providers and the hook it hands out.
 */
export class Script {
  /** The attempt being played: its index in `fates` (-1 before the first). */
  current = -1;
  /**
   * Calls made more than once for one attempt (a provider or the constructor called again without
   * a new attempt starting: a retry that did not go through the machine's states). The first one
   * also calls `stop` (the socket's close), so that a retry loop with no wait cannot run forever.
   */
  readonly repeated: string[] = [];
  stop: () => void = () => undefined;
  readonly #calls = new Set<string>();

  constructor(
    readonly fates: readonly Fate[],
    readonly clock: TestClock,
    readonly connectTimeout: number,
    readonly handshakeTimeout: number,
  ) {}

  /** The fate of the current attempt (past the script: it hangs). */
  fate(): Fate {
    return this.fates[this.current] ?? { kind: 'hang' };
  }

  /** The URL provider (a URL with a token, or the fate's failure). */
  /** Counts a call of `what` for the current attempt; a second one is a violation (see `repeated`). */
  #call(what: string): void {
    const key = `${what} for attempt ${this.current}`;
    if (!this.#calls.has(key)) {
      this.#calls.add(key);
      return;
    }
    this.repeated.push(key);
    this.stop();
    throw new Error(`called twice: ${key}`);
  }

  url = (): string | Promise<string> => {
    this.#call('url()');
    const fate = this.fate();
    if (fate.kind !== 'url') return 'ws://fake.test/feed?token=secret';
    if (fate.how === 'throws') throw new Error('no token');
    if (fate.how === 'invalid') return fate.value as string;
    return new Promise((_resolve, reject) => {
      this.clock.setTimeout(() => reject(new Error('token service down')), this.#ms(fate.after, this.connectTimeout));
    });
  };

  /** The subprotocols provider. */
  protocols = (): unknown => {
    this.#call('protocols()');
    const fate = this.fate();
    if (fate.kind !== 'protocols') return ['v1'];
    if (fate.how === 'throws') throw new Error('no protocols');
    return fate.value;
  };

  /** The handshake hook. */
  handshake = (): void | Promise<void> => {
    this.#call('handshake');
    const fate = this.fate();
    if (fate.kind !== 'handshake') return;
    if (fate.how === 'throws') throw new Error('auth refused');
    return new Promise((_resolve, reject) => {
      if (fate.how === 'rejects') {
        const ms = this.#ms(fate.after, Math.min(this.handshakeTimeout, 1e9));
        this.clock.setTimeout(() => reject(new Error('auth refused')), ms);
      }
    });
  };

  /** The WebSocket constructor (a plain function: `new` may then return an object of another kind). */
  get WebSocket(): new (
    url: string,
    protocols?: unknown,
    options?: unknown,
  ) => object {
    const script = this;
    return function ScriptedWebSocket(url: string) {
      script.#call('new WebSocket()');
      const fate = script.fate();
      if (fate.kind === 'constructor-throws') throw new SyntaxError(`refused ${url}`);
      if (fate.kind === 'not-a-websocket') return { url };
      return new ScriptedSocket(script, fate);
    } as unknown as new (
      url: string,
    ) => object;
  }

  /** `fraction` of `limit`, in whole ms, below `limit`. */
  #ms(fraction: number, limit: number): number {
    return Math.min(Math.floor(fraction * limit), Math.max(0, Math.ceil(limit) - 1));
  }

  /** Runs `fn` on the clock after `fraction` of the connect timeout. */
  answer(fraction: number, fn: () => void): void {
    this.clock.setTimeout(fn, this.#ms(fraction, this.connectTimeout));
  }
}

/** A WebSocket in ws's dialect whose server does what its fate says. */
class ScriptedSocket extends EventEmitter {
  readyState = 0;
  protocol = '';
  extensions = '';
  binaryType = 'nodebuffer';
  bufferedAmount = 0;
  readonly #fate: Fate;

  constructor(script: Script, fate: Fate) {
    super();
    this.#fate = fate;
    const clock = script.clock;
    switch (fate.kind) {
      case 'refused':
        script.answer(fate.at, () => {
          this.emit('error', Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' }));
          this.#closed(1006, '');
        });
        break;
      case 'upgrade':
        script.answer(fate.at, () => {
          if (this.readyState !== 0) return;
          const headers = fate.retryAfter === undefined ? {} : { 'retry-after': fate.retryAfter };
          this.emit('unexpected-response', {}, { statusCode: fate.status, headers, resume: () => undefined });
        });
        break;
      case 'handshake':
      case 'dead-link':
        script.answer(fate.at, () => this.#open());
        break;
      case 'close':
        script.answer(fate.at, () => {
          if (this.#open()) clock.setTimeout(() => this.#closed(fate.code, fate.reason), fate.lives);
        });
        break;
      case 'protocol-error':
        script.answer(fate.at, () => {
          if (!this.#open()) return;
          clock.setTimeout(() => {
            if (this.readyState !== 1) return;
            this.emit(
              'error',
              Object.assign(new RangeError('Invalid UTF-8 sequence'), { code: 'WS_ERR_INVALID_UTF8' }),
            );
            this.#closed(1006, '');
          }, fate.lives);
        });
        break;
      default: // 'hang': no answer; the other fates never make a socket
    }
  }

  addEventListener(): void {}
  removeEventListener(): void {}
  send(): void {}

  ping(): void {
    if (this.readyState === 1 && this.#fate.kind !== 'dead-link') queueMicrotask(() => this.emit('pong'));
  }

  close(code?: number, reason?: string): void {
    if (this.readyState >= 2) return;
    this.readyState = 2;
    queueMicrotask(() => this.#closed(code ?? 1005, reason ?? ''));
  }

  terminate(): void {
    if (this.readyState === 3) return;
    this.readyState = 2;
    queueMicrotask(() => this.#closed(1006, ''));
  }

  /** Opens, if still connecting; whether it did. */
  #open(): boolean {
    if (this.readyState !== 0) return false;
    this.readyState = 1;
    this.emit('open');
    return true;
  }

  #closed(code: number, reason: string): void {
    if (this.readyState === 3) return;
    this.readyState = 3;
    this.emit('close', code, Buffer.from(reason));
  }
}
