/**
 * The core's options validated once, at construction, into a {@link Config} that every socket
 * created alike shares (frozen; a socket holds a pointer instead of a copy). A feature validates
 * its own options in its factory; an option of a feature that is not installed is refused here,
 * naming the factory to import.
 */
import { assertBackoffPolicy } from '../backoff/policy.js';
import { resolveCeiling } from '../backoff/truncated-binary-exponential.js';
import type { BackoffPolicyLike } from '../backoff/types.js';
import { assertClock, type Clock, steadyClock, systemClock } from '../clock.js';
import { ResilientSocketError } from '../errors.js';
import { resolveWebSocket } from '../transports/resolve-websocket.js';
import type { Transport } from '../transports/transport.js';
import type { WebSocketConstructorLike } from '../transports/websocket-like.js';
import {
  assertBoolean,
  assertFunction,
  assertKnownKeys,
  assertNumber,
  assertOneOf,
  assertOptionsObject,
  assertThat,
  inputError,
  rangeError,
  typeError,
  withDefault,
} from '../validation.js';
import { type CloseInfo, defaultShouldReconnect } from './close-codes.js';
import type { Feature } from './feature.js';
import { foreignOption } from './foreign-options.js';
import {
  type BaseSocketOptions,
  CORE_DEFAULTS,
  CORE_NUMBERS,
  CORE_OPTIONS,
  FEATURE_OPTIONS,
  type ProtocolsProvider,
  type QueueOptions,
  type UrlProvider,
} from './options.js';
import { surface } from './report.js';
import { CORE_SLOTS } from './states.js';

/** The validated core options, frozen and shared by sockets created alike. @internal */
export interface Config {
  readonly WebSocket: WebSocketConstructorLike;
  /** A string, our own copy of an array (compared element by element), or a provider. */
  readonly protocols: ProtocolsProvider | undefined;
  /** `T` and `N` of the default backoff; `undefined` when the `backoff` option is given. */
  readonly maxDelay: number | undefined;
  readonly ceiling: number | undefined;
  readonly stableAfter: number;
  readonly connectTimeout: number;
  readonly maxRetries: number;
  readonly shouldReconnect: (close: CloseInfo) => boolean | PromiseLike<boolean>;
  readonly maxMessages: number;
  readonly maxBytes: number;
  /** Above this many bytes buffered, `writable` is false until `drain`. */
  readonly highWaterMark: number;
  readonly clock: Clock;
  readonly unref: boolean;
  /** The features, in rank order. */
  readonly features: readonly Feature[];
  /** Per feature: its first timer slot (the core's slots come first). */
  readonly slotBase: readonly number[];
  /** Per timer slot: the feature that owns it, or -1 for the core's. */
  readonly slotOwner: readonly number[];
  /** How connections listen, and what else the runtime offers (per socket class). */
  readonly transport: Transport;
}

/** What a socket keeps of its options besides the shared config. @internal */
export interface Resolved {
  readonly config: Config;
  /** The `url` argument: a URL string, or a provider. */
  readonly url: UrlProvider;
  readonly autoConnect: boolean;
  /** The `backoff` option's policy; `undefined` for the default (a formula, no object). */
  readonly backoff: BackoffPolicyLike | undefined;
  readonly binaryType: string | undefined;
  /** Per socket (not in the shared config): a header may carry this socket's own token. */
  readonly wsOptions: Record<string, unknown> | undefined;
}

/** The factory whose feature reads `key` (`toString` and the like are no options: own keys only). */
const factoryOf = (key: string): string | undefined =>
  Object.hasOwn(FEATURE_OPTIONS, key) ? FEATURE_OPTIONS[key as keyof typeof FEATURE_OPTIONS] : undefined;

/**
 * A TypeError for `name`, an option of the `factory()` feature: not installed (`ERR_RS_NEEDS_FEATURE`:
 * import it and add it), or installed, and then it takes its options itself (`ERR_RS_UNKNOWN_OPTION`).
 */
function needs(name: string, factory: string, features: readonly Feature[] = []): TypeError {
  const installed = features.some((f) => f.name === factory);
  return inputError(
    TypeError,
    installed ? 'ERR_RS_UNKNOWN_OPTION' : 'ERR_RS_NEEDS_FEATURE',
    name,
    process.env.NODE_ENV !== 'production'
      ? installed
        ? factory === 'unref'
          ? '`unref` is not an option of the socket: unref() in `features` already turns it on'
          : `\`${name}\` is not an option of the socket: give it to the ${factory}() factory itself`
        : `\`${name}\` belongs to the ${factory}() feature: import { ${factory} } from 'resilient-socket/modular' and add ${factory}(…) to \`features\``
      : '',
  );
}

/**
 * A `clock` whose `now()` stopped returning a finite number: said once, as a failure of user code
 * no listener hears (the last good reading stands in; see `steadyClock`).
 */
function badClock(value: unknown): void {
  surface(
    new ResilientSocketError(
      'ERR_RS_CALLBACK_FAILED',
      process.env.NODE_ENV !== 'production'
        ? `\`clock.now()\` returned ${String(value)}; the last finite reading stands in (time stops until it is a number again)`
        : '',
    ),
  );
}

/** The latest config handed out, held weakly: sockets created alike share it while any of them lives. */
let latest: WeakRef<Config> | undefined;

/**
 * Validates the core options and the features, and returns what the socket keeps. Sockets created
 * alike share one frozen config (the memory budget): it is compared with the latest one handed out,
 * value by value (arrays element by element; features by identity, their factories intern them).
 * @throws TypeError / RangeError naming the option; ResilientSocketError `ERR_RS_NO_WEBSOCKET`.
 * @internal
 */
export function resolveOptions(
  url: unknown,
  options: unknown,
  transport: Transport,
  checkTarget?: (url: unknown, protocols: unknown) => ProtocolsProvider | undefined,
): Resolved {
  assertOptionsObject('options', options);
  const o = (options ?? {}) as BaseSocketOptions & Record<string, unknown>;
  const features = resolveFeatures(o.features);
  const owned = features.flatMap((f) => f.options ?? []);
  const known = [...CORE_OPTIONS, ...owned];
  for (const key of Object.keys(o)) {
    const factory = factoryOf(key);
    if (!known.includes(key) && factory) throw needs(key, factory, features);
  }
  assertKnownKeys(
    '',
    o,
    [...known, ...Object.keys(FEATURE_OPTIONS)],
    undefined,
    process.env.NODE_ENV !== 'production' ? foreignOption : undefined,
  );
  for (const feature of features) feature.check?.(o);
  const providers = features.some((f) => f.target);
  const { protocols: given, buffer = {}, backoff, maxDelay, ceiling, binaryType, wsOptions } = o;
  if (typeof url === 'function' && !providers) throw needs('url', 'providers');
  if (typeof given === 'function' && !providers) throw needs('protocols', 'providers');
  // The face checks the URL and subprotocols its own way (`checkTarget`, `./target.ts`; the
  // WebSocket-shaped facade as a WebSocket does, before it gets here): not twice in its bundle.
  const protocols = checkTarget ? checkTarget(url, given) : (given as ProtocolsProvider | undefined);
  if (wsOptions !== undefined) {
    assertOptionsObject('wsOptions', wsOptions);
    transport.checkOptions_(wsOptions);
  }
  // Only `undefined` means "the default" (`null` is refused, as any other wrong type).
  const { autoConnect = CORE_DEFAULTS.autoConnect, shouldReconnect = defaultShouldReconnect, clock = systemClock } = o;
  assertBoolean('autoConnect', autoConnect);
  if (backoff !== undefined && (maxDelay !== undefined || ceiling !== undefined)) {
    throw typeError(
      'backoff',
      process.env.NODE_ENV !== 'production'
        ? '`maxDelay` and `ceiling` configure the default backoff; they cannot be combined with `backoff`'
        : '',
    );
  }
  const numbers: Record<string, unknown> = { ...CORE_DEFAULTS };
  for (const [name, rule] of CORE_NUMBERS) {
    if (o[name] !== undefined) numbers[name] = o[name];
    assertNumber(name, numbers[name], rule);
  }
  // The default backoff's T and N, checked together (a first window under 1 ms is refused); none with `backoff`.
  const defaultMaxDelay = backoff === undefined ? withDefault(maxDelay, CORE_DEFAULTS.maxDelay) : undefined;
  const defaultCeiling = backoff === undefined ? resolveCeiling(defaultMaxDelay, ceiling) : undefined;
  assertFunction('shouldReconnect', shouldReconnect);

  assertThat(
    binaryType === undefined || typeof binaryType === 'string',
    'binaryType',
    process.env.NODE_ENV !== 'production' ? 'a string' : '',
    binaryType,
  );
  assertClock('clock', clock, true);
  assertOptionsObject('buffer', buffer);
  for (const key of Object.keys(buffer)) {
    if (key === 'overflow' || key === 'ttl') throw needs(`buffer.${key}`, 'bufferPolicy', features);
  }
  assertKnownKeys('buffer', buffer, ['maxMessages', 'maxBytes']);
  const { maxMessages = CORE_DEFAULTS.maxMessages, maxBytes = CORE_DEFAULTS.maxBytes } = buffer as QueueOptions;
  assertNumber('buffer.maxMessages', maxMessages, { integer: true, min: 0 });
  assertNumber('buffer.maxBytes', maxBytes, { integer: true, min: 0, allowInfinity: true });
  let policy: BackoffPolicyLike | undefined;
  if (backoff !== undefined) {
    policy = typeof backoff === 'function' ? backoff() : backoff;
    assertBackoffPolicy(typeof backoff === 'function' ? 'backoff()' : 'backoff', policy);
  }
  const slotBase: number[] = [];
  const slotOwner: number[] = Array.from({ length: CORE_SLOTS }, () => -1); // the core's own: no feature's
  features.forEach((feature, me) => {
    slotBase.push(slotOwner.length);
    for (let n = 0; n < (feature.slots ?? 0); n++) slotOwner.push(me);
  });
  let config: Config = {
    protocols,
    // The default backoff's T and N (read by the backoff draw, `./loss.ts`); none when `backoff` is given.
    maxDelay: defaultMaxDelay,
    ceiling: defaultCeiling,
    stableAfter: numbers.stableAfter as number,
    connectTimeout: numbers.connectTimeout as number,
    maxRetries: numbers.maxRetries as number,
    highWaterMark: numbers.highWaterMark as number,
    shouldReconnect,
    maxMessages,
    maxBytes,
    clock: steadyClock(clock, badClock),
    unref: features.some((f) => f.unref),
    features,
    slotBase,
    slotOwner,
    transport,
    // Last: a missing implementation is reported only for otherwise valid options.
    WebSocket: resolveWebSocket(o.WebSocket, transport.preferred_),
  };
  // What the implementation takes (ws's values, or the browser's two): any other would be ignored.
  if (binaryType !== undefined) assertOneOf('binaryType', binaryType, transport.binaryTypes_(config.WebSocket));
  const shared = latest?.deref();
  if (
    shared &&
    (Object.keys(config) as (keyof Config)[]).every((key) => {
      const [a, b] = [config[key] as unknown, shared[key] as unknown];
      return (
        Object.is(a, b) ||
        (Array.isArray(a) && Array.isArray(b) && a.length === b.length && a.every((v, i) => Object.is(v, b[i])))
      );
    })
  ) {
    config = shared;
  } else latest = new WeakRef(Object.freeze(config));
  return { config, url: url as UrlProvider, autoConnect, backoff: policy, binaryType, wsOptions };
}

/** The `features` option: feature objects, each at most once, sorted by rank (the hooks' order). */
function resolveFeatures(value: unknown): readonly Feature[] {
  if (value === undefined) return [];
  assertThat(
    Array.isArray(value),
    'features',
    process.env.NODE_ENV !== 'production' ? 'an array of features' : '',
    value,
  );
  (value as (Partial<Feature> | null)[]).forEach((feature, i) => {
    const ok = typeof feature?.name === 'string' && typeof feature.rank === 'number';
    assertThat(
      ok,
      `features[${i}]`,
      process.env.NODE_ENV !== 'production' ? 'a feature (from heartbeat(), resume(), …)' : '',
      feature,
    );
    if ((value as Feature[]).findIndex((other) => other.name === feature?.name) !== i) {
      throw rangeError(
        'features',
        process.env.NODE_ENV !== 'production'
          ? `Expected \`features\` to have each feature once, got ${feature?.name}() twice`
          : '',
      );
    }
  });
  return [...(value as Feature[])].sort((a, b) => a.rank - b.rank);
}
