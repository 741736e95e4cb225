/**
 * The sockets the hook shares: one per key (URL and options by value, `./key.ts`), counted by the
 * components that use it. The last one to let go starts a short grace period (`closeDelay`) before
 * the socket closes, so that React's StrictMode (mount, unmount, mount again at once) and a route
 * change that unmounts one user and mounts the next keep the one connection.
 *
 * What the components read is a snapshot per socket, replaced when its state changes or a message
 * arrives (`full`), or only when its state changes (`quiet`, for the components that take messages
 * in `onMessage` instead of re-rendering).
 */
import type { DropInfo } from '../core/events.js';
import { surface } from '../core/report.js';
import type { BaseSocket } from '../core/socket.js';
import type { SocketState } from '../core/states.js';
import type { Data } from '../data.js';
import { ResilientSocketError } from '../errors.js';
import { describeThrown } from '../validation.js';

/** A message as the hook hands it over: its data (read `.data`, as from a `MessageEvent`) and when it came. */
export interface LastMessage {
  /** What arrived: a string or binary data. */
  readonly data: Data;
  /** When it arrived (`Date.now()`). */
  readonly timeStamp: number;
}

/** What a component reads: the socket's state (`'idle'` with no socket) and the latest message. */
export interface Snapshot {
  readonly state: SocketState;
  readonly lastMessage: LastMessage | null;
}

/** A component's callbacks, as of its latest render. */
export interface User {
  /** The socket it let go of last (until it holds the next one): where a hand-over comes from. */
  from?: Entry | undefined;
  onMessage?: ((message: LastMessage) => void) | undefined;
  onDrop?: ((info: DropInfo) => void) | undefined;
}

/** One shared socket. */
export interface Entry {
  readonly key: string;
  /** Where its messages go, when the URL is a string (`./destination.ts`: what a hand-over compares), else ''. */
  readonly destination: string;
  readonly socket: BaseSocket;
  /** The components using it. */
  readonly users: Set<User>;
  /** Re-renders the components that read it. */
  readonly notify: Set<() => void>;
  /** The options of the latest render of a user (its functions are what the socket calls). */
  latest: Record<string, unknown>;
  full: Snapshot;
  quiet: Snapshot;
  /** The grace period's timer, once the last user let go. */
  timer?: ReturnType<typeof setTimeout> | undefined;
  /** The users that let go since it was last held: told about messages dropped when it closes. */
  readonly left: Set<User>;
  /** The socket that takes over its queued messages (a hand-over). */
  to?: Entry | undefined;
}

/** The snapshot of a component without a socket (no URL, `enabled: false`, or rendering on a server). */
export const IDLE: Snapshot = /* @__PURE__ */ Object.freeze({ state: 'idle', lastMessage: null });

/**
 * Calls a user's callback (`onMessage` or `onDrop`); what it throws is reported
 * (`ERR_RS_LISTENER_THREW`, which names it in development builds), never thrown into the socket.
 */
function call<T>(name: string, fn: ((value: T) => void) | undefined, value: T): void {
  try {
    fn?.(value);
  } catch (thrown) {
    surface(
      new ResilientSocketError(
        'ERR_RS_LISTENER_THREW',
        process.env.NODE_ENV !== 'production' ? `\`${name}\` threw: ${describeThrown(thrown)}` : '',
        { cause: thrown },
      ),
    );
  }
}

/**
 * Tells `users` about dropped messages (their `onDrop`); when none has one, a console warning (in
 * every build: messages were lost).
 */
export function tellDropped(users: Iterable<User>, info: DropInfo): void {
  const told = [...users].filter((user) => user.onDrop);
  for (const user of told) call('onDrop', user.onDrop, info);
  if (told.length === 0)
    console.warn(`resilient-socket/react: ${info.messages.length} message(s) not sent (${info.reason})`);
}

/** Tells the users (or, when none is left, those that let go last) about dropped messages. */
const dropped = (entry: Entry, info: DropInfo): void =>
  tellDropped(entry.users.size > 0 ? entry.users : entry.left, info);

/** Makes the entry of a new socket and wires its events to the snapshots and the users. */
export function open(
  registry: Map<string, Entry>,
  key: string,
  destination: string,
  socket: BaseSocket,
  latest: Record<string, unknown>,
): Entry {
  const entry: Entry = {
    key,
    destination,
    socket,
    users: new Set(),
    left: new Set(),
    notify: new Set(),
    latest,
    full: { state: socket.state, lastMessage: null },
    quiet: { state: socket.state, lastMessage: null },
  };
  const changed = (): void => {
    for (const notify of [...entry.notify]) notify();
  };
  socket.on('state', ({ current }) => {
    // Closed by someone's `socket.close()`, or given up: components that come later get a new socket.
    if ((current === 'closing' || current === 'closed') && registry.get(key) === entry) registry.delete(key);
    entry.full = { state: current, lastMessage: entry.full.lastMessage };
    entry.quiet = { state: current, lastMessage: null };
    changed();
  });
  socket.on('message', (data: Data) => {
    const event: LastMessage = { data, timeStamp: Date.now() };
    entry.full = { state: entry.full.state, lastMessage: event };
    for (const user of [...entry.users]) call('onMessage', user.onMessage, event);
    changed();
  });
  socket.on('drop', (info) => {
    if (entry.to && info.reason === 'closed') for (const message of info.messages) entry.to.socket.send(message);
    else dropped(entry, info);
  });
  return entry;
}

/** One more user of `entry`: a pending close is called off. */
export function hold(entry: Entry, user: User): void {
  clearTimeout(entry.timer);
  entry.timer = undefined;
  entry.left.clear();
  entry.users.add(user);
}

/** One user less: the last one starts the grace period, after which the socket closes. */
export function letGo(registry: Map<string, Entry>, entry: Entry, user: User, delay: number): void {
  entry.users.delete(user);
  entry.left.add(user);
  if (entry.users.size > 0 || entry.timer !== undefined) return;
  entry.timer = setTimeout(() => end(registry, entry), delay);
}

/** Closes `entry`'s socket for good (its queued messages are dropped and reported) and forgets it. */
export function end(registry: Map<string, Entry>, entry: Entry): void {
  clearTimeout(entry.timer);
  entry.timer = undefined;
  if (registry.get(entry.key) === entry) registry.delete(entry.key);
  entry.socket.close();
  entry.notify.clear();
}

/**
 * A socket that its last user left for `to` (the same destination: the same URL with other
 * options, or other credentials in its query) hands its queued messages over: they are sent on
 * `to` (queued there until it opens) instead of being dropped when it closes. Another destination
 * gets nothing: they are dropped and reported as it closes.
 */
export function handOver(registry: Map<string, Entry>, from: Entry, to: Entry): void {
  if (from.users.size > 0 || from.timer === undefined || !from.destination || from.destination !== to.destination)
    return;
  from.to = to;
  end(registry, from);
}
