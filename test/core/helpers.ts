/**
 * What the test files of the core share: a Queue with the socket's default limits (the
 * queue-*.test.ts files), and for the feature seam (the feature-*.test.ts files) BaseSockets on
 * mock-socket under fake timers, closed after each test, with features that record every hook call.
 */
import { afterEach, beforeEach, vi } from 'vitest';
import type { Feature, Host, Loss } from '../../src/core/feature.js';
import { Queue } from '../../src/core/queue.js';
import { BaseSocket } from '../../src/core/socket.js';
import type { SocketState } from '../../src/core/states.js';
import type { Data } from '../../src/data.js';
import { cleanup, WebSocketImpl } from '../resilient-socket/helpers.js';

// ─── the queue ───────────────────────────────────────────────────────────────────────────

/** A queue with the socket's default limits, unless given. */
export function queue(maxMessages = 1000, maxBytes = 1_048_576): Queue {
  return new Queue(maxMessages, maxBytes);
}

// ─── the feature seam ────────────────────────────────────────────────────────────────────

const sockets = new Set<BaseSocket>();

/**
 * Registers fake timers before each test, and after it the close of every socket `base()` made and
 * the cleanup (call it once, at the top of the file).
 */
export function setUpFeatureSockets(): void {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(async () => {
    for (const socket of sockets) socket.close();
    sockets.clear();
    await cleanup();
  });
}

/** A BaseSocket on mock-socket, closed after the test. */
export function base(url: string, options: ConstructorParameters<typeof BaseSocket>[1] = {}): BaseSocket {
  const socket = new BaseSocket(url, { WebSocket: WebSocketImpl, ...options });
  sockets.add(socket);
  return socket;
}

/** What a recording feature may do besides recording (each returns the hook's result). */
export interface Behaviour {
  slots?: number;
  message?: (m: Host, me: number, data: Data) => boolean;
  gate?: (m: Host, me: number) => PromiseLike<unknown> | undefined;
  admit?: (m: Host, me: number, bytes: number) => 'dropped' | undefined;
  hold?: (m: Host, me: number) => boolean;
  open?: (m: Host, me: number) => void;
  timer?: (m: Host, me: number, local: number) => void;
}

/** A feature that logs `<tag>.<hook>[:detail]` for every hook call into `log`, with the host and `me` it was given. */
export function recorder(tag: string, rank: number, log: string[], behaviour: Behaviour = {}) {
  const seen: { hosts: Set<Host>; me: Set<number> } = { hosts: new Set(), me: new Set() };
  const note = (m: Host, me: number, entry: string): void => {
    seen.hosts.add(m);
    seen.me.add(me);
    log.push(`${tag}.${entry}`);
  };
  const feature: Feature = {
    name: `recorder-${tag}`,
    rank,
    ...(behaviour.slots === undefined ? {} : { slots: behaviour.slots }),
    check() {
      log.push(`${tag}.check`);
    },
    init(m, me) {
      note(m, me, 'init');
    },
    target(m, me) {
      note(m, me, 'target');
      return undefined;
    },
    gate(m, me, attempt) {
      note(m, me, `gate:#${attempt.number}`);
      return behaviour.gate?.(m, me);
    },
    flush(m, me) {
      note(m, me, 'flush');
    },
    open(m, me, attempt) {
      note(m, me, `open:#${attempt.number}`);
      behaviour.open?.(m, me);
    },
    message(m, me, _attempt, data) {
      note(m, me, `message:${String(data)}`);
      return behaviour.message?.(m, me, data) ?? false;
    },
    deliver(m, me, data) {
      note(m, me, `deliver:${String(data)}`);
    },
    pong(m, me) {
      note(m, me, 'pong');
    },
    lost(m, me, loss: Loss) {
      note(m, me, `lost:#${loss.attempt}${loss.close ? ` close ${loss.close.code}` : ''}`);
    },
    hold(m, me) {
      note(m, me, 'hold');
      return behaviour.hold?.(m, me) ?? false;
    },
    state(m, me, previous: SocketState, next: SocketState) {
      note(m, me, `state:${previous}→${next}`);
    },
    admit(m, me, bytes) {
      note(m, me, `admit:${bytes}`);
      return behaviour.admit?.(m, me, bytes);
    },
    timer(m, me, local) {
      note(m, me, `timer:${local}`);
      behaviour.timer?.(m, me, local);
    },
    end(m, me, attempt) {
      note(m, me, `end:#${attempt.number}`);
    },
    dispose(m, me) {
      note(m, me, 'dispose');
    },
  };
  return { feature, seen };
}

/** Logs the socket's events into the same log, as `event:<name>[:detail]`. */
export function logEvents(socket: BaseSocket, log: string[]): void {
  socket.on('state', ({ previous, current }) => log.push(`event:state:${previous}→${current}`));
  socket.on('connecting', ({ attempt }) => log.push(`event:connecting:#${attempt}`));
  socket.on('open', ({ attempt }) => log.push(`event:open:#${attempt}`));
  socket.on('message', (data) => log.push(`event:message:${String(data)}`));
  socket.on('close', ({ code }) => log.push(`event:close:${code}`));
  socket.on('reconnecting', ({ attempt }) => log.push(`event:reconnecting:#${attempt}`));
  socket.on('stable', () => log.push('event:stable'));
  socket.on('error', (error) => log.push(`event:error:${error.code}`));
  socket.on('giveup', () => log.push('event:giveup'));
  socket.on('drop', ({ reason }) => log.push(`event:drop:${reason}`));
}

/** Takes everything logged so far (and empties the log). */
export const take = (log: string[]): string[] => log.splice(0);
