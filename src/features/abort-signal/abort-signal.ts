/**
 * `abortSignal()`: the `signal` option; aborting it does what `close()` does (code 1000, reason
 * `'aborted'`). One listener per signal serves all its sockets (`./link.ts`).
 */
import { type Feature, getData, setData } from '../../core/feature.js';
import { expectedText, isAbortSignal, typeError } from '../../validation.js';
import { type Abortable, linkSignal, unlinkSignal } from './link.js';

const SIGNAL: Feature = {
  name: 'abortSignal',
  rank: 70,
  options: ['signal'],
  check({ signal }) {
    if (signal !== undefined && !isAbortSignal(signal)) {
      throw typeError(
        'signal',
        process.env.NODE_ENV !== 'production' ? expectedText('signal', 'an AbortSignal', signal) : '',
      );
    }
  },
  init(host, index, { signal }) {
    const user = host.socket_ as Abortable;
    // Already aborted: the socket starts closed, without connecting.
    if ((signal as AbortSignal | undefined)?.aborted) user.close(1000, 'aborted');
    else if (signal) {
      setData(host, index, signal);
      linkSignal(signal as AbortSignal, user);
    }
  },
  dispose(host, index) {
    const signal = getData(host, index) as AbortSignal | undefined;
    if (signal) unlinkSignal(signal, host.socket_ as Abortable);
    setData(host, index, undefined);
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
