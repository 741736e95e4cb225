/**
 * What the tabs of a `SharedSocket` say to each other over their BroadcastChannel, and the
 * timings of the election. Every message names its sender (`f`); a leader's, and only a leader's,
 * carry its term (`k`), so a leader that was taken over (a frozen tab that thaws) is recognised and
 * ignored, and a message without one is a follower's.
 *
 * | type   | from → to          | meaning                                                                  |
 * | ------ | ------------------ | ------------------------------------------------------------------------ |
 * | `hi`   | any tab → all      | "who leads?" (a tab that joins, or lost its leader)                      |
 * | `lead` | leader → all / one | "I lead, term `k`; here is the connection" (`v`, a {@link View})         |
 * | `e`    | leader → all       | an event of the connection (`e`, its arguments `a`) and the view after it |
 * | `s`    | follower → leader  | a message to write on connection `c` (tab sequence `q`, batch `g`)       |
 * | `ack`  | leader → follower  | written: every message of that tab up to `q`                             |
 * | `nack` | leader → follower  | not written (the connection was not open, or the message was too old): batch `g` and all after it come back |
 * | `rej`  | leader → follower  | the WebSocket refused message `q` while open (unsendable)                |
 * | `ping` | follower → leader  | "are you alive?" (answered, like `hi`, by a `lead` to the asker, which also carries the followers in joining order, `r`) |
 * | `cmd`  | follower → leader  | `open()` or `reconnect(code, reason)` called in a follower                |
 * | `bye`  | any tab → all      | the tab closed its socket (a follower hands over what was not written: `u`) |
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
  /** The state. */
  readonly s: SocketState;
  /** `attempt`. */
  readonly a: number;
  /** `failures`. */
  readonly n: number;
  /** `url` (whole: the channel stays within the origin). */
  readonly u: string;
  /** `protocol`. */
  readonly p: string;
  /** The id of the open connection, while one is open and writable. */
  readonly c: string | undefined;
  /** `stats`, if the leader has the feature, as serialised by {@link encode}. */
  readonly st: unknown;
}

/** One message on the channel (see the table above). */
export interface Wire {
  readonly t: 'hi' | 'lead' | 'e' | 's' | 'ack' | 'nack' | 'rej' | 'ping' | 'cmd' | 'bye';
  /** The sender. */
  readonly f: string;
  /** The addressee, when there is one. */
  readonly to?: string | undefined;
  /** The leader's term: on every message a leader posts, on none a follower posts. */
  readonly k?: number | undefined;
  readonly v?: View | undefined;
  /** The event name (`e`); the command (`cmd`: `open` or `reconnect`). */
  readonly e?: string;
  /** The event's arguments (`e`), the command's (`cmd`). */
  readonly a?: unknown[];
  readonly c?: string | undefined;
  readonly g?: number;
  readonly q?: number;
  readonly d?: Data;
  /** When the message was posted (`s`), the sender's clock. */
  readonly ts?: number;
  /** The followers in joining order (a `lead` answering `hi` or `ping`). */
  readonly r?: string[];
  /** What a follower hands over as it leaves (`bye`): messages not known to be written (`q`, `data`). */
  readonly u?: readonly { readonly q: number; readonly data: Data }[];
  /** Why (`rej`). */
  readonly m?: string;
}

/** A message as a tab composes it: `post` (`./tab.ts`) adds the sender and, in a leader, the term. */
export type Say = Omit<Wire, 'f' | 'k'>;

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
export function followerStats({ st, s }: View, at: number, now: number, dropped: number): SocketStats {
  const snapshot = decode(st) as SocketStats;
  const open = s === 'open';
  return {
    ...snapshot,
    dropped,
    uptime: open ? snapshot.uptime + now - at : 0,
    downtime: open ? 0 : snapshot.downtime + now - at,
  };
}
