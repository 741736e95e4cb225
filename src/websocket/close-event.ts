/**
 * `CloseEvent` where Node has none (Node < 23 has `Event` but no `CloseEvent`): a WebSocket's
 * `close`, with `code`, `reason` and `wasClean` as in browsers, named and tagged `CloseEvent`. Only
 * the Node entries use it (`BaseWebSocket.CloseEvent`), so that browser bundles do not carry it;
 * where the runtime has a `CloseEvent` (Node ≥ 23), that one is used.
 */
import type { CloseEventInit } from './events.js';

/** A `close` event for runtimes with `Event` but no `CloseEvent`. */
export class NodeCloseEvent extends Event {
  /** Named as the class it stands in for (`event.constructor.name`, `String(event)`). */
  static override readonly name: string = 'CloseEvent';
  readonly #code: number;
  readonly #reason: string;
  readonly #wasClean: boolean;

  constructor(type: string, init: CloseEventInit = {}) {
    super(type);
    this.#code = init.code ?? 0;
    this.#reason = init.reason ?? '';
    this.#wasClean = init.wasClean ?? false;
  }

  /** The close code the connection ended with. */
  get code(): number {
    return this.#code;
  }

  /** The close reason. */
  get reason(): string {
    return this.#reason;
  }

  /** Whether the closing handshake finished. */
  get wasClean(): boolean {
    return this.#wasClean;
  }

  get [Symbol.toStringTag](): string {
    return 'CloseEvent';
  }
}
