/**
 * Options the socket does not know: a TypeError (`ERR_RS_UNKNOWN_OPTION`) that suggests the closest
 * known option or lists them all (in development), never shows the value, comes before any other
 * check and has no side effect; only own enumerable string keys count, and `wsOptions` (ws's own
 * object) is left alone.
 */
import { describe, expect, it, vi } from 'vitest';
import { constant } from '../../src/backoff/constant.js';
import { bufferPolicy, delivery, handshake, ResilientSocket, type ResilientSocketOptions } from '../../src/node.js';
import { PRODUCTION } from '../helpers/mode.js';
import {
  construct,
  expectUnknownOption,
  trackingWebSocket,
  useFakeTimersAndCleanup,
  WebSocketImpl,
} from './helpers.js';

useFakeTimersAndCleanup();

describe('unknown options', () => {
  it.each<[string, Record<string, unknown>, string]>([
    ['a misspelt option', { maxDelays: 5_000 }, 'Unknown option `maxDelays`: did you mean `maxDelay`?'],
    ['another case', { autoconnect: false }, 'Unknown option `autoconnect`: did you mean `autoConnect`?'],
    ['two letters swapped', { stalbeAfter: 1 }, 'Unknown option `stalbeAfter`: did you mean `stableAfter`?'],
    ['the new option misspelt', { maxRetryAftr: 1 }, 'Unknown option `maxRetryAftr`: did you mean `maxRetryAfter`?'],
    [
      'a heartbeat option',
      { heartbeat: { intervall: 5_000 } },
      'Unknown option `heartbeat.intervall`: did you mean `heartbeat.interval`?',
    ],
    [
      'a buffer option',
      { buffer: { maxMessage: 5 } },
      'Unknown option `buffer.maxMessage`: did you mean `buffer.maxMessages`?',
    ],
    [
      'a resume option',
      { resume: { probeTimout: 1_000 } },
      'Unknown option `resume.probeTimout`: did you mean `resume.probeTimeout`?',
    ],
  ])('%s is a TypeError that suggests the closest one (in development)', (_label, options, message) => {
    expectUnknownOption(() => construct('ws://localhost:1', options), message.split('`')[1] as string, message);
  });

  it('without a close match, lists every option (the new maxRetryAfter included) in development', () => {
    const error = expectUnknownOption(
      () => construct('ws://localhost:1', { retries: 3 }),
      'retries',
      /^Unknown option `retries`: the options are `WebSocket`, `protocols`, /,
    );
    if (!PRODUCTION) {
      for (const name of ['maxRetries', 'maxRetryAfter', 'heartbeat', 'resume', 'clock']) {
        expect(error.message).toContain(`\`${name}\``);
      }
    }
    expectUnknownOption(
      () => construct('ws://localhost:1', { heartbeat: { every: 1 } }),
      'heartbeat.every',
      'Unknown option `heartbeat.every`: the options of `heartbeat` are `interval`, `timeout`, `message`, `isPong`',
    );
  });

  it('quotes a key that is not an identifier, and never shows the value', () => {
    const error = expectUnknownOption(
      () => construct('ws://localhost:1', { 'max delay': 'S3CR3T' }),
      '["max delay"]',
      'Unknown option `["max delay"]`: did you mean `maxDelay`?',
    );
    expect(error.message).not.toContain('S3CR3T');
    const other = expectUnknownOption(
      () => construct('ws://localhost:1', { Authorization: 'Bearer S3CR3T' }),
      'Authorization',
      /^Unknown option `Authorization`: the options are /,
    );
    expect(other.message).not.toContain('S3CR3T');
  });

  it('refuses an unknown key even when its value is undefined, before any other check', () => {
    expectUnknownOption(() => construct('ws://localhost:1', { maxDelays: undefined }), 'maxDelays');
    // both wrong: the unknown key is the likelier cause, and is reported
    expectUnknownOption(() => construct('ws://localhost:1', { ceiling: 'x', maxDelays: 1 }), 'maxDelays');
  });

  it('has no side effect: no timer, no socket', () => {
    const tracking = trackingWebSocket();
    expect(
      () => new ResilientSocket('ws://localhost:1', { WebSocket: tracking.WebSocket, maxDelays: 1 } as never),
    ).toThrow(TypeError);
    expect(vi.getTimerCount()).toBe(0);
    expect(tracking.calls).toEqual([]);
  });

  it('looks only at own enumerable string keys', () => {
    const inherited = Object.create({ maxDelays: 1 }) as Record<string, unknown>;
    expect(() => construct('ws://localhost:1', inherited)).not.toThrow();
    expect(() => construct('ws://localhost:1', { [Symbol('maxDelays')]: 1 })).not.toThrow();
    const hidden = {};
    Object.defineProperty(hidden, 'maxDelays', { value: 1, enumerable: false });
    expect(() => construct('ws://localhost:1', hidden)).not.toThrow();
  });

  it('leaves wsOptions alone: it is ws’s own options object', () => {
    const wsOptions = { perMessageDeflate: false, followRedirects: true, aFutureWsOption: 1 };
    expect(() => construct('ws://localhost:1', { wsOptions })).not.toThrow();
  });

  it('accepts every documented option at once (the compiler checks that none is missing here)', () => {
    const controller = new AbortController();
    const everything: Required<Omit<ResilientSocketOptions, 'backoff'>> = {
      WebSocket: WebSocketImpl,
      protocols: ['v1'],
      wsOptions: { headers: { 'X-Client': 'test' } },
      autoConnect: false,
      maxDelay: 1_000,
      ceiling: 3,
      stableAfter: 0,
      connectTimeout: 1_000,
      maxRetries: 1,
      maxRetryAfter: 1_000,
      shouldReconnect: () => true,
      heartbeat: { interval: 1_000, timeout: 1_000, message: 'ping', isPong: (data) => data === 'pong' },
      buffer: { maxMessages: 1, maxBytes: 10 },
      bufferPolicy: bufferPolicy({ overflow: 'error', ttl: 1 }),
      highWaterMark: 1_024,
      handshake: handshake(() => undefined, { timeout: 1_000 }),
      binaryType: 'arraybuffer',
      signal: controller.signal,
      unref: true,
      resume: { probeTimeout: 1, pauseWhileOffline: false, detectSuspend: false },
      delivery: delivery({ ackTimeout: 1_000, maxAttempts: 3, window: 10, maxPending: 10 }),
      clock: { setTimeout, clearTimeout, now: Date.now },
    };
    expect(() => new ResilientSocket('ws://localhost:1', everything)).not.toThrow();
    const { maxDelay: _maxDelay, ceiling: _ceiling, ...rest } = everything;
    expect(() => new ResilientSocket('ws://localhost:1', { ...rest, backoff: constant() })).not.toThrow();
  });
});
