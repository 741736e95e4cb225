/**
 * What TestWsServer needs from the network and the clock: a listener on 127.0.0.1 that survives a
 * restart on the same port, and bounded waits in real time.
 * @internal
 */
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { realClearTimeout, realSetTimeout } from './timing.js';

/** Listens on 127.0.0.1:`port`, retrying briefly if the port is momentarily busy (restart). */
export async function listen(http: Server, port: number): Promise<number> {
  const deadline = performance.now() + 2_000;
  for (;;) {
    try {
      await new Promise<void>((resolve, reject) => {
        const onError = (error: Error): void => reject(error);
        http.once('error', onError);
        http.listen({ host: '127.0.0.1', port }, () => {
          http.off('error', onError);
          resolve();
        });
      });
      return (http.address() as AddressInfo).port;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EADDRINUSE' || performance.now() > deadline) throw error;
      await new Promise((resolve) => realSetTimeout(resolve, 20));
    }
  }
}

/** `promise`, or a rejection naming `what` after `ms` of real time. */
export function withTimeout<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  // Real timers, like the rest of the kit: fake timers in the test cannot hold start() or stop().
  let timer: ReturnType<typeof realSetTimeout> | undefined;
  return Promise.race([
    promise,
    new Promise<never>((_resolve, reject) => {
      timer = realSetTimeout(() => reject(new Error(`timed out after ${ms} ms: ${what}`)), ms);
    }),
  ]).finally(() => realClearTimeout(timer));
}
