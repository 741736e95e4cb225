/**
 * `asyncIteration()`: `for await (const data of socket)`, over the messages until the socket is
 * `closed`. The iterators are fed before the `message` listeners, so a listener that throws
 * cannot starve them.
 */

import { type Feature, getData, type Host, setData } from '../../core/feature.js';
import { MESSAGES, type Services } from '../../core/services.js';
import type { Data } from '../../data.js';

/** One iterator's end of the pipe. */
interface Sink {
  message(data: Data): void;
  closed(): void;
}

function sinks(host: Host, index: number): Set<Sink> | undefined {
  return getData(host, index) as Set<Sink> | undefined;
}

/** The one feature object (made on first use: a module-level object with a symbol key would stay in every bundle). */
let iteration: (Feature & Pick<Services, typeof MESSAGES>) | undefined;

const make = (): Feature & Pick<Services, typeof MESSAGES> => ({
  name: 'asyncIteration',
  rank: 100,
  deliver(host, index, data) {
    const all = sinks(host, index);
    if (all) for (const sink of all) sink.message(data);
  },
  state(host, index, _previous, next) {
    const all = sinks(host, index);
    if (all && next === 'closed') for (const sink of [...all]) sink.closed();
  },
  [MESSAGES](host, index) {
    const queue: Data[] = [];
    const waiting: ((result: IteratorResult<Data>) => void)[] = [];
    let done = host.state_ === 'closed';
    const sink: Sink = {
      message: (data) => {
        const resolve = waiting.shift();
        if (resolve) resolve({ value: data, done: false });
        else queue.push(data);
      },
      closed: () => finish(),
    };
    const finish = (): void => {
      if (done) return;
      done = true;
      sinks(host, index)?.delete(sink);
      for (const resolve of waiting.splice(0)) resolve({ value: undefined, done: true });
    };
    if (!done) {
      const all = sinks(host, index) ?? new Set<Sink>();
      setData(host, index, all);
      all.add(sink);
    }
    const iterator: AsyncIterableIterator<Data> = {
      next: () => {
        if (queue.length > 0) return Promise.resolve({ value: queue.shift() as Data, done: false });
        if (done) return Promise.resolve({ value: undefined, done: true });
        return new Promise((resolve) => waiting.push(resolve));
      },
      return: () => {
        finish();
        queue.length = 0;
        return Promise.resolve({ value: undefined, done: true });
      },
      [Symbol.asyncIterator]: () => iterator,
    };
    return iterator;
  },
});

/**
 * The `asyncIteration` feature: `for await (const data of socket)`. Without it, iterating throws a
 * TypeError naming this factory.
 * @example
 * ```ts
 * const socket = new BaseSocket(url, { features: [asyncIteration()] });
 * for await (const data of socket) render(data);
 * ```
 */
export function asyncIteration(): Feature {
  iteration ??= make();
  return iteration;
}
