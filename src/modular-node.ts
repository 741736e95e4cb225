/**
 * The Node entry point of `resilient-socket/modular` (selected by the `node` export condition):
 * the same, except that `BaseSocket` uses the ws transport, finding the `ws` package the way the
 * main entry does (see `./node.ts`).
 * @packageDocumentation
 */
import { BaseSocket as BrowserBaseSocket } from './core/socket.js';
import type { Transport } from './transports/transport.js';
import { wsTransport } from './transports/ws/index.js';

export * from './modular.js';

/** {@inheritDoc BrowserBaseSocket} */
export class BaseSocket extends BrowserBaseSocket {
  /** `'BaseSocket'`, the name this class is imported by. */
  static override readonly name: string = 'BaseSocket';
  /** @internal */
  protected static override transport: Transport = wsTransport;
}
