/**
 * Records everything a ResilientSocket tells its user (every event, in order, with a timestamp),
 * so integration tests can assert on what the user sees.
 */

import type {
  CloseEventInfo,
  DropInfo,
  GiveUpInfo,
  OpenInfo,
  ReconnectingInfo,
  StateChange,
} from '../../src/core/events.js';
import { EVENT_NAMES as EVENTS, type ResilientSocketEvents } from '../../src/core/events.js';
import type { Data } from '../../src/data.js';
import type { ResilientSocketError } from '../../src/errors.js';
import type { ResilientSocket } from '../../src/node.js';
import { waitFor } from './wait.js';

type EventName = keyof ResilientSocketEvents;

/** One event as the user saw it. */
export interface RecordedEvent {
  readonly name: EventName;
  /** `performance.now()` when it was emitted. */
  readonly at: number;
  readonly payload: unknown;
}

export class SocketRecorder {
  readonly log: RecordedEvent[] = [];

  constructor(socket: ResilientSocket) {
    for (const name of EVENTS) {
      socket.on(name, (...args: unknown[]) => {
        this.log.push({ name, at: performance.now(), payload: args[0] });
      });
    }
  }

  /** The events called `name`, with their timestamps. */
  events(name: EventName): RecordedEvent[] {
    return this.log.filter((e) => e.name === name);
  }

  count(name: EventName): number {
    return this.events(name).length;
  }

  #payloads<T>(name: EventName): T[] {
    return this.events(name).map((e) => e.payload as T);
  }

  get opens(): OpenInfo[] {
    return this.#payloads('open');
  }
  get closes(): CloseEventInfo[] {
    return this.#payloads('close');
  }
  get reconnecting(): ReconnectingInfo[] {
    return this.#payloads('reconnecting');
  }
  get errors(): ResilientSocketError[] {
    return this.#payloads('error');
  }
  get drops(): DropInfo[] {
    return this.#payloads('drop');
  }
  get giveups(): GiveUpInfo[] {
    return this.#payloads('giveup');
  }
  /** The sequence of states entered. */
  get states(): string[] {
    return this.#payloads<StateChange>('state').map((s) => s.current);
  }
  /** Received messages, as text. */
  get messages(): string[] {
    return this.#payloads<Data>('message').map((d) => (typeof d === 'string' ? d : Buffer.from(d as never).toString()));
  }

  /** A compact summary for failure messages. */
  summary(): string[] {
    return this.log
      .filter((e) => e.name !== 'message')
      .map((e) => {
        const p = e.payload as { code?: unknown; message?: unknown } | undefined;
        const shown =
          e.name === 'error' ? `${String(p?.code)} ${String(p?.message)}` : e.name === 'drop' ? '…' : JSON.stringify(p);
        return `${e.at.toFixed(0)} ${e.name} ${shown ?? ''}`;
      });
  }
}

/**
 * The user's `close()` and what it must leave behind: the socket ends up `closed` and the server
 * sees the client go away (no connection left open).
 */
export async function closeAndExpectGone(
  socket: ResilientSocket,
  server: { readonly openClients: number },
  timeoutMs = 1_000,
): Promise<void> {
  socket.close();
  await waitFor(() => socket.state === 'closed', timeoutMs, `socket state 'closed' after close() (is ${socket.state})`);
  await waitFor(() => server.openClients === 0, timeoutMs, 'the server to see the client disconnect', {
    describe: () => ({ openClients: server.openClients }),
  });
}
