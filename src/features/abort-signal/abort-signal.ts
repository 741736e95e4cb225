/**
 * `abortSignal()`: the `signal` option; aborting it does what `close()` does (code 1000, reason
 * `'aborted'`). One listener per signal serves all its sockets (`./link.ts`).
 */
import type { Feature } from '../../core/feature.js';
import { describeReceived, isAbortSignal } from '../../validation.js';
import { type Abortable, linkSignal, unlinkSignal } from './link.js';

const SIGNAL: Feature = {
  name: 'abortSignal',
  rank: 70,
  options: ['signal'],
  init(host, socket, me, options) {
    const signal = options.signal;
    if (signal === undefined) return;
    if (!isAbortSignal(signal)) {
      throw new TypeError(`Expected \`signal\` to be an AbortSignal, got ${describeReceived(signal)}`);
    }
    const user = host.user(socket) as Abortable;
    // Already aborted: the socket starts closed, without connecting.
    if (signal.aborted) user.close(1000, 'aborted');
    else {
      host.setData(socket, me, signal);
      linkSignal(signal, user);
    }
  },
  dispose(host, socket, me) {
    const signal = host.data(socket, me) as AbortSignal | undefined;
    if (signal) unlinkSignal(signal, host.user(socket) as Abortable);
    host.setData(socket, me, undefined);
  },
};

/**
 * The `abortSignal` feature: the `signal` option (an `AbortSignal`); aborting it closes the socket.
 * Without it, `signal` is a TypeError naming this factory.
 * @example
 * ```ts
 * const controller = new AbortController();
 * new BaseSocket(url, { signal: controller.signal, features: [abortSignal()] });
 * controller.abort(); // closes it
 * ```
 */
export function abortSignal(): Feature {
  return SIGNAL;
}
