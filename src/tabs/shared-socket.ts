/**
 * `SharedSocket`: one connection for every tab of an origin that opens the same URL (and
 * channel). The tabs elect a leader with the Web Locks API (`./election.ts`); the leader runs the
 * core's machine on the only real connection and tells the others (followers) every event over a
 * BroadcastChannel (`./protocol.ts`, `./leader.ts`); a follower mirrors the connection's state,
 * and its `send()` goes through the leader (`./follower.ts`, `./outbox.ts`), in order, or waits in
 * the tab's own queue. This module is the facade: the public API, the checks of its arguments,
 * what this tab's listeners are shown, and how a tab joins the others and routes what it hears.
 * The tab's state is one record (`./tab.ts`). How it works, what "re-sent once" covers, and what
 * each feature does when shared: docs/guide/tabs.md.
 */
import { EventEmitter } from 'eventemitter3';
import { assertCloseArgs } from '../core/close-codes.js';
import type { SendResult } from '../core/commands.js';
import * as command from '../core/commands.js';
import { Machine } from '../core/machine.js';
import type { UrlProvider } from '../core/options.js';
import { resolveOptions } from '../core/resolve.js';
import { messagesOf, statsOf } from '../core/services.js';
import type { SendOptions, SocketStats } from '../core/socket.js';
import { sendArgs } from '../core/socket.js';
import { readyStateOf, type SocketState } from '../core/states.js';
import { mirrorState } from '../core/tab-replica.js';
import { checkTarget } from '../core/target.js';
import type { Data } from '../data.js';
import { ResilientSocketError } from '../errors.js';
import { browserTransport } from '../transports/browser.js';
import type { Transport } from '../transports/transport.js';
import { assertFunction, assertOptionsObject, assertThat, describeReceived } from '../validation.js';
import { deposed, join, leave, tick } from './election.js';
import { follow, lost, pass, through } from './follower.js';
import { serve, tell } from './leader.js';
import { written } from './outbox.js';
import { followerStats, type Wire } from './protocol.js';
import { current, now, post, Tab } from './tab.js';
import type {
  BroadcastChannelConstructorLike,
  LockManagerLike,
  Role,
  SharedSocketEvents,
  SharedSocketOptions,
} from './types.js';

export type {
  BroadcastChannelConstructorLike,
  BroadcastChannelLike,
  LockManagerLike,
  Role,
  SharedSocketEvents,
  SharedSocketOptions,
} from './types.js';

/**
 * A socket shared by every tab of an origin that opens the same URL and `channel`: one tab (the
 * leader) holds the only connection, the others use it through the leader. The same constructor,
 * methods, events and `send()` results as `BaseSocket` (features by `features: [...]`), plus
 * `role` and the `role` event. docs/guide/tabs.md.
 *
 * @example
 * ```ts
 * import { SharedSocket } from 'resilient-socket/shared';
 * const socket = new SharedSocket('wss://example.test/feed');
 * socket.on('message', (data) => render(data)); // in every tab, once per message
 * socket.send('hello'); // written once, by the leader
 * ```
 */
export class SharedSocket extends EventEmitter<SharedSocketEvents> {
  /** The class's name, whatever a bundler renamed its binding to. */
  static override readonly name: string = 'SharedSocket';
  /** How the leader reaches the network (the Node entry installs the ws transport). @internal */
  protected static transport: Transport = browserTransport;

  /** This tab's part: its machine and all it knows of the others (`./tab.ts`), out of sight of `util.inspect` and JSON. */
  readonly #tab: Tab;

  /**
   * @param url a `ws:`/`wss:` URL (string or `URL`); with the `providers()` feature also a function
   *   (then `channel` is required: tabs find each other by URL and channel).
   * @param options see {@link SharedSocketOptions}; validated here, once.
   * @throws TypeError / RangeError naming the option; ResilientSocketError `ERR_RS_NO_SHARING`
   *   where there is no Web Locks API or BroadcastChannel (an insecure context, an old browser).
   */
  constructor(url: UrlProvider, options?: SharedSocketOptions) {
    super();
    assertOptionsObject('options', options);
    const globals = globalThis as { navigator?: { locks?: LockManagerLike }; BroadcastChannel?: unknown };
    const {
      channel = '',
      locks = globals.navigator?.locks,
      BroadcastChannel: Channel = globals.BroadcastChannel,
      // This tab's, not the connection's (the leader's WebSocket always takes ArrayBuffers).
      binaryType,
      ...rest
    } = options ?? {};
    if (binaryType !== undefined) assertTabBinaryType(binaryType);
    const ok = typeof channel === 'string' && (channel !== '' || typeof url !== 'function');
    assertThat(
      ok,
      'channel',
      process.env.NODE_ENV !== 'production' ? 'a string (not empty when `url` is a function)' : '',
      channel,
    );
    assertThat(
      locks === undefined || typeof locks.request === 'function',
      'locks',
      process.env.NODE_ENV !== 'production' ? 'a LockManager (navigator.locks)' : '',
      locks,
    );
    if (Channel !== undefined) assertFunction('BroadcastChannel', Channel);
    if (!locks || !Channel) {
      throw new ResilientSocketError(
        'ERR_RS_NO_SHARING',
        `SharedSocket needs Web Locks and BroadcastChannel${
          process.env.NODE_ENV !== 'production'
            ? ' (missing here): pass `locks` and `BroadcastChannel`, or use ResilientSocket'
            : ''
        }`,
      );
    }
    const Class = this.constructor as typeof SharedSocket;
    const machine = new Machine(this, resolveOptions(url, rest, Class.transport, checkTarget));
    machine.binaryType_ = 'arraybuffer'; // the leader's messages cross the channel as they came; each tab makes Blobs
    // The protocol's version is in the name: tabs running another version of the library (an old tab
    // after a deploy) elect their own leader rather than misread each other.
    const name = `resilient-socket/2 ${channel} ${typeof url === 'function' ? '' : url}`;
    const id = `${Math.random()}`; // unique enough among the tabs of one browser
    const tab = new Tab(machine, id, name, locks, Channel as unknown as BroadcastChannelConstructorLike);
    this.#tab = tab;
    if (binaryType !== undefined) this.binaryType = binaryType as 'blob';
    machine.init_({ ...rest, autoConnect: false });
    if (rest.autoConnect !== false && !tab.closed_) connect(tab);
  }

  /**
   * @internal how the machine tells the users (see `Face` in `../core/machine.ts`): the followers
   * too (a leader's shared events), then this tab's listeners, as this tab sees it
   */
  emit_(event: string, ...args: unknown[]): void {
    const tab = this.#tab;
    tell(tab, event, args);
    const [first] = args as [{ reason: string; attempt: number }];
    let shown = args;
    if (event === 'state') {
      const previous = tab.shown_;
      const state = tab.machine_.state_;
      if (previous === state) return;
      tab.shown_ = state;
      shown = [{ previous, current: state, reason: first.reason }];
    } else if (event === 'open') {
      shown = [{ attempt: first.attempt, reconnected: tab.opens_++ > 0 }];
    } else if (event === 'message' && typeof first !== 'string' && tab.blob_) {
      shown = [new Blob([first as unknown as ArrayBuffer])];
    }
    (this.emit as (event: string, ...args: unknown[]) => boolean)(event, ...shown);
  }

  /** @internal */
  listens_(event: string): boolean {
    return this.listenerCount(event as 'error') > 0;
  }

  // ─── read-only state ─────────────────────────────────────────────────────────────────────

  /** `'leader'` while this tab holds the connection, else `'follower'` (also before the election settles). */
  get role(): Role {
    return this.#tab.leads_ ? 'leader' : 'follower';
  }

  /** The shared connection's state (a follower's mirrors the leader's; its own after `close()`). */
  get state(): SocketState {
    return this.#tab.machine_.state_;
  }

  /** As `BaseSocket.attempt`, for the shared connection. */
  get attempt(): number {
    const { state, attempt } = current(this.#tab);
    return state === 'reconnecting' ? attempt + 1 : attempt;
  }

  /** As `BaseSocket.failures`, for the shared connection. */
  get failures(): number {
    return current(this.#tab).failures;
  }

  /** The URL of the shared connection's latest attempt. */
  get url(): string {
    return current(this.#tab).url;
  }

  /** The subprotocol of the shared connection ('' if none or not open). */
  get protocol(): string {
    return current(this.#tab).protocol;
  }

  /** WebSocket-style ready state, from `state`. */
  get readyState(): number {
    return readyStateOf(this.#tab.machine_.state_);
  }

  /** This tab's messages not yet written: its queue, and those it handed to the leader unconfirmed. */
  get bufferedCount(): number {
    const tab = this.#tab;
    return (tab.machine_.queue_?.length ?? 0) + tab.handed_.length;
  }

  /** How this tab receives binary messages: as `Blob`s (the browser default) or `ArrayBuffer`s. */
  get binaryType(): 'blob' | 'arraybuffer' {
    return this.#tab.blob_ ? 'blob' : 'arraybuffer';
  }

  /** Sets how this tab receives binary messages from now on. @throws TypeError for another value. */
  set binaryType(value: 'blob' | 'arraybuffer') {
    assertTabBinaryType(value);
    this.#tab.blob_ = value === 'blob';
  }

  /**
   * The shared connection's counters (the `stats()` feature), as the leader counts them; in a
   * follower, the leader's latest snapshot brought up to date. `dropped` counts this tab's drops.
   * @throws TypeError naming the feature when it is not installed.
   */
  get stats(): SocketStats {
    const { machine_: machine, leads_: leads, view_: view, viewAt_: at } = this.#tab;
    const own = statsOf(machine);
    return leads || !view?.stats ? own : followerStats(view, at, machine.config_.clock.now(), machine.dropped_);
  }

  /** Iterates over incoming messages until the socket is `closed` (the `asyncIteration()` feature). */
  [Symbol.asyncIterator](): AsyncIterableIterator<Data> {
    return messagesOf(this.#tab.machine_);
  }

  // ─── what the user asks ──────────────────────────────────────────────────────────────────

  /**
   * As `BaseSocket.send()`. In a follower, `'sent'` means handed to the leader while its
   * connection was open (re-sent once if that leader fails before writing it); while no
   * connection is open the message waits in this tab's queue, under the same limits and drop
   * reporting.
   */
  send(data: Data, options?: SendOptions): SendResult {
    const buffer = sendArgs(data, options);
    const tab = this.#tab;
    return tab.leads_ || tab.closed_ || !through(tab) ? command.send(tab.machine_, data, buffer) : pass(tab, data);
  }

  /**
   * Starts: joins the tabs (with `autoConnect: false`), or, after the shared connection gave up,
   * asks the leader to connect afresh.
   * @throws ResilientSocketError `ERR_RS_CLOSED` after `close()`.
   */
  open(): void {
    const tab = this.#tab;
    const machine = tab.machine_.alive_('open');
    if (!tab.channel_) connect(tab);
    else if (tab.leads_) command.open(machine);
    else post(tab, { type: 'cmd', to: tab.leader_, event: 'open' });
  }

  /**
   * As `BaseSocket.reconnect()`, for the shared connection (a follower asks the leader).
   * @throws TypeError / RangeError for an invalid code or reason; ResilientSocketError `ERR_RS_CLOSED` after `close()`.
   */
  reconnect(code = 1000, reason = ''): void {
    assertCloseArgs(code, reason);
    const tab = this.#tab;
    const machine = tab.machine_.alive_('reconnect');
    if (tab.leads_) command.reconnect(machine, code, reason);
    else post(tab, { type: 'cmd', to: tab.leader_, event: 'reconnect', args: [code, reason] });
  }

  /**
   * Ends this tab's part, for good: a follower's queued messages are dropped (reported), those
   * it handed to the leader are left to the leader; a leader hands the connection over to the
   * next tab (its own connection closes with `code`/`reason`). The last tab closes the connection.
   * @param code 1000 or 3000–4999. @default 1000
   * @param reason at most 123 UTF-8 bytes. @default ''
   */
  close(code = 1000, reason = ''): void {
    assertCloseArgs(code, reason);
    const tab = this.#tab;
    const { machine_: machine, channel_: channel } = tab;
    if (tab.closed_) return;
    tab.closed_ = true;
    machine.config_.clock.clearTimeout(tab.timer_);
    const wasOpen = !tab.leads_ && machine.state_ === 'open';
    post(tab, { type: 'bye', unwritten: tab.handed_ }); // a leader's carries its term: the next tab takes over
    tab.handed_ = [];
    leave(tab);
    channel?.close(); // (a BroadcastChannel's close() never throws; messages already posted are still delivered)
    command.close(machine, code, reason);
    if (wasOpen) machine.emitClose_({ code, reason, wasClean: true });
  }
}

// ─── joining the other tabs, and hearing them ──────────────────────────────────────────────

/** The tab joins the others: its channel, a `hi`, its place in the queue for the lock, its watch. */
function connect(tab: Tab): void {
  mirrorState(tab.machine_, 'connecting');
  tab.shown_ = 'connecting'; // as a socket's state right after its constructor (nobody heard that change)
  const channel = new tab.channelClass_(tab.name_);
  tab.channel_ = channel;
  channel.onmessage = (event) => hear(tab, event.data as Wire);
  tab.heardAt_ = tab.lastTick_ = now(tab);
  post(tab, { type: 'hi' });
  join(tab);
  tick(tab);
}

/**
 * What this tab hears on the channel, to whom it goes: a follower's message (no term) to the
 * leader's side; a leader's goodbye, or a word from a leader of this term or a later one, to the
 * follower's side (a later leader deposes this tab if it thought it led); an older leader's, to nobody.
 */
function hear(tab: Tab, wire: Wire): void {
  // (never its own: a BroadcastChannel does not deliver to the object that posted)
  if (tab.closed_ || !wire || (wire.to !== undefined && wire.to !== tab.id_)) return;
  const term = wire.term;
  // A confirmation counts whoever sent it (a leader taken over may write, once, what it still had).
  if (wire.type === 'ack') written(tab, wire.seq as number);
  if (term === undefined) {
    if (tab.leads_) serve(tab, wire);
  } else if (wire.type === 'bye') {
    if (wire.from === tab.leader_) lost(tab); // the leader left: what was handed to it comes back, the next tab takes over
  } else if (term >= tab.term_) {
    if (!tab.leads_) follow(tab, wire);
    else if (term > tab.term_) deposed(tab); // a later leader exists: this tab lost the lock
  }
}

/** A tab's `binaryType`: `'blob'` or `'arraybuffer'`. @throws RangeError for another string, TypeError for another type. */
function assertTabBinaryType(value: unknown): void {
  if (value !== 'blob' && value !== 'arraybuffer') {
    const Type = typeof value === 'string' ? RangeError : TypeError;
    throw new Type(`Expected \`binaryType\` to be "blob" or "arraybuffer", got ${describeReceived(value)}`);
  }
}
