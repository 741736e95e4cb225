/**
 * Another library's option given to a socket here is answered with its equivalent (a TypeError, as
 * any unknown option): the names of reconnecting-websocket, partysocket, react-use-websocket and
 * sturdy-websocket, on every class that takes socket options. The answer is development text: a
 * production build says the option and `ERR_RS_UNKNOWN_OPTION`.
 */
import { describe, expect, it } from 'vitest';
import { BaseSocket } from '../../src/core/socket.js';
import { ResilientSocket } from '../../src/resilient-socket/resilient-socket.js';
import { ResilientWebSocket as FullResilientWebSocket } from '../../src/resilient-socket/resilient-websocket.js';
import { BaseWebSocket as ResilientWebSocket } from '../../src/websocket/resilient-websocket.js';
import { expectInputError, PRODUCTION } from '../helpers/mode.js';
import { uniqueUrl, WebSocketImpl } from '../resilient-socket/helpers.js';

type Make = (options: Record<string, unknown>) => unknown;
const base = { WebSocket: WebSocketImpl, autoConnect: false };
const CLASSES: [string, Make][] = [
  ['BaseSocket', (o) => new BaseSocket(uniqueUrl(), { ...base, ...o } as never)],
  ['ResilientSocket', (o) => new ResilientSocket(uniqueUrl(), { ...base, ...o } as never)],
  ['ResilientWebSocket', (o) => new ResilientWebSocket(uniqueUrl(), [], { ...base, ...o } as never)],
  ['ResilientWebSocket (main entry)', (o) => new FullResilientWebSocket(uniqueUrl(), [], { ...base, ...o } as never)],
];

/** What each one says, in part: where the name comes from, and what to use here. */
const ANSWERS: [option: string, value: unknown, answer: RegExp][] = [
  ['startClosed', true, /reconnecting-websocket's and partysocket's: here it is `autoConnect: false`/],
  ['maxReconnectionDelay', 10_000, /here it is `maxDelay`/],
  ['minReconnectionDelay', 1_000, /first retry window follows from `maxDelay` and `ceiling`/],
  ['reconnectionDelayGrowFactor', 1.3, /doubles until `ceiling` failures/],
  ['connectionTimeout', 4_000, /here it is `connectTimeout`/],
  ['maxEnqueuedMessages', 10, /here it is `buffer: \{ maxMessages \}`/],
  ['minUptime', 5_000, /here it is `stableAfter`/],
  ['debug', true, /listen to `state`, `reconnecting` and `error`/],
  ['reconnectInterval', 500, /react-use-websocket's: here use `backoff: constant\(\{ delay \}\)`/],
  ['reconnectAttempts', 5, /here it is `maxRetries`/],
  ['onReconnectStop', () => undefined, /the `giveup` event/],
  ['maxReconnectAttempts', 5, /sturdy-websocket's: here it is `maxRetries`/],
  ['room', 'lobby', /partysocket's: here give the whole URL/],
  ['minDelay', 100, /^Unknown option `minDelay`: there is no minimum delay: the first retry window/],
];

describe("another library's option names", () => {
  for (const [name, make] of CLASSES) {
    it.each(ANSWERS)(`${name}: \`%s\` is answered with its equivalent`, (option, value, answer) => {
      const { message } = expectInputError(
        () => make({ [option]: value }),
        TypeError,
        'ERR_RS_UNKNOWN_OPTION',
        option,
        new RegExp(`^Unknown option \`${option}\`: `),
      );
      if (!PRODUCTION) expect(message).toMatch(answer);
      expect(message).not.toMatch(/did you mean|the options are/);
    });
  }

  it('an option of this package that only looks foreign keeps its meaning (maxRetries, protocols, shouldReconnect)', () => {
    for (const [, make] of CLASSES) {
      expect(() => make({ maxRetries: 3, shouldReconnect: () => true })).not.toThrow();
    }
  });
});
