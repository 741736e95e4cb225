/**
 * The sockets the framework bindings share (React's hook, Vue's composable): one per key (URL and
 * options by value, `./key.ts`), counted by the users that hold it (a component, an effect scope).
 * The last one to let go starts a short grace period (`closeDelay`) before the socket closes, so
 * that React's StrictMode (mount, unmount, mount again at once), Vue's hot reload and a route
 * change that unmounts one user and mounts the next keep the one connection.
 *
 * Each user reads a view of its own, replaced when the socket's state changes or when a message
 * it takes arrives: a user with `onMessage` takes messages there instead (its view keeps
 * `lastMessage: null`), and a user's `filter` decides which messages reach its view.
 */
import type { DropInfo } from '../core/events.js';
import type { UrlProvider } from '../core/options.js';
import { listenerError, surface } from '../core/report.js';
import { type BaseSocket, type SendResult, sendArgs } from '../core/socket.js';
import type { SocketState } from '../core/states.js';
import { type Data, ownCopy } from '../data.js';
import { describeReceived, typeError } from '../validation.js';
import { destinationOf } from './destination.js';
import { BINDING_CHECKS, BINDING_OPTIONS, idOf, keyOf } from './key.js';
import type { BindingOptions } from './options.js';

/** A message as the bindings hand it over: its data (read `.data`, as from a `MessageEvent`) and when it came. */
export interface LastMessage {
  /** What arrived: a string or binary data. */
  readonly data: Data;
  /** When it arrived (`Date.now()`). */
  readonly timeStamp: number;
}

/** What a user reads: the socket's state (`'idle'` with no socket) and the latest message it took. */
export interface Snapshot {
  readonly state: SocketState;
  readonly lastMessage: LastMessage | null;
}

/** A user of a shared socket (a component, an effect scope): its callbacks, as of its latest update. */
export interface User {
  /** The socket it holds. */
  entry_?: Entry | undefined;
  /** The socket it let go of last (until it holds the next one): where a hand-over comes from. */
  from_?: Entry | undefined;
  onMessage?: ((message: LastMessage) => void) | undefined;
  onDrop?: ((info: DropInfo) => void) | undefined;
  filter?: ((data: Data) => boolean) | undefined;
  /** What it reads while it holds a socket: replaced (never changed in place) on every change it sees. */
  view_?: Snapshot;
  /** Called after its view was replaced. */
  changed_?: (() => void) | undefined;
  /**
   * What it sent while it waited for its socket (a component rendered with a URL, its effect or
   * mount yet to come): sent first when it takes the socket, reported as dropped when it has none.
   */
  early_?: Data[] | undefined;
}

/** A user as {@link Registry.user_} makes it: with the functions a binding hands out. */
export interface BoundUser extends User {
  /** Sends through the socket it holds (queued until it opens); without one, `'dropped'` and reported. */
  readonly send: (data: Data) => SendResult;
  /** Sends `value` as JSON text; a TypeError for what JSON cannot write. */
  readonly sendJson: (value: unknown) => SendResult;
}

/** One shared socket. */
export interface Entry {
  readonly key_: string;
  /** Where its messages go, when the URL is a string (`./destination.ts`: what a hand-over compares), else ''. */
  readonly destination_: string;
  socket_: BaseSocket;
  /** The users holding it. */
  readonly users_: Set<User>;
  /** The options of the latest update of a user (its functions are what the socket calls). */
  latest_: Record<string, unknown>;
  /** The latest message (what a user that comes later reads first). */
  last_: LastMessage | null;
  /** The grace period's timer, once the last user let go. */
  timer_?: ReturnType<typeof setTimeout> | undefined;
  /** The users that let go since it was last held: told about messages dropped when it closes. */
  readonly left_: Set<User>;
  /** The socket that takes over its queued messages (a hand-over). */
  to_?: Entry | undefined;
}

/** The view of a user without a socket (no URL, `enabled: false`, or rendering on a server). */
export const IDLE: Snapshot = { state: 'idle', lastMessage: null };

/** Each message's data as JSON, parsed once (whoever reads it first), held as long as the message. */
const parsed = /* @__PURE__ */ new WeakMap<LastMessage, unknown>();

/**
 * `lastMessage`'s data parsed as JSON, once per message whatever the number of readers;
 * `undefined` for no message, binary data or text that is not JSON. Never throws.
 */
export function jsonOf(message: LastMessage | null): unknown {
  if (typeof message?.data === 'string' && !parsed.has(message)) {
    let value: unknown;
    try {
      value = JSON.parse(message.data);
    } catch {
      // not JSON: undefined
    }
    parsed.set(message, value);
  }
  // `WeakMap#get` of `null` (no message) is `undefined`, as for binary data (never set).
  return parsed.get(message as LastMessage);
}

/**
 * `value` as JSON text, for `sendJson`. What JSON cannot write is a TypeError: `undefined`, a
 * function or a symbol (`JSON.stringify` gives nothing) by this check; a cycle or a `BigInt` by
 * JSON's own.
 */
export function toJson(value: unknown): string {
  const text = JSON.stringify(value);
  if (text === undefined)
    throw typeError(
      'value',
      process.env.NODE_ENV !== 'production'
        ? `Expected \`value\` of sendJson to be something JSON can write, got ${describeReceived(value)}`
        : '',
    );
  return text;
}

/**
 * Calls a user's callback (`onMessage`, `onDrop`, `filter`); what it throws is reported
 * (`ERR_RS_LISTENER_THREW`, which names it in development builds), never thrown into the socket.
 * Returns what it returned (`undefined` when it threw).
 */
function call<T>(name: string, fn: ((value: T) => unknown) | undefined, value: T): unknown {
  try {
    return fn?.(value);
  } catch (thrown) {
    // Only development builds name it (production ones say the code alone): the name is dead text there.
    surface(listenerError(process.env.NODE_ENV !== 'production' ? `\`${name}\`` : '', thrown));
  }
}

/** Whether `user` takes `message` in its view: not when it has `onMessage`, nor when its `filter` refuses (or throws). */
const takes = (user: User, message: LastMessage | null): boolean =>
  !!message && !user.onMessage && (!user.filter || call('filter', user.filter, message.data) === true);

/** Replaces `user`'s view and tells it. */
function show(user: User, view: Snapshot): void {
  user.view_ = view;
  user.changed_?.();
}

/**
 * Checks the bindings' own options (the socket checks its own when it is made): a TypeError or
 * RangeError naming the option and the value.
 */
export function checkBindingOptions(options: BindingOptions): void {
  // The core's checks (in every bundle of the core already); `{ min: 0 }` is for `closeDelay`
  // (the others take no rule).
  for (const name of BINDING_OPTIONS as (keyof typeof BINDING_CHECKS)[])
    if (options[name] !== undefined) BINDING_CHECKS[name](name, options[name], { min: 0 });
}

/**
 * The key of `user`'s socket: `''` for none (no URL, `enabled: false`); the URL and the socket's
 * options by value; with `share: false`, also the user (a socket of its own).
 */
export const keyFor = (user: User, url: unknown, options: BindingOptions): string =>
  url == null || options.enabled === false
    ? ''
    : keyOf([url, keyOf(options, BINDING_OPTIONS), options.share === false ? idOf(user) : 0]);

/**
 * The registry of one binding (`label`: `'resilient-socket/react'`, `'resilient-socket/vue'`) for
 * sockets of class `Socket` (the browser core, or the Node one with the ws transport).
 */
export function registryFor(Socket: typeof BaseSocket, label: string) {
  const registry = new Map<string, Entry>();

  /** Tells `users` about dropped messages (their `onDrop`); when none has one, a console warning (in every build). */
  function tellDropped(users: Iterable<User>, info: DropInfo): void {
    const told = [...users].filter((user) => user.onDrop);
    for (const user of told) call('onDrop', user.onDrop, info);
    if (told.length === 0) console.warn(`${label}: ${info.messages.length} message(s) not sent (${info.reason})`);
  }

  /** Closes `entry`'s socket for good (its queued messages are dropped and reported) and forgets it. */
  function end(entry: Entry): void {
    clearTimeout(entry.timer_);
    entry.timer_ = undefined;
    if (registry.get(entry.key_) === entry) registry.delete(entry.key_);
    entry.socket_.close();
  }

  /** The socket for `key`: shared, or made (its function options call the latest update's). */
  function acquire(key: string, url: string | URL | UrlProvider, options: Record<string, unknown>): Entry {
    const known = registry.get(key);
    if (known) return known;
    // Made before its socket, which may call a function option at once (a provider: the first
    // attempt starts in the constructor); `socket_` is set right after.
    const made = {
      key_: key,
      destination_: typeof url === 'function' ? '' : destinationOf(String(url)),
      users_: new Set(),
      left_: new Set(),
      latest_: { ...options, url },
      last_: null,
    } as Omit<Entry, 'socket_'> as Entry;
    const latest =
      (name: string) =>
      (...args: unknown[]) =>
        (made.latest_[name] as (...a: unknown[]) => unknown)(...args);
    const forSocket: Record<string, unknown> = {};
    for (const [name, value] of Object.entries(options))
      if (!BINDING_OPTIONS.includes(name))
        forSocket[name] =
          typeof value === 'function' && name !== 'WebSocket' && name !== 'backoff' ? latest(name) : value;
    const socket = new Socket((typeof url === 'function' ? latest('url') : url) as UrlProvider, forSocket);
    made.socket_ = socket;
    // Its events reach the users' views.
    socket.on('state', ({ current }) => {
      // Closed by someone's `socket.close()`, or given up: users that come later get a new socket.
      if ((current === 'closing' || current === 'closed') && registry.get(key) === made) registry.delete(key);
      // A user holding it has a view (`use_` gives it one as it takes the socket).
      for (const user of [...made.users_])
        show(user, { state: current, lastMessage: (user.view_ as Snapshot).lastMessage });
    });
    socket.on('message', (data: Data) => {
      const message: LastMessage = { data, timeStamp: Date.now() };
      made.last_ = message;
      for (const user of [...made.users_]) {
        call('onMessage', user.onMessage, message);
        if (takes(user, message)) show(user, { state: socket.state, lastMessage: message });
      }
    });
    socket.on('drop', (info) => {
      if (made.to_ && info.reason === 'closed') for (const message of info.messages) made.to_.socket_.send(message);
      else tellDropped(made.users_.size ? made.users_ : made.left_, info);
    });
    registry.set(key, made);
    return made;
  }

  return {
    tellDropped_: tellDropped,

    /**
     * `user` takes the socket for `key` (shared, or made with `url` and `options`): a pending close
     * is called off, its view starts from the socket's state and latest message, and the messages
     * still queued on the socket it just left follow it there when it names the same destination.
     */
    use_(user: User, key: string, url: string | URL | UrlProvider, options: Record<string, unknown>): Entry {
      const entry = acquire(key, url, options);
      clearTimeout(entry.timer_);
      entry.timer_ = undefined;
      entry.left_.clear();
      entry.users_.add(user);
      user.entry_ = entry;
      user.view_ = { state: entry.socket_.state, lastMessage: takes(user, entry.last_) ? entry.last_ : null };
      for (const data of user.early_ ?? []) entry.socket_.send(data);
      user.early_ = undefined;
      const from = user.from_;
      user.from_ = undefined;
      // A socket that its last user left for the same destination (the same URL with other options,
      // or other credentials in its query) hands its queued messages over: they are sent here
      // (queued until it opens) instead of being dropped as it closes. Another destination gets
      // nothing: they are dropped and reported as it closes.
      if (
        entry.destination_ &&
        from?.destination_ === entry.destination_ &&
        from !== entry &&
        !from.users_.size &&
        from.timer_ !== undefined
      ) {
        from.to_ = entry;
        end(from);
      }
      return entry;
    },

    /**
     * `user` lets go of `entry`; the last one starts the grace period (`delay` ms: the
     * `closeDelay` option, 250 when not given), after which the socket closes.
     */
    letGo_(user: User, entry: Entry, delay = 250): void {
      entry.users_.delete(user);
      entry.left_.add(user);
      // `user.entry_` stays: what it sends until it takes another socket (a StrictMode remount, a
      // child's effect in between) goes to this one, kept open for the grace period.
      user.from_ = entry;
      if (entry.users_.size || entry.timer_ !== undefined) return;
      entry.timer_ = setTimeout(() => end(entry), delay);
    },

    /**
     * `user` has no socket now (no URL, disabled, disposed): what it sends is dropped and reported,
     * and so is what it sent while it waited for one.
     */
    idle_(user: User): void {
      const early = user.early_;
      user.entry_ = user.early_ = undefined;
      if (early?.length) tellDropped([user], { reason: 'not-connected', messages: early });
    },

    /**
     * A new user, with its `send` and `sendJson`: through the socket it holds; while it waits for
     * one (`early_`), kept (checked and copied as the socket would); else dropped and reported.
     */
    user_(): BoundUser {
      const user: BoundUser = {
        send(data) {
          if (user.entry_) return user.entry_.socket_.send(data);
          if (user.early_) {
            sendArgs(data, undefined);
            user.early_.push(ownCopy(data));
            return 'buffered';
          }
          tellDropped([user], { reason: 'not-connected', messages: [data] });
          return 'dropped';
        },
        sendJson: (value) => user.send(toJson(value)),
      };
      return user;
    },
  };
}

/** The registry of one binding: what {@link registryFor} returns. */
export type Registry = ReturnType<typeof registryFor>;
