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
import { Machine, type SendResult } from '../core/machine.js';
import type { UrlProvider } from '../core/options.js';
import { resolveOptions } from '../core/resolve.js';
import { messagesOf, statsOf } from '../core/services.js';
import type { SendOptions, SocketStats } from '../core/socket.js';
import { sendArgs } from '../core/socket.js';
import { readyStateOf, type SocketState } from '../core/states.js';
import { checkTarget } from '../core/target.js';
import type { Data } from '../data.js';
import { ResilientSocketError } from '../errors.js';
import { browserTransport } from '../transports/browser.js';
import type { Transport } from '../transports/transport.js';
import { assertFunction, assertOptionsObject, assertThat, describeReceived } from '../validation.js';
import { deposed, join, leave, tick } from './election.js';
import { follow, lost, mirror, pass, through } from './follower.js';
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
  readonly #t: Tab;

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
    const g = globalThis as { navigator?: { locks?: LockManagerLike }; BroadcastChannel?: unknown };
    const {
      channel = '',
      locks = g.navigator?.locks,
      BroadcastChannel: Channel = g.BroadcastChannel,
      // This tab's, not the connection's (the leader's WebSocket always takes ArrayBuffers).
      binaryType,
      ...rest
    } = options ?? {};
    if (binaryType !== undefined) assertTabBinaryType(binaryType);
    const ok = typeof channel === 'string' && (channel !== '' || typeof url !== 'function');
    assertThat(ok, 'channel', 'a string (not empty when `url` is a function)', channel);
    assertThat(
      locks === undefined || typeof locks.request === 'function',
      'locks',
      'a LockManager (navigator.locks)',
      locks,
    );
    if (Channel !== undefined) assertFunction('BroadcastChannel', Channel);
    if (!locks || !Channel) {
      throw new ResilientSocketError(
        'ERR_RS_NO_SHARING',
        'SharedSocket needs Web Locks and BroadcastChannel (missing here): pass `locks` and `BroadcastChannel`, or use ResilientSocket',
      );
    }
    const Class = this.constructor as typeof SharedSocket;
    const m = new Machine(this, resolveOptions(url, rest, Class.transport, checkTarget));
    m.binaryType_ = 'arraybuffer'; // the leader's messages cross the channel as they came; each tab makes Blobs
    // The protocol's version is in the name: tabs running another version of the library (an old tab
    // after a deploy) elect their own leader rather than misread each other.
    const name = `resilient-socket/1 ${channel} ${typeof url === 'function' ? '' : url}`;
    const id = `${Math.random()}`; // unique enough among the tabs of one browser
    const t = new Tab(m, id, name, locks, Channel as unknown as BroadcastChannelConstructorLike);
    this.#t = t;
    if (binaryType !== undefined) this.binaryType = binaryType as 'blob';
    m.init_({ ...rest, autoConnect: false });
    if (rest.autoConnect !== false && !t.closed_) connect(t);
  }

  /**
   * @internal how the machine tells the users (see `Face` in `../core/machine.ts`): the followers
   * too (a leader's shared events), then this tab's listeners, as this tab sees it
   */
  emit_(event: string, ...args: unknown[]): void {
    const t = this.#t;
    tell(t, event, args);
    const [first] = args as [{ reason: string; attempt: number }];
    let shown = args;
    if (event === 'state') {
      const previous = t.shown_;
      const state = t.m_.state_;
      if (previous === state) return;
      t.shown_ = state;
      shown = [{ previous, current: state, reason: first.reason }];
    } else if (event === 'open') {
      shown = [{ attempt: first.attempt, reconnected: t.opens_++ > 0 }];
    } else if (event === 'message' && typeof first !== 'string' && t.blob_) {
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
    return this.#t.leads_ ? 'leader' : 'follower';
  }

  /** The shared connection's state (a follower's mirrors the leader's; its own after `close()`). */
  get state(): SocketState {
    return this.#t.m_.state_;
  }

  /** As `BaseSocket.attempt`, for the shared connection. */
  get attempt(): number {
    const { s, a } = current(this.#t);
    return s === 'reconnecting' ? a + 1 : a;
  }

  /** As `BaseSocket.failures`, for the shared connection. */
  get failures(): number {
    return current(this.#t).n;
  }

  /** The URL of the shared connection's latest attempt. */
  get url(): string {
    return current(this.#t).u;
  }

  /** The subprotocol of the shared connection ('' if none or not open). */
  get protocol(): string {
    return current(this.#t).p;
  }

  /** WebSocket-style ready state, from `state`. */
  get readyState(): number {
    return readyStateOf(this.#t.m_.state_);
  }

  /** This tab's messages not yet written: its queue, and those it handed to the leader unconfirmed. */
  get bufferedCount(): number {
    const t = this.#t;
    return (t.m_.queue_?.length ?? 0) + t.handed_.length;
  }

  /** How this tab receives binary messages: as `Blob`s (the browser default) or `ArrayBuffer`s. */
  get binaryType(): 'blob' | 'arraybuffer' {
    return this.#t.blob_ ? 'blob' : 'arraybuffer';
  }

  /** Sets how this tab receives binary messages from now on. @throws TypeError for another value. */
  set binaryType(value: 'blob' | 'arraybuffer') {
    assertTabBinaryType(value);
    this.#t.blob_ = value === 'blob';
  }

  /**
   * The shared connection's counters (the `stats()` feature), as the leader counts them; in a
   * follower, the leader's latest snapshot brought up to date. `dropped` counts this tab's drops.
   * @throws TypeError naming the feature when it is not installed.
   */
  get stats(): SocketStats {
    const { m_: m, leads_: leads, view_: view, viewAt_: at } = this.#t;
    const own = statsOf(m);
    return leads || !view?.st ? own : followerStats(view, at, m.config_.clock.now(), m.dropped_);
  }

  /** Iterates over incoming messages until the socket is `closed` (the `asyncIteration()` feature). */
  [Symbol.asyncIterator](): AsyncIterableIterator<Data> {
    return messagesOf(this.#t.m_);
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
    const t = this.#t;
    return t.leads_ || t.closed_ || !through(t) ? t.m_.send_(data, buffer) : pass(t, data);
  }

  /**
   * Starts: joins the tabs (with `autoConnect: false`), or, after the shared connection gave up,
   * asks the leader to connect afresh.
   * @throws ResilientSocketError `ERR_RS_CLOSED` after `close()`.
   */
  open(): void {
    const t = this.#t;
    const m = t.m_.alive_('open');
    if (!t.channel_) connect(t);
    else if (t.leads_) m.open_();
    else post(t, { t: 'cmd', to: t.leader_, e: 'open' });
  }

  /**
   * As `BaseSocket.reconnect()`, for the shared connection (a follower asks the leader).
   * @throws TypeError / RangeError for an invalid code or reason; ResilientSocketError `ERR_RS_CLOSED` after `close()`.
   */
  reconnect(code = 1000, reason = ''): void {
    assertCloseArgs(code, reason);
    const t = this.#t;
    const m = t.m_.alive_('reconnect');
    if (t.leads_) m.reconnect_(code, reason);
    else post(t, { t: 'cmd', to: t.leader_, e: 'reconnect', a: [code, reason] });
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
    const t = this.#t;
    const { m_: m, channel_: channel } = t;
    if (t.closed_) return;
    t.closed_ = true;
    m.config_.clock.clearTimeout(t.timer_);
    const wasOpen = !t.leads_ && m.state_ === 'open';
    post(t, { t: 'bye', u: t.handed_ }); // a leader's carries its term: the next tab takes over
    t.handed_ = [];
    leave(t);
    channel?.close(); // (a BroadcastChannel's close() never throws; messages already posted are still delivered)
    m.close_(code, reason);
    if (wasOpen) m.emitClose_({ code, reason, wasClean: true });
  }
}

// ─── joining the other tabs, and hearing them ──────────────────────────────────────────────

/** The tab joins the others: its channel, a `hi`, its place in the queue for the lock, its watch. */
function connect(t: Tab): void {
  mirror(t, 'connecting');
  t.shown_ = 'connecting'; // as a socket's state right after its constructor (nobody heard that change)
  const channel = new t.channelClass_(t.name_);
  t.channel_ = channel;
  channel.onmessage = (event) => hear(t, event.data as Wire);
  t.heardAt_ = t.lastTick_ = now(t);
  post(t, { t: 'hi' });
  join(t);
  tick(t);
}

/**
 * What this tab hears on the channel, to whom it goes: a follower's message (no term) to the
 * leader's side; a leader's goodbye, or a word from a leader of this term or a later one, to the
 * follower's side (a later leader deposes this tab if it thought it led); an older leader's, to nobody.
 */
function hear(t: Tab, w: Wire): void {
  // (never its own: a BroadcastChannel does not deliver to the object that posted)
  if (t.closed_ || !w || (w.to !== undefined && w.to !== t.id_)) return;
  const term = w.k;
  // A confirmation counts whoever sent it (a leader taken over may write, once, what it still had).
  if (w.t === 'ack') written(t, w.q as number);
  if (term === undefined) {
    if (t.leads_) serve(t, w);
  } else if (w.t === 'bye') {
    if (w.f === t.leader_) lost(t); // the leader left: what was handed to it comes back, the next tab takes over
  } else if (term >= t.term_) {
    if (!t.leads_) follow(t, w);
    else if (term > t.term_) deposed(t); // a later leader exists: this tab lost the lock
  }
}

/** A tab's `binaryType`: `'blob'` or `'arraybuffer'`. @throws RangeError for another string, TypeError for another type. */
function assertTabBinaryType(value: unknown): void {
  if (value !== 'blob' && value !== 'arraybuffer') {
    const Type = typeof value === 'string' ? RangeError : TypeError;
    throw new Type(`Expected \`binaryType\` to be "blob" or "arraybuffer", got ${describeReceived(value)}`);
  }
}
