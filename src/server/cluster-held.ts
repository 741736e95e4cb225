/** A session one process holds on Redis (`./cluster.ts`): the client's connection is there. */
import type { TimerHandle } from '../clock.js';
import { type Budget, type Metered, sessionBytes } from './budget.js';
import type { SessionKeys } from './redis-store.js';
import type { ServerSocket, Session } from './session.js';

/**
 * A message of the outbox this process writes, as the holder: how often, and when last. Its frame
 * stays in Redis (a resend reads it there), so that what a process keeps per message is small
 * whatever the message.
 */
export interface Outgoing {
  attempts: number;
  sentAt: number;
}

/** A session this process holds: the client's connection is here. */
export class Held<S extends ServerSocket> implements Session<S>, Metered {
  socket_: S | undefined;
  /** The outbox, as this process writes it, in order. */
  readonly out_ = new Map<string, Outgoing>();
  /** The client's messages this process handled, oldest first, each with whether its record landed. */
  readonly handled_ = new Map<string, Promise<boolean>>();
  /** Where the client's frames wait their turn: behind the hello, then each behind the one before. */
  queue_: Promise<unknown> = Promise.resolve();
  /**
   * Until the outbox was last read from Redis (the hello's, or a sync's): a message this process
   * is told of meanwhile is written after what was read, so that the outbox goes out in order.
   */
  synced_: Promise<unknown> = Promise.resolve();
  /** This process may have missed being told of a message for it: the outbox is read again. */
  stale_: boolean;
  timer_: TimerHandle | undefined = undefined;
  /** What the session counts against `maxBytes` whatever it holds. */
  readonly fixed_: number;
  /** The client's frames waiting their turn and the outbox's records, as counted in this process. */
  bytes_ = 0;
  /** This process holds it (it counts in the budget until then). */
  holding_ = true;

  constructor(
    readonly id: string,
    readonly keys: SessionKeys,
    socket: S,
    stale: boolean,
  ) {
    this.socket_ = socket;
    this.stale_ = stale;
    this.fixed_ = sessionBytes(id);
  }

  get socket(): S | undefined {
    return this.socket_;
  }

  get connected(): boolean {
    return this.socket_ !== undefined;
  }

  get pending(): number {
    return this.out_.size;
  }
}

/** `held` counts `bytes` more in `budget` (fewer, when negative), while this process holds it. */
export function charge<S extends ServerSocket>(budget: Budget, held: Held<S>, bytes: number): void {
  if (held.holding_) budget.charge_(held, bytes);
}
