/**
 * `asyncIteration()`: `for await (const data of socket)`, over the messages until the socket is
 * `closed`. The iterators are fed before the `message` listeners, so a listener that throws
 * cannot starve them.
 */

import { type Feature, getData, type Host, setData } from '../../core/feature.js';
import type { Data } from '../../data.js';

/** One iterator's end of the pipe. */
interface Sink {
  message(data: Data): void;
  closed(): void;
}

function sinks(m: Host, me: number): Set<Sink> | undefined {
  return getData(m, me) as Set<Sink> | undefined;
}

const ITERATION: Feature & { iterate(m: Host, me: number): AsyncIterableIterator<Data> } = {
  name: 'asyncIteration',
  rank: 100,
  deliver(m, me, data) {
    const all = sinks(m, me);
    if (all) for (const sink of all) sink.message(data);
  },
  state(m, me, _previous, next) {
    const all = sinks(m, me);
    if (all && next === 'closed') for (const sink of [...all]) sink.closed();
  },
  iterate(m, me) {
    const queue: Data[] = [];
    const waiting: ((result: IteratorResult<Data>) => void)[] = [];
    let done = m.state_ === 'closed';
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
      sinks(m, me)?.delete(sink);
      for (const resolve of waiting.splice(0)) resolve({ value: undefined, done: true });
    };
    if (!done) {
      const all = sinks(m, me) ?? new Set<Sink>();
      setData(m, me, all);
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
};

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
  return ITERATION;
}
