/**
 * `asyncIteration()`: `for await (const data of socket)`, over the messages until the socket is
 * `closed`. The iterators are fed before the `message` listeners, so a listener that throws
 * cannot starve them.
 */
import type { Data } from '../../data.js';
import type { Feature, Host } from '../../core/feature.js';

/** One iterator's end of the pipe. */
interface Sink {
  message(data: Data): void;
  closed(): void;
}

function sinks(host: Host, socket: object, me: number): Set<Sink> | undefined {
  return host.data(socket, me) as Set<Sink> | undefined;
}

const ITERATION: Feature & { iterate(host: Host, socket: object, me: number): AsyncIterableIterator<Data> } = {
  name: 'asyncIteration',
  rank: 100,
  deliver(host, socket, me, data) {
    const all = sinks(host, socket, me);
    if (all) for (const sink of all) sink.message(data);
  },
  state(host, socket, me, _previous, next) {
    if (next !== 'closed') return;
    const all = sinks(host, socket, me);
    if (all) for (const sink of [...all]) sink.closed();
  },
  iterate(host, socket, me) {
    const queue: Data[] = [];
    const waiting: ((result: IteratorResult<Data>) => void)[] = [];
    let done = host.state(socket) === 'closed';
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
      sinks(host, socket, me)?.delete(sink);
      for (const resolve of waiting.splice(0)) resolve({ value: undefined, done: true });
    };
    if (!done) {
      let all = sinks(host, socket, me);
      if (!all) host.setData(socket, me, (all = new Set()));
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
