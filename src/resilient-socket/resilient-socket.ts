/**
 * `ResilientSocket`: the core with its features installed, configured by flat options.
 * Everything it does is the core's (`../core/`) and its features' (`../features/`); this file only
 * turns its options into theirs. The two features a program opts into, `handshake` and
 * `delivery`, are given as their factories' values, so that a program without them does not
 * carry their code.
 */
import type { Feature } from '../core/feature.js';
import { foreignOption } from '../core/foreign-options.js';
import { type BaseSocketOptions, FEATURE_OPTIONS, type UrlProvider } from '../core/options.js';
import { BaseSocket } from '../core/socket.js';
import { abortSignal } from '../features/abort-signal/abort-signal.js';
import { asyncIteration } from '../features/async-iteration/async-iteration.js';
import { createHeartbeat } from '../features/heartbeat/heartbeat.js';
import { checkSubprotocols } from '../features/providers/protocols.js';
import { providers } from '../features/providers/providers.js';
import { resume } from '../features/resume/resume.js';
import { stats } from '../features/stats/stats.js';
import { unref } from '../features/unref/unref.js';
import { upgradeRejection } from '../features/upgrade-rejection/upgrade-rejection.js';
import {
  assertBoolean,
  assertKnownKeys,
  assertOptionsObject,
  assertThat,
  inputError,
  withDefault,
} from '../validation.js';
import { optionNames, type ResilientSocketOptions } from './options.js';

/** The options only features take: taken out before the rest goes to the core (`signal` goes on: its feature reads it there). */
const OWN = (key: string): boolean => key !== 'signal' && Object.hasOwn(FEATURE_OPTIONS, key);

/** The value of the option `name`: the feature its factory of the same name made, or a TypeError. */
function featureOf(name: 'handshake' | 'delivery' | 'bufferPolicy', value: unknown): Feature[] {
  if (value === undefined) return [];
  assertThat(
    (value as Feature | null)?.name === name && typeof (value as Feature).rank === 'number',
    name,
    process.env.NODE_ENV !== 'production' ? `${name}(…), imported from 'resilient-socket'` : '',
    value,
  );
  return [value as Feature];
}

/**
 * A WebSocket client that stays connected: `BaseSocket` with its features (heartbeat, resume
 * awareness, refused-upgrade handling, URL and subprotocol providers, abort signal, unref, stats,
 * async iteration, and, when given, a `handshake(…)` hook, a `bufferPolicy(…)` and acknowledged
 * `delivery(…)`) and their options flat on one object. For a smaller browser bundle,
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
 * `ResilientSocket`'s flat options made into the core's options and the features (each installed;
 * `handshake`, `bufferPolicy` and `delivery` when given); `ResilientWebSocket` from the main entry takes them too, except
 * `delivery` (`dropIn`: a WebSocket has no `sendReliable()`).
 * @internal
 */
export function prepareFull(options: unknown, dropIn = false): unknown {
  assertOptionsObject('options', options);
  const o = (options ?? {}) as ResilientSocketOptions & Record<string, unknown>;
  const names = optionNames();
  const named = dropIn ? names.filter((name) => name !== 'delivery') : names;
  // The other libraries' names only feed development messages: none of their table in production.
  assertKnownKeys('', o, named, undefined, process.env.NODE_ENV !== 'production' ? foreignOption : undefined);
  assertOptionsObject('buffer', o.buffer);
  for (const key of ['overflow', 'ttl']) {
    if (o.buffer && Object.hasOwn(o.buffer, key)) {
      throw inputError(
        TypeError,
        'ERR_RS_NEEDS_FEATURE',
        `buffer.${key}`,
        process.env.NODE_ENV !== 'production'
          ? `\`buffer.${key}\` is an option of bufferPolicy(): give \`bufferPolicy: bufferPolicy({ ${key} })\`, imported from 'resilient-socket'`
          : '',
      );
    }
  }
  // The detailed subprotocol messages, in development (the core's own check, the same classes and
  // codes with shorter words, is the one that runs in production).
  if (process.env.NODE_ENV !== 'production' && typeof o.protocols !== 'function') {
    checkSubprotocols('protocols', o.protocols);
  }
  const unrefs = withDefault(o.unref, false);
  assertBoolean('unref', unrefs);
  const features: Feature[] = [
    providers(),
    ...featureOf('handshake', o.handshake),
    // Always there: without its own periodic watch (`heartbeat: false`) it still answers resume probes.
    createHeartbeat(o.heartbeat, o.heartbeat !== undefined),
    ...(o.resume === false ? [] : [resume(o.resume)]),
    upgradeRejection({ maxRetryAfter: o.maxRetryAfter as number }),
    ...featureOf('bufferPolicy', o.bufferPolicy),
    abortSignal(),
    ...(unrefs ? [unref()] : []),
    stats(),
    asyncIteration(),
    ...featureOf('delivery', o.delivery),
  ];
  const core: Record<string, unknown> = { features };
  for (const key of Object.keys(o)) if (!OWN(key)) core[key] = o[key];
  return core;
}
