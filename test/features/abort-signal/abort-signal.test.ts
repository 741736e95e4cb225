/** The `abortSignal()` feature's check of the `signal` option. */
import { describe, it } from 'vitest';
import { BaseSocket } from '../../../src/core/socket.js';
import { abortSignal } from '../../../src/features/abort-signal/abort-signal.js';
import { expectInputError } from '../../helpers/mode.js';
import { WebSocketImpl } from '../../resilient-socket/helpers.js';

describe('abortSignal(): the `signal` option', () => {
  it.each([
    [{}, 'an object'],
    [5, 'number 5'],
    [null, 'null'],
  ])('a signal that is not an AbortSignal (%o) is a TypeError naming `signal`', (signal, shown) => {
    expectInputError(
      () =>
        new BaseSocket('ws://127.0.0.1:1/', {
          WebSocket: WebSocketImpl,
          autoConnect: false,
          signal: signal as never,
          features: [abortSignal()],
        }),
      TypeError,
      'ERR_RS_INVALID_TYPE',
      'signal',
      `Expected \`signal\` to be an AbortSignal, got ${shown}`,
    );
  });
});
