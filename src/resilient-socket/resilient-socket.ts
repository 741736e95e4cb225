/**
 * `ResilientSocket`: the core with every feature installed, configured by flat options as it
 * always was. Everything it does is the core's (`../core/`) and its features' (`../features/`);
 * this file only turns its options into theirs.
 */
import type { Feature } from '../core/feature.js';
import { foreignOption } from '../core/foreign-options.js';
import type { BaseSocketOptions, UrlProvider } from '../core/options.js';
import { BaseSocket } from '../core/socket.js';
import { abortSignal } from '../features/abort-signal/abort-signal.js';
import { asyncIteration } from '../features/async-iteration/async-iteration.js';
import { bufferPolicy } from '../features/buffer-policy/buffer-policy.js';
import { delivery } from '../features/delivery/delivery.js';
import { handshake } from '../features/handshake/handshake.js';
import { createHeartbeat } from '../features/heartbeat/heartbeat.js';
import { checkSubprotocols } from '../features/providers/protocols.js';
import { providers } from '../features/providers/providers.js';
import { resume } from '../features/resume/resume.js';
import { stats } from '../features/stats/stats.js';
import { unref } from '../features/unref/unref.js';
import { upgradeRejection } from '../features/upgrade-rejection/upgrade-rejection.js';
import { assertBoolean, assertKnownKeys, assertNumber, assertOptionsObject, withDefault } from '../validation.js';
import { OPTION_NAMES, type ResilientSocketOptions } from './options.js';

/** The options only features take, and those of `buffer`: taken out before the rest goes to the core. */
const OWN = ['heartbeat', 'resume', 'handshake', 'handshakeTimeout', 'maxRetryAfter', 'unref', 'buffer', 'delivery'];

/**
 * A WebSocket client that stays connected: `BaseSocket` with every feature (heartbeat, resume
 * awareness, handshake hook, refused-upgrade handling, buffer policies, abort signal, unref,
 * stats, async iteration, and acknowledged delivery with its `delivery` option) and their options
 * flat on one object. For a smaller browser bundle,
 * import `BaseSocket` and only the features you use from `resilient-socket/modular`.
 *
 * @example
 * ```ts
 * const socket = new ResilientSocket('wss://example.test/feed', { maxDelay: 10_000, ceiling: 10 });
 * socket.on('message', (data) => render(data));
 * socket.on('reconnecting', ({ attempt, delay }) => console.log(`retry ${attempt} in ${delay} ms`));
 * socket.send(JSON.stringify({ subscribe: 'prices' })); // queued until the first open
 * ```
 */
export class ResilientSocket extends BaseSocket {
  /** The class's name, whatever a bundler renamed its binding to. */
  static override readonly name: string = 'ResilientSocket';

  /**
   * @param url a `ws:`/`wss:` URL (string or `URL`), or a function (sync or async) returning one,
   *   called before every attempt.
   * @param options see {@link ResilientSocketOptions}; validated here, once.
   * @throws TypeError / RangeError naming the option for bad input; ResilientSocketError
   *   `ERR_RS_NO_WEBSOCKET` when no WebSocket implementation is available.
   */
  constructor(url: UrlProvider, options?: ResilientSocketOptions) {
    super(url, options as BaseSocketOptions);
  }

  /** Flat options → the core's options and the features. @internal */
  protected static override prepare(options: unknown): unknown {
    return prepareFull(options);
  }
}

/**
 * `ResilientSocket`'s flat options made into the core's options and the features (every feature
 * installed, `delivery` when given); `ResilientWebSocket` from the main entry takes them too, except
 * `delivery` (`dropIn`: a WebSocket has no `sendReliable()`).
 * @internal
 */
export function prepareFull(options: unknown, dropIn = false): unknown {
  assertOptionsObject('options', options);
  const o = (options ?? {}) as ResilientSocketOptions & Record<string, unknown>;
  const names = Object.keys(OPTION_NAMES);
  const named = dropIn ? names.filter((name) => name !== 'delivery') : names;
  // The other libraries' names only feed development messages: none of their table in production.
  assertKnownKeys('', o, named, undefined, process.env.NODE_ENV !== 'production' ? foreignOption : undefined);
  const buffer = (o.buffer ?? {}) as Record<string, unknown>;
  assertOptionsObject('buffer', o.buffer);
  assertKnownKeys('buffer', o.buffer, ['maxMessages', 'maxBytes', 'overflow', 'ttl']);
  // The detailed subprotocol messages, in development (the core's own check, the same classes and
  // codes with shorter words, is the one that runs in production).
  if (process.env.NODE_ENV !== 'production' && typeof o.protocols !== 'function') {
    checkSubprotocols('protocols', o.protocols);
  }
  const unrefs = withDefault(o.unref, false);
  assertBoolean('unref', unrefs);
  let hook: Feature[] = [];
  if (o.handshake !== undefined) hook = [handshake(o.handshake, { timeout: o.handshakeTimeout as number })];
  else assertNumber('handshakeTimeout', withDefault(o.handshakeTimeout, 1), { above: 0, allowInfinity: true });
  const features: Feature[] = [
    providers(),
    ...hook,
    // Always there: without its own periodic watch (`heartbeat: false`) it still answers resume probes.
    createHeartbeat(o.heartbeat, o.heartbeat !== undefined),
    ...(o.resume === false ? [] : [resume(o.resume)]),
    upgradeRejection({ maxRetryAfter: o.maxRetryAfter as number }),
    bufferPolicy({ overflow: buffer.overflow as never, ttl: buffer.ttl as number }),
    abortSignal(),
    ...(unrefs ? [unref()] : []),
    stats(),
    asyncIteration(),
    ...(o.delivery === undefined ? [] : [delivery(o.delivery)]),
  ];
  const core: Record<string, unknown> = { features };
  for (const key of Object.keys(o)) if (!OWN.includes(key)) core[key] = o[key];
  if (o.buffer !== undefined) core.buffer = { maxMessages: buffer.maxMessages, maxBytes: buffer.maxBytes };
  return core;
}
