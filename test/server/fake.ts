/**
 * A stand-in `ws` server and connections for the cases a real network cannot stage on demand: a
 * connection whose `bufferedAmount` a test sets, frames delivered synchronously. What each
 * connection was sent is kept, parsed as JSON.
 */
import { EventEmitter } from 'node:events';
import { ReliableServer, type ReliableServerOptions } from '../../src/server/index.js';
import { TestClock } from '../../src/testing/test-clock.js';
import type { Cleanup } from '../helpers/wait.js';

/** One stand-in connection, server side. */
export class FakeSocket extends EventEmitter {
  readyState = 1;
  bufferedAmount = 0;
  readonly sent: { rs?: string; id?: string; data?: unknown }[] = [];
  closedWith: [number | undefined, string | undefined] | 'terminated' | undefined;

  send(data: string | ArrayBuffer | Uint8Array): void {
    this.sent.push(JSON.parse(String(data)));
  }

  close(code?: number, reason?: string): void {
    this.closedWith = [code, reason];
    this.#end();
  }

  terminate(): void {
    this.closedWith = 'terminated';
    this.#end();
  }

  /** Receives a frame from the client (as JSON text). */
  receive(frame: object): void {
    this.emit('message', JSON.stringify(frame), false);
  }

  #end(): void {
    if (this.readyState === 3) return;
    this.readyState = 3;
    this.emit('close');
  }
}

/** A ReliableServer over a stand-in server, with a TestClock; `connect()` makes a new connection. */
export function fakeServer(cleanup: Cleanup, options: ReliableServerOptions = {}) {
  const wss = new EventEmitter();
  const clock = new TestClock();
  const server = cleanup.add(new ReliableServer(wss as never, { clock, ...options }), (s) => s.close());
  return {
    server,
    clock,
    connect(): FakeSocket {
      const socket = new FakeSocket();
      wss.emit('connection', socket);
      return socket;
    },
  };
}
