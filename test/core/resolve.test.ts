/**
 * What every socket class resolves through the core's options (`src/core/resolve.ts`): the default
 * backoff's `maxDelay` and `ceiling`, checked together so that no configuration makes a socket retry
 * in a hot loop. `BaseSocket`, `ResilientSocket`, both `ResilientWebSocket`s and `SharedSocket` are
 * made here with the options alone (no connection is attempted: `autoConnect: false`).
 */
import { afterEach, describe, expect, it } from 'vitest';
import { BaseSocket } from '../../src/core/socket.js';
import { ResilientSocket, ResilientWebSocket } from '../../src/node.js';
import { SharedSocket } from '../../src/shared-node.js';
import { ResilientWebSocket as CoreResilientWebSocket } from '../../src/websocket-node.js';
import { expectInputError, rethrow } from '../helpers/mode.js';
import { WebSocketImpl } from '../resilient-socket/helpers.js';

const URL = 'ws://127.0.0.1:9/feed';

/** A SharedSocket's tab plumbing that never elects anyone (construction is all that is tested). */
const locks = { request: () => new Promise<never>(() => undefined) };
class QuietChannel {
  onmessage = null;
  postMessage(): void {}
  close(): void {}
}

type Options = Record<string, unknown>;
const made: { close(): void }[] = [];

const CLASSES: [name: string, make: (options: Options) => { close(): void }][] = [
  ['BaseSocket', (o) => new BaseSocket(URL, { WebSocket: WebSocketImpl, autoConnect: false, ...o } as never)],
  ['ResilientSocket', (o) => new ResilientSocket(URL, { WebSocket: WebSocketImpl, autoConnect: false, ...o } as never)],
  [
    'ResilientWebSocket (main entry)',
    (o) => new ResilientWebSocket(URL, [], { WebSocket: WebSocketImpl, autoConnect: false, ...o } as never),
  ],
  [
    'ResilientWebSocket (resilient-socket/websocket)',
    (o) => new CoreResilientWebSocket(URL, [], { WebSocket: WebSocketImpl, autoConnect: false, ...o } as never),
  ],
  [
    'SharedSocket',
    (o) =>
      new SharedSocket(URL, {
        WebSocket: WebSocketImpl,
        autoConnect: false,
        locks,
        BroadcastChannel: QuietChannel,
        ...o,
      } as never),
  ],
];

function construct(make: (options: Options) => { close(): void }, options: Options): unknown {
  try {
    made.push(make(options));
  } catch (error) {
    return error;
  }
  return undefined;
}

afterEach(() => {
  for (const socket of made.splice(0)) socket.close();
});

describe.each(CLASSES)('%s: the first retry window is at least 1 ms', (_name, make) => {
  it('refuses a ceiling whose first window maxDelay / 2^(ceiling − 1) is under 1 ms, naming both options and the largest that fits', () => {
    const error = construct(make, { maxDelay: 10_000, ceiling: 30_000 });
    expectInputError(
      rethrow(error),
      RangeError,
      'ERR_RS_INVALID_VALUE',
      'ceiling',
      'Expected `ceiling` to be at most 14 with `maxDelay` 10000 (the first retry window, `maxDelay` / 2^(`ceiling` − 1), must be at least 1 ms), got 30000',
    );
  });

  it('measures the ceiling against the default maxDelay, and against a small one', () => {
    expectInputError(
      rethrow(construct(make, { ceiling: 15 })),
      RangeError,
      'ERR_RS_INVALID_VALUE',
      'ceiling',
      /^Expected `ceiling` to be at most 14 with `maxDelay` 10000 .*, got 15$/,
    );
    expectInputError(
      rethrow(construct(make, { maxDelay: 100, ceiling: 8 })),
      RangeError,
      'ERR_RS_INVALID_VALUE',
      'ceiling',
      /at most 7 with `maxDelay` 100 .*, got 8$/,
    );
  });

  it('refuses a maxDelay under 1 ms (no ceiling fits it)', () => {
    expectInputError(
      rethrow(construct(make, { maxDelay: 0.5 })),
      RangeError,
      'ERR_RS_INVALID_VALUE',
      'maxDelay',
      'Expected `maxDelay` to be a finite number >= 1, got 0.5',
    );
  });

  it('accepts the largest ceiling that fits, and a small maxDelay without a ceiling', () => {
    expect(construct(make, { maxDelay: 10_000, ceiling: 14 })).toBeUndefined();
    expect(construct(make, { maxDelay: 1, ceiling: 1 })).toBeUndefined();
    expect(construct(make, { maxDelay: 100 })).toBeUndefined();
  });
});
