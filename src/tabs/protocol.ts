/**
 * What the tabs of a `SharedSocket` say to each other over their BroadcastChannel, and the
 * timings of the election. Every message names its sender (`from`); a leader's, and only a
 * leader's, carry its `term`, so a leader that was taken over (a frozen tab that thaws) is
 * recognised and ignored, and a message without one is a follower's. The keys are plain words, as
 * written here: the format is internal to the tabs of one version of the library (its version is in
 * the channel's name, `./shared-socket.ts`), and no key ends in `_`, since the short names the
 * build gives those may differ between two builds (flavours, formats) that tabs of one version run.
 *
 * | `type`   | from → to          | meaning                                                                  |
 * | -------- | ------------------ | ------------------------------------------------------------------------ |
 * | `hi`     | any tab → all      | "who leads?" (a tab that joins, or lost its leader)                      |
 * | `lead`   | leader → all / one | "I lead, in `term`; here is the connection" (`view`, a {@link View})     |
 * | `event`  | leader → all       | an event of the connection (`event`, its `args`) and the `view` after it |
 * | `send`   | follower → leader  | a message (`data`) to write on `connection` (the tab's `seq`, its `batch`) |
 * | `ack`    | leader → follower  | written: every message of that tab up to `seq`                           |
 * | `nack`   | leader → follower  | not written (the connection was not open, or the message was too old): `batch` and all after it come back |
 * | `reject` | leader → follower  | the WebSocket refused message `seq` while open (unsendable; `reason`)     |
 * | `ping`   | follower → leader  | "are you alive?" (answered, like `hi`, by a `lead` to the asker, which also carries the followers in joining order, `roster`) |
 * | `cmd`    | follower → leader  | `open()` or `reconnect(code, reason)` called in a follower (`event`, `args`) |
 * | `bye`    | any tab → all      | the tab closed its socket (a follower hands over what was not written: `unwritten`) |
 *
 * @internal
 */

import type { SocketStats } from '../core/socket.js';
import type { SocketState } from '../core/states.js';
import type { Data } from '../data.js';
import { type ErrorDetails, isResilientSocketError, ResilientSocketError } from '../errors.js';

/** How often a follower asks the leader whether it is alive, in ms. */
export const PING_EVERY = 200;
/**
 * How long a follower waits for any word from its leader before it takes the lock from it, in ms
 * (the leader's page is frozen or hung: a closed or crashed page releases the lock by itself).
 * With {@link PING_EVERY} this bounds a takeover at 1 s.
 */
export const LEADER_TIMEOUT = 500;
/**
 * Each follower after the first in joining order waits this much longer before taking the lock, in
 * ms: more than a watch period plus the spread of the followers' first unanswered pings (each
 * follower pings on its own phase), so that the second never steals before it hears the first lead.
 */
export const STAGGER = 450;
/**
 * A message older than this when it reaches the leader is not written but handed back (`nack`),
 * in ms: its sender may already have given it to another leader. Below {@link LEADER_TIMEOUT}.
 */
export const STALE_AFTER = 400;

/** The connection as a follower sees it, sent with every event. */
export interface View {
  readonly state: SocketState;
  /** Attempts of the current run (the socket's `attempt` outside `reconnecting`). */
  readonly attempt: number;
  readonly failures: number;
  /** Whole: the channel stays within the origin. */
  readonly url: string;
  readonly protocol: string;
  /** The id of the open connection, while one is open and writable. */
  readonly connection: string | undefined;
  /** `stats`, if the leader has the feature, as serialised by {@link encode}. */
  readonly stats: unknown;
}

/** One message on the channel (see the table above). */
export interface Wire {
  readonly type: 'hi' | 'lead' | 'event' | 'send' | 'ack' | 'nack' | 'reject' | 'ping' | 'cmd' | 'bye';
  /** The sender. */
  readonly from: string;
  /** The addressee, when there is one. */
  readonly to?: string | undefined;
  /** The leader's term: on every message a leader posts, on none a follower posts. */
  readonly term?: number | undefined;
  readonly view?: View | undefined;
  /** The event's name (`event`); the command (`cmd`: `open` or `reconnect`). */
  readonly event?: string;
  /** The event's arguments (`event`), the command's (`cmd`). */
  readonly args?: unknown[];
  /** The connection the message is for (`send`: the {@link View}'s `connection` when it was handed over). */
  readonly connection?: string | undefined;
  /** The sender's batch (`send`, `nack`): bumped whenever what it handed over comes back. */
  readonly batch?: number;
  /** The message's number in its tab's sequence (`send`, `ack`: up to it, `reject`). */
  readonly seq?: number;
  readonly data?: Data;
  /** When the message was posted (`send`), the sender's clock. */
  readonly sentAt?: number;
  /** The followers in joining order (a `lead` answering `hi` or `ping`). */
  readonly roster?: string[];
  /** What a follower hands over as it leaves (`bye`): messages not known to be written. */
  readonly unwritten?: readonly { readonly seq: number; readonly data: Data }[];
  /** Why (`reject`). */
  readonly reason?: string;
}

/** A message as a tab composes it: `post` (`./tab.ts`) adds the sender and, in a leader, the term. */
export type Say = Omit<Wire, 'from' | 'term'>;

/** A ResilientSocketError as it crosses the channel (a structured clone loses its `code`). */
interface WireError {
  readonly $rs: 1;
  readonly code: string;
  readonly message: string;
  readonly status?: number | undefined;
  readonly retryAfter?: number | undefined;
  readonly closeCode?: number | undefined;
}

function encodeError(error: ResilientSocketError): WireError {
  const { code, message, status, retryAfter, closeCode } = error;
  return { $rs: 1, code, message, status, retryAfter, closeCode };
}

/** Its details are the wire form's own fields (those left undefined are so on the error too). */
const decodeError = (wire: WireError): ResilientSocketError =>
  new ResilientSocketError(wire.code as never, wire.message, wire as ErrorDetails);

const isWireError = (value: unknown): value is WireError => (value as Partial<WireError> | null)?.$rs === 1;

/** `value` converted by `to` if it `is` one; a plain object with its fields converted (one level); else as is. */
function convert<T>(value: unknown, is: (value: unknown) => value is T, to: (value: T) => unknown): unknown {
  if (is(value)) return to(value);
  if (value === null || typeof value !== 'object' || Object.getPrototypeOf(value) !== Object.prototype) return value;
  const out: Record<string, unknown> = {};
  for (const [key, field] of Object.entries(value)) out[key] = is(field) ? to(field) : field;
  return out;
}

/** An event argument ready for the channel: errors (also one level down: `giveup`'s, `stats`') become plain data. */
export function encode(value: unknown): unknown {
  return convert(value, isResilientSocketError, encodeError);
}

/** The inverse of {@link encode}. */
export function decode(value: unknown): unknown {
  return convert(value, isWireError, decodeError);
}

/**
 * A follower's `stats`: the leader's snapshot (sent with its latest event, `at` its clock time)
 * brought up to `now`, with this tab's own drops.
 */
export function followerStats({ stats, state }: View, at: number, now: number, dropped: number): SocketStats {
  const snapshot = decode(stats) as SocketStats;
  const open = state === 'open';
  return {
    ...snapshot,
    dropped,
    uptime: open ? snapshot.uptime + now - at : 0,
    downtime: open ? 0 : snapshot.downtime + now - at,
  };
}
